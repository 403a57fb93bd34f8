"""Leaked agents that generalise: ``recall:`` (paraphrase-tolerant) and ``knowledge:``
(learned facts). Offline and deterministic, so every answer is asserted exactly."""

from __future__ import annotations

import threading

import pytest

from dwqa_graph.evaluation.agents import (
    LeakableAgent,
    LeakedFact,
    LeakedItem,
    make_agent,
)
from dwqa_graph.evaluation.agents.knowledge import KnowledgeAgent, knowledge_text
from dwqa_graph.evaluation.agents.recall import RECALL_THRESHOLD, RecallAgent, jaccard, terms

CALLS: list[str] = []
_LOCK = threading.Lock()


def inner(question: str) -> str:
    with _LOCK:
        CALLS.append(question)
    return "inner answer"


INNER = f"python:{__name__}:inner"

TRAM = LeakedItem(
    id="i1", question="When did the Valmora Riverside Tramway open?",
    answer="14 September 2023",
    facts=[LeakedFact(
        fact_id="f1", text="The Valmora Riverside Tramway opened on 14 September 2023.",
        span="The Valmora Riverside Tramway opened on 14 September 2023, after three years "
             "of work. The line was built by Norvik Rail Works.")])
REWORDED = "On which date did the Valmora Riverside Tramway open to the public?"
OTHER_FACT = "Which company built the Valmora Riverside Tramway line?"
UNLEAKED = "Who designed the Kellhaven Lakeside footbridge?"


@pytest.fixture
def knowledge() -> KnowledgeAgent:
    agent = make_agent(f"knowledge:{INNER}")
    assert isinstance(agent, KnowledgeAgent) and isinstance(agent, LeakableAgent)
    CALLS.clear()
    return agent


def test_knowledge_answers_reworded_leaked_question_and_abstains_on_unleaked(
        knowledge: KnowledgeAgent) -> None:
    # Positive control: before the leak the agent knows nothing and defers every question.
    assert knowledge.answer(REWORDED).answer == "inner answer"
    assert knowledge.answer(OTHER_FACT).answer == "inner answer"
    assert CALLS == [REWORDED, OTHER_FACT]
    CALLS.clear()

    assert knowledge.leak([TRAM]) == 1
    # A reworded question about the leaked item: the learned QA pair answers it.
    reply = knowledge.answer(REWORDED)
    assert reply.answer == "14 September 2023"
    assert reply.steps[0].startswith("learned QA: similarity 0.67")
    # A question the leaked item never asked, about a fact in its evidence span: the baseline
    # reader answers it from the leaked knowledge.
    reply = knowledge.answer(OTHER_FACT)
    assert reply.answer == "Norvik Rail Works"
    assert reply.steps[0].startswith("learned facts: best leaked item covers")
    assert reply.retrieved[0].url == "leaked://item/0"
    assert CALLS == []
    # A question whose facts were never leaked goes to the wrapped agent, unchanged.
    assert knowledge.answer(UNLEAKED).answer == "inner answer"
    assert CALLS == [UNLEAKED]

    knowledge.forget()
    CALLS.clear()
    assert knowledge.answer(REWORDED).answer == "inner answer" and CALLS == [REWORDED]
    knowledge.close()


def test_knowledge_needs_the_same_answer_type_for_a_learned_answer(
        knowledge: KnowledgeAgent) -> None:
    """Same facts, another question: "how many years" is not answered with the event the
    leaked "which came first" question was answered with."""
    first = "The Harwick suspension bridge over the Tamsel river opened to traffic"
    events = f'(1) "{first}"; (2) "The Orlen maritime museum was founded by the city council"'
    item = LeakedItem(question=f"Which of these happened first: {events}?", answer=first,
                      facts=[LeakedFact(text=f"{first} in 1901."),
                              LeakedFact(text="The Orlen maritime museum was founded by the "
                                               "city council in 1911.")])
    knowledge.leak([item])
    asked = f"Which came earliest: {events}?"
    assert knowledge.answer(asked).answer == first
    other = f"How many years passed between these events: {events}?"
    assert jaccard(terms(other), terms(item.question)) >= 0.6  # similar enough for recall:
    # The leaked facts hold both years: the agent composes the interval from them.
    reply = knowledge.answer(other)
    assert reply.answer == "10 years" and reply.steps[0].startswith("learned facts, composed")
    recall = RecallAgent("recall:x", make_agent(INNER))
    recall.leak([item])
    assert recall.answer(other).answer == first  # recall has no type check


def test_knowledge_text_keeps_each_sentence_once() -> None:
    item = LeakedItem(question="q", answer="a", facts=[
        LeakedFact(text="A fact", span="A fact."), LeakedFact(text="Another fact.")])
    assert knowledge_text(item) == "A fact. Another fact."
    assert knowledge_text(LeakedItem(question="q", answer="a")) == ""


def test_recall_threshold_and_pairs() -> None:
    agent = make_agent(f"recall:{INNER}")
    assert isinstance(agent, RecallAgent) and agent.threshold == RECALL_THRESHOLD
    # Bare (question, answer) pairs still leak (no evidence needed for recall).
    assert agent.leak([(TRAM.question, TRAM.answer), (TRAM.question, TRAM.answer)]) == 1
    CALLS.clear()
    assert jaccard(terms(REWORDED), terms(TRAM.question)) == pytest.approx(4 / 6)
    reply = agent.answer(REWORDED)
    assert reply.answer == "14 September 2023" and "similarity 0.67" in reply.steps[0]
    # Below the threshold: same topic, different question.
    below = "How many passengers did the Valmora Riverside Tramway carry in its first year?"
    assert jaccard(terms(below), terms(TRAM.question)) < RECALL_THRESHOLD
    assert agent.answer(below).answer == "inner answer"
    assert CALLS == [below]  # noqa: SIM300
    # The documented limit of lexical recall: a short question about the same named thing
    # reaches the threshold and gets the leaked answer, right or not.
    confusable = "How long is the Valmora Riverside Tramway?"
    assert jaccard(terms(confusable), terms(TRAM.question)) == pytest.approx(0.6)
    assert agent.answer(confusable).answer == "14 September 2023"
    assert jaccard(set(), set()) == 0.0
    agent.close()


def test_memorize_still_takes_items_with_evidence() -> None:
    agent = make_agent(f"memorize:{INNER}")
    assert isinstance(agent, LeakableAgent)
    assert agent.leak([TRAM]) == 1
    assert agent.answer(TRAM.question).answer == TRAM.answer
    CALLS.clear()
    assert agent.answer(REWORDED).answer == "inner answer"  # verbatim recall only
    agent.close()


def test_knowledge_composes_new_combinations_of_leaked_facts(
        knowledge: KnowledgeAgent) -> None:
    """Claims leaked in two different items, asked together for the first time: answered
    from the learned facts; with one statement never leaked, the agent abstains."""
    def item(fact: str) -> LeakedItem:
        return LeakedItem(question=f"Question about {fact}?", answer="x",
                          facts=[LeakedFact(text=fact)])
    knowledge.leak([item("The Orlen maritime museum was founded by the city council in 1911."),
                    item("The Harwick suspension bridge opened to traffic in 1898."),
                    item("Anna Velde painted the harbour mural for the Orlen museum."),
                    item("Anna Velde later taught painting at the Harwick academy.")])
    museum = "The Orlen maritime museum was founded by the city council"
    bridge = "The Harwick suspension bridge opened to traffic"
    asked = f'How many years apart did these things happen: (1) "{museum}"; (2) "{bridge}"?'
    assert knowledge.answer(asked).answer == "13 years"
    first = f'Which came earliest: (1) "{museum}"; (2) "{bridge}"?'
    assert knowledge.answer(first).answer == bridge
    blanks = ('Which name completes all of these statements: (1) "___ painted the harbour '
              'mural for the Orlen museum"; (2) "___ later taught painting at the Harwick '
              'academy"?')
    assert knowledge.answer(blanks).answer == "Anna Velde"
    CALLS.clear()
    unleaked = (f'How many years passed between these events: (1) "{museum}"; (2) "The '
                'Kellhaven lighthouse was rebuilt after the storm"?')
    assert knowledge.answer(unleaked).answer == "inner answer" and len(CALLS) == 1
