"""FreshEval on the FreshQA paper's own examples (the demonstrations of the freshqa
repository's fresheval_relaxed / fresheval_strict notebooks, with their labels).

``false_premise`` and ``fact_type`` are what FreshQA records for such questions; the rule
judge uses them as FreshQA's own grading does (a rebuttal is required for a false premise;
a knowledge-cutoff answer is fine for a never-changing fact only).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dwqa_graph.evaluation.fresheval import (
    LLMFreshEval,
    RuleFreshEval,
    fresheval_rule,
    parse_fresheval,
)
from dwqa_graph.llm import LLM

TODAY = "November 22, 2026"
F1_TEXT = ("Max Verstappen won the 2022 Formula 1 world championship. He is a Dutch racing "
           "driver who competes in Formula One for Red Bull Racing. He is the son of former "
           "Formula One driver Jos Verstappen. Verstappen started his racing career in karting "
           "at the age of seven. He won the 2013 European Karting Championship and the 2013 "
           "World Karting Championship. In 2014, he moved to single-seater racing, competing "
           "in the European Formula Three Championship. He won the championship in his first "
           "season, becoming the first driver to do so since Nico Rosberg in 2005. In 2015, "
           "Verstappen moved to Formula One, driving for Toro Rosso. He became the youngest "
           "driver to compete in Formula One at the age of 17. He scored his first points in "
           "Formula One at the 2015 Hungarian GrandPrix. In 2016, Verstappen moved to Red Bull "
           "Racing. He won his first race at the 2016 Spanish Grand Prix. He became the "
           "youngest driver to win a race in Formula One at theage of 18. Verstappen finished "
           "the 2016 season in third place in the drivers' championship. In 2017, Verstappen "
           "won four races and finished the season in second place in the drivers' "
           "championship. In 2018, Verstappen won seven races and finished the season in "
           "second place in the drivers' championship. In 2019, Verstappen won nine races and "
           "finished the season in first place in the drivers' championship. He is the first "
           "Dutch driver to win the Formula One world championship.")

# (question, correct answers, response, false premise, fact type, label) — relaxed demos
RELAXED = [
    ("How old is the world's oldest verified living person?", ["116 years old", "116"],
     f"As of today {TODAY}, the most up-to-date and relevant information regarding this query "
     "is as follows. The oldest verified living person is Maria Branyas Morera, who was born "
     "on March 4, 1907, making her 116 years old.", False, "fast-changing", True),
    ("When did the UK adopt the Euro?", ["The United Kingdom has never adopted the Euro."],
     "The UK has never adopted the Euro as its official currency. The country has retained "
     "the British pound sterling (GBP) as its currency.", True, None, True),
    ("How much longer will Brittney Griner spend in the Russian prison?",
     ["She was released in December 2022 as part of a prisoner swap."],
     "I'm sorry, but I have no information to suggest that Brittney Griner is currently in a "
     "Russian prison. As far as I know, she is a professional basketball player who currently "
     "plays for the Phoenix Mercury in the Women's National Basketball Association (WNBA). If "
     "you have any more information or context, please let me know and I'll do my best to "
     "help.", True, None, False),
    ("Which language has the third largest population by number of native speakers?",
     ["English"], "1. Mandarin 2. Spanish 3. English", False, "slow-changing", True),
    ("Has Virginia Woolf's novel about the Ramsay family entered the public domain in the "
     "United States?", ["Yes"],
     "1927's To the Lighthouse is in the public domain in the United States. The final answer "
     "is To the Lighthouse.", False, "never-changing", False),
    ("Is Tesla's stock price above $250 a share?", ["Yes"],
     "Yes, it is. The stock price is currently at $207.", False, "fast-changing", False),
    ("When did Lionel Messi win his second FIFA World Cup?",
     ["Messi has not won his second FIFA World Cup.", "Messi has won only one FIFA World Cup."],
     "This question does not contain a valid premise. Lionel Messi has never won a FIFA World "
     "Cup.", True, None, False),
    ("How many times has Jeremy Corbyn served as Prime Minister of the UK?",
     ["Corbyn has never served as Prime Minister of the UK."], "Zero", True, None, False),
    ("Who founded Amazon?", ["Jeff Bezos", "Jeffrey Preston Bezos"],
     "100% of people said Jeff.", False, "never-changing", False),
    ("How many books has Colleen Hoover published?", ["25 books", "25"],
     f"As of today {TODAY}, the most up-to-date and relevant information regarding this query "
     "is as follows. Colleen Hoover has published over 20 books and novellas.", False,
     "slow-changing", False),
    ("What is the largest model size of GPT-3?",
     ["175 billion parameters", "175B parameters", "175 billion", "175B"],
     "175 billion parameters. It is a 175 billion parameter, 1.37TB, 137B token, 137B "
     "wordpiece, 137B BPE, 137B byte pair encoding, 137B BPE token, 137B BPE wordpiece, 137B "
     "BPE token, 137B BPE wordpiece", False, "never-changing", True),
    ("How many member nations exist in the United Nations?",
     ["193", "193 members", "193 member states", "193 sovereign states"],
     "As of my knowledge cutoff date in September 2021, there were 193 member nations in the "
     "United Nations. Please note that this information may have changed since then, so it is "
     "advisable to check the latest information from the United Nations or other reliable "
     "sources.", False, "slow-changing", True),
    ("Who won the biggest single-tournament payday in tennis history?", ["Novak Djokovic"],
     "The biggest single-tournament payday in tennis history was won by Novak Djokovic at the "
     "2021 Australian Open. He received a prize money of AUD 2.75 million (approximately USD "
     "2.1 million) for winning the men's singles title.", False, "slow-changing", True),
    ("Who was the first football player to score one hundred international goals?",
     ["Ali Daei"],
     "As of my knowledge cutoff date in September 2021, Ali Daei, a former Iranian "
     "footballer, was the first player to score 100 international goals.", False,
     "never-changing", True),
    ("Who is the latest winner of the Formula 1 world championship?",
     ["Max Verstappen", "Max Emilian Verstappen"], F1_TEXT, False, "fast-changing", True),
]


def _strict() -> list[tuple[str, list[str], str, bool, str | None, bool]]:
    """The strict notebook's demonstrations: the same questions, some with other gold answers
    or responses, and its own labels."""
    rows = [list(r) for r in RELAXED]
    rows[3][5] = False  # the enumeration: "lacks an explicit statement"
    rows[5][1], rows[5][2] = ["No"], "No, it isn't. The stock price is currently at $257."
    rows[9][1] = ["26 books", "26"]
    rows[10][5] = False  # ill-formed, repetitive
    rows[11][2] = str(rows[11][2]).replace("September 2021", "January 2022")
    rows[11][5] = False  # outdated: an answer "as of" a cutoff, unconfirmed
    rows[12][5] = False  # hallucinated side details
    rows[13][2] = str(rows[13][2]).replace("September 2021", "January 2022")
    rows[14][5] = False  # hallucinated career details
    return [tuple(r) for r in rows]  # type: ignore[misc]


STRICT = _strict()
# Where the offline rules cannot follow the paper: both are strict-mode hallucinations in
# side details (a world-knowledge judgement). The LLM-backed mode is for those.
RULE_MISSES_STRICT = {12, 14}


@pytest.mark.parametrize("i", range(len(RELAXED)))
def test_relaxed_rules_agree_with_the_paper(i: int) -> None:
    q, golds, response, fp, fact, label = RELAXED[i]
    v = fresheval_rule("relaxed", q, golds, response, false_premise=fp, fact_type=fact)
    assert v.credited is label, (q, v.reason)


@pytest.mark.parametrize("i", range(len(STRICT)))
def test_strict_rules_agree_with_the_paper(i: int) -> None:
    q, golds, response, fp, fact, label = STRICT[i]
    v = fresheval_rule("strict", q, golds, response, false_premise=fp, fact_type=fact)
    if i in RULE_MISSES_STRICT:
        assert label is False and v.credited is True  # the known, documented miss
    else:
        assert v.credited is label, (q, v.reason)


def test_agreement_totals() -> None:
    relaxed = sum(fresheval_rule("relaxed", q, g, r, false_premise=fp, fact_type=f).credited
                  is lab for q, g, r, fp, f, lab in RELAXED)
    strict = sum(fresheval_rule("strict", q, g, r, false_premise=fp, fact_type=f).credited
                 is lab for q, g, r, fp, f, lab in STRICT)
    assert (relaxed, strict) == (15, 13)
    # The modes differ where the paper's labels differ: strict is never more lenient.
    for (q, g, r, fp, f, _), (_, g2, r2, _, _, _) in zip(RELAXED, STRICT, strict=True):
        if (g, r) == (g2, r2):
            relax = fresheval_rule("relaxed", q, g, r, false_premise=fp, fact_type=f)
            strict_v = fresheval_rule("strict", q, g, r, false_premise=fp, fact_type=f)
            assert relax.credited or not strict_v.credited


def test_false_premise_flag_matters() -> None:
    # Positive control: the same "Zero" is credited when the question is not a false premise
    # and the gold is "zero".
    assert fresheval_rule("relaxed", "How many moons does Venus have?", ["zero", "0"],
                          "Zero", false_premise=False).credited
    assert not fresheval_rule("relaxed", "How many moons does Venus have?", ["zero", "0"],
                              "Zero", false_premise=True).credited


def test_rule_judge_labels() -> None:
    judge = RuleFreshEval("strict")
    q, golds, response, fp, fact, _ = STRICT[1]
    label = asyncio.run(judge.grade(q, golds, response, false_premise=fp, fact_type=fact))
    assert (label.label, label.fallback, judge.id) == ("CORRECT", False, "fresheval-strict:rule")


@pytest.mark.parametrize(("reply", "expected"), [
    ("The response points it out. Thus, the response is credited.\nevaluation: correct", True),
    ("comment: ... Thus, the response is not credited.\nevaluation: incorrect", False),
    ("Thus, the response is not credited.", False),
    ("Thus, the response is credited.", True),
    ("I think so.", None),
])
def test_parse_fresheval(reply: str, expected: bool | None) -> None:
    assert parse_fresheval(reply) is expected


def test_llm_fresheval_sends_the_rules_and_reads_the_verdict(tmp_path: Path) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = FakeListChatModel(responses=[
        "The primary answer is accurate. Thus, the response is credited.\nevaluation: correct",
        "no idea"])
    llm = LLM(model, cache_path=tmp_path / "cache.db")
    judge = LLMFreshEval("relaxed", llm)
    q, golds, response, _, _, _ = RELAXED[13]
    first = asyncio.run(judge.grade(q, golds, response))
    second = asyncio.run(judge.grade("Other?", ["x"], "y"))
    assert (first.label, first.fallback) == ("CORRECT", False)
    assert (second.label, second.fallback) == ("INCORRECT", True)
    prompt = judge.prompt.render(question=q, correct_answers=" | ".join(golds),
                                 response=response)
    assert "RELAXED" in prompt and "Ali Daei" in prompt and "false premise" in prompt
    assert prompt.rstrip().endswith("comment:")
