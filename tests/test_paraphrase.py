"""Paraphrase check: the lexical prefilter, question sets, the rule judge, tolerant parsing
of the seed prompt's replies, fake LLMs (good and broken output), and the real local model."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from dwqa_graph.leakage.paraphrase import (
    content_tokens,
    find_paraphrases,
    parse_pairs,
    prefilter,
    question_sets,
    rule_paraphrase,
)
from dwqa_graph.llm import LLM, make_llm
from tests.conftest import scripted_model

QS = [
    "Who directed the film Inception?",                            # 0 ~ 1
    "Inception was directed by whom?",                             # 1
    "What year was the Eiffel Tower completed?",                   # 2 ~ 3
    "In what year was the Eiffel Tower finished?",                 # 3
    "What is the capital of France?",                              # 4, not ~ 5
    "What is the capital of Germany?",                             # 5
    "When did the Valmora tram extension open?",                   # 6 ~ 7
    "When did the tram extension in Valmora open?",                # 7
    "Who wrote the novel Moby-Dick?",                              # 8
    "Which river flows through Vienna?",                           # 9
    "Who is older, Annie Morton or Terry Richardson?",             # 10 ~ 11
    "Between Terry Richardson and Annie Morton, who is older?",    # 11
]


def with_ids(texts: list[str], tag: str = "q") -> list[tuple[str, str]]:
    return [(f"{tag}{i}", t) for i, t in enumerate(texts)]


def scripted(tmp_path: Path, *replies: str) -> LLM:
    model = scripted_model(replies)
    return LLM(model, cache_path=tmp_path / "c.sqlite", concurrency=1, retries=0)


# -- features and rule ------------------------------------------------------------------------
def test_content_tokens() -> None:
    assert content_tokens("What is the population of Paris?") == {"population", "paris"}
    assert content_tokens("Which rivers flow through the cities?") == {"river", "flow", "city"}
    assert content_tokens("Who is it?") == frozenset()


def test_rule_judge() -> None:
    for a, b in [(QS[6], QS[7]), (QS[10], QS[11]),
                 ("Which river flows through Vienna?", "Through Vienna, which river flows?")]:
        assert rule_paraphrase(a, b)[0], (a, b)
    # The seed prompt's own "NOT paraphrases" examples.
    for a, b in [("What is the capital of France?", "What is the capital of Germany?"),
                 ("When did the war start?", "When did the war end?"),
                 ("What happened in 2020?", "What happened in 2021?"),
                 ("How many soldiers did the general mobilize?",
                  "How many soldiers did the general gather?"),
                 ("What happened after the attack?",
                  "What happened after the attack and the execution?"),
                 ("Who founded Apple?", "When was Apple founded?")]:
        assert not rule_paraphrase(a, b)[0], (a, b)


# -- prefilter --------------------------------------------------------------------------------
def test_prefilter_keeps_paraphrases_and_drops_unrelated_pairs() -> None:
    cands, stats = prefilter(QS)
    pairs = {(c.a, c.b) for c in cands}
    assert {(0, 1), (2, 3), (6, 7), (10, 11)} <= pairs
    assert (4, 5) not in pairs  # one shared content word of three
    assert all(b in (a + 1,) for a, b in pairs)  # nothing across unrelated questions
    assert stats.pairs_scored < len(QS) * (len(QS) - 1) // 2
    # Identical after normalisation is a candidate even with no content words at all.
    cands, _ = prefilter(["Who is it?", "who is it", "What was that?"])
    assert [(c.a, c.b, c.reason) for c in cands] == [(0, 1, "identical")]


def synthetic(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(3000)]
    names = [f"Name{i}" for i in range(3000)]
    templates = ["Who founded the {0} {1} in {2}?", "What is the {0} of {1} {3}?",
                 "When did {1} {0} the {3}?", "Which {0} won the {2} {1} award?"]
    return [rng.choice(templates).format(rng.choice(words), rng.choice(names),
                                         rng.randint(1900, 2024), rng.choice(words))
            for _ in range(n)]


def test_prefilter_scales_to_2000_questions() -> None:
    texts = synthetic(2000)
    texts[1500] = "Who founded the w17 Name42 in 1999?"
    texts[1501] = "In 1999, who founded the w17 Name42?"
    all_pairs = 2000 * 1999 // 2
    cands, stats = prefilter(texts)
    assert any((c.a, c.b) == (1500, 1501) for c in cands)
    assert len(cands) < all_pairs // 500  # a few thousand of ~2 million
    assert stats.pairs_scored < all_pairs // 100  # the inverted index never scores them all
    assert stats.frequent_tokens > 0  # template words are too common to propose pairs
    report = find_paraphrases(with_ids(texts))
    assert report.total_possible_pairs == all_pairs
    assert {(p.a_id, p.b_id) for p in report.pairs} >= {("q1500", "q1501")}
    assert report.unchecked_candidate_pairs == 0 and report.failed == 0


# -- question sets ----------------------------------------------------------------------------
def test_question_sets_pack_components_and_cut_big_ones() -> None:
    small = [(0, 1), (2, 3), (4, 5), (5, 6)]
    sets = question_sets(small, max_set=5)
    assert sorted(sum((s.edges for s in sets), [])) == small
    assert all(len(s.nodes) <= 5 for s in sets)
    assert len(sets) == 2  # {4,5,6} + {0,1}, then {2,3} alone
    clique = [(i, j) for i in range(30) for j in range(i + 1, 30)]
    sets = question_sets(clique, max_set=20)
    covered = sorted(e for s in sets for e in s.edges)
    assert covered == clique  # every candidate pair is checked exactly once
    for s in sets:
        assert len(s.nodes) <= 20
        assert all(a in s.nodes and b in s.nodes for a, b in s.edges)
    with pytest.raises(ValueError):
        question_sets(small, max_set=1)


# -- parsing replies --------------------------------------------------------------------------
def test_parse_pairs_accepts_every_shape_seen() -> None:
    seed_style = """{
        "paraphrase_index_pairs": [
            [(1, 2), "Both ask who directed Inception."],
            [(3, 4), "Same question, reordered."]
        ]
    }"""
    assert parse_pairs(seed_style).pairs == [(1, 2, "Both ask who directed Inception."),
                                             (3, 4, "Same question, reordered.")]
    assert parse_pairs('{"paraphrase_index_pairs": [[[1, 2], "x"]]}').pairs == [(1, 2, "x")]
    assert parse_pairs('```json\n{"paraphrase_index_pairs": [[1, 2, "x"], ["3", "4"]]}\n```'
                       ).pairs == [(1, 2, "x"), (3, 4, "")]
    assert parse_pairs('{"paraphrase_index_pairs": [{"pair": [1, 2], "explanation": "y"}, '
                       '{"index1": 5, "index2": 6}]}').pairs == [(1, 2, "y"), (5, 6, "")]
    assert parse_pairs('{"paraphrase_index_pairs": ["(1, 2)"]}').pairs == [(1, 2, "")]
    assert parse_pairs('{"paraphrase_index_pairs": []}').pairs == []
    assert parse_pairs("[]").pairs == []
    # Truncated JSON: the pairs that made it are still read.
    assert parse_pairs('{"paraphrase_index_pairs": [[(1, 2), "same"], [(3, 5), "sa'
                       ).pairs == [(1, 2, ""), (3, 5, "")]
    assert parse_pairs('{"paraphrase_index_pairs": [], "note": "tru').pairs == []
    mixed = parse_pairs('{"paraphrase_index_pairs": [[(1, 2), "ok"], {"index1": "Inception"}]}')
    assert mixed.pairs == [(1, 2, "ok")] and mixed.unusable == 1
    for bad in ("There are no paraphrases here.", '{"answer": "no"}', "",
                '{"a": [1], "b": [2]}'):
        with pytest.raises(ValueError):
            parse_pairs(bad)


# -- find_paraphrases -------------------------------------------------------------------------
def test_find_paraphrases_with_the_rule_judge() -> None:
    report = find_paraphrases(with_ids(QS))
    got = {(p.a_id, p.b_id) for p in report.pairs}
    assert got == {("q6", "q7"), ("q10", "q11")}
    assert report.judge == "rule" and report.llm is None and report.prompt is None
    assert report.total_possible_pairs == 66 and report.candidate_pairs == 4
    assert report.paraphrase_percentage == pytest.approx(100 * 2 / 66)
    assert (report.total_processed, report.successful, report.failed) == (1, 1, 0)
    data = report.model_dump(mode="json")
    json.dumps(data, allow_nan=False)
    for key in ("total_processed", "successful", "failed", "total_paraphrase_pairs",
                "total_possible_pairs", "paraphrase_percentage", "total_processing_time"):
        assert key in data
    # Nothing to compare.
    empty = find_paraphrases([("a", "Who?")])
    assert empty.total_possible_pairs == 0 and empty.paraphrase_percentage is None


def test_find_paraphrases_with_an_llm(tmp_path: Path) -> None:
    qs = [QS[0], QS[1], QS[8], QS[6], QS[7]]  # candidates: (0, 1), (3, 4); 2 is alone
    # One set holds questions 0, 1, 3, 4 (numbered 1-4). The model confirms both candidate
    # pairs in the seed's tuple style, adds a pair the prefilter did not propose, and
    # returns an out-of-range index and a self-pair.
    reply = ('{"paraphrase_index_pairs": [[(1, 2), "same question, passive voice"], '
             '[(3, 4), "reordered"], [(2, 3), "model says so"], [(1, 9), "bad"], '
             '[(2, 2), "self"]]}')
    llm = scripted(tmp_path, reply)
    report = find_paraphrases(with_ids(qs), llm=llm)
    llm.close()
    pairs = {(p.a_id, p.b_id): p for p in report.pairs}
    assert set(pairs) == {("q0", "q1"), ("q3", "q4"), ("q1", "q3")}
    assert pairs[("q0", "q1")].explanation == "same question, passive voice"
    assert pairs[("q0", "q1")].candidate and not pairs[("q1", "q3")].candidate
    assert pairs[("q0", "q1")].a_text == QS[0]
    assert report.non_candidate_pairs == 1 and report.invalid_pairs == 2
    assert (report.total_processed, report.successful, report.failed) == (1, 1, 0)
    assert report.prompt is not None and report.prompt["name"] == "paraphrase_checker"
    assert report.llm is not None and report.llm.calls == 1
    assert report.judge_identity is not None


def test_broken_llm_output_is_counted_not_raised(tmp_path: Path) -> None:
    qs = [QS[0], QS[1], QS[6], QS[7]]
    # Prose twice: one repair turn, then a counted failure of the set.
    llm = scripted(tmp_path, "These look similar to me.", "I think 1 and 2 are alike.")
    report = find_paraphrases(with_ids(qs), llm=llm)
    llm.close()
    assert (report.total_processed, report.successful, report.failed) == (1, 0, 1)
    assert report.failures == {"parse_error": 1}
    assert report.llm is not None and report.llm.repairs == 1 and report.llm.calls == 2
    assert report.unchecked_candidate_pairs == 2 and report.pairs == []
    assert report.paraphrase_percentage == 0.0
    # Prose, then the JSON after the repair turn: the set succeeds.
    llm = scripted(tmp_path / "2", "Sure, let me look.",
                   '{"paraphrase_index_pairs": [[(3, 4), "ok"]]}')
    report = find_paraphrases(with_ids(qs), llm=llm)
    llm.close()
    assert (report.successful, report.failed, report.unchecked_candidate_pairs) == (1, 0, 0)
    assert [(p.a_id, p.b_id) for p in report.pairs] == [("q2", "q3")]
    # A model that errors on every call: every set failed, nothing raised.
    llm = scripted(tmp_path / "3")
    report = find_paraphrases(with_ids([QS[6], QS[7]]), llm=llm)
    llm.close()
    assert report.failed == report.total_processed == 1 and report.failures == {"error": 1}
    assert report.total_paraphrase_pairs == 0 and report.unchecked_candidate_pairs == 1


def test_several_sets_one_failing(tmp_path: Path) -> None:
    """max_set=2: one set per candidate pair; the model breaks on the Inception set only."""

    class ByTopic(GenericFakeChatModel):
        def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                      run_manager: Any = None, **kwargs: Any) -> ChatResult:
            text = ("no idea" if "Inception" in str(messages[0].content)
                    else '{"paraphrase_index_pairs": [[(1, 2), "reordered"]]}')
            return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    llm = LLM(ByTopic(messages=iter([])), cache_path=tmp_path / "c.sqlite", concurrency=2)
    report = find_paraphrases(with_ids([QS[0], QS[1], QS[6], QS[7]]), llm=llm, max_set=2)
    llm.close()
    assert (report.total_processed, report.successful, report.failed) == (2, 1, 1)
    assert report.failures == {"parse_error": 1} and report.unchecked_candidate_pairs == 1
    assert [(p.a_id, p.b_id, p.explanation) for p in report.pairs] == [
        ("q2", "q3", "reordered")]
    assert report.paraphrase_percentage == pytest.approx(100 / 6)


def test_cross_set_mode(tmp_path: Path) -> None:
    fresh = ["Who is older, Annie Morton or Terry Richardson?",
             "Which council approved the Valmora tram extension?",
             "Who is older, Annie Morton or Terry Richardson?"]  # a duplicate within set A
    static = ["Between Terry Richardson and Annie Morton, who is older?",
              "What is the capital of France?"]
    report = find_paraphrases(with_ids(fresh, "new"), other=with_ids(static, "old"))
    assert report.mode == "cross" and report.set_sizes == [3, 2]
    assert report.total_possible_pairs == 6
    assert {(p.a_id, p.b_id) for p in report.pairs} == {("new0", "old0"), ("new2", "old0")}
    assert report.candidate_pairs == 2  # the within-A duplicate is not a cross pair
    # An LLM naming a within-set pair: dropped and counted.
    llm = LLM(FakeListChatModel(responses=[
        '{"paraphrase_index_pairs": [[(1, 3), "same"], [(1, 2), "same"], [(2, 3), "same"]]}']),
        cache_path=tmp_path / "c.sqlite")
    report = find_paraphrases(with_ids(fresh, "new"), other=with_ids(static, "old"), llm=llm)
    llm.close()
    # One set: new0, new2, old0 numbered 1-3; (1, 2) is new0-new2, within set A.
    assert {(p.a_id, p.b_id) for p in report.pairs} == {("new0", "old0"), ("new2", "old0")}
    assert report.invalid_pairs == 1


def test_questions_with_template_braces(tmp_path: Path) -> None:
    """A question may contain "{{cite}}" (wiki markup); the prompt must still render."""
    qs = ["What does {{cite web}} do in a Wikipedia article?",
          "In a Wikipedia article, what does {{cite web}} do?"]
    llm = LLM(FakeListChatModel(responses=['{"paraphrase_index_pairs": [[(1, 2), "same"]]}']),
              cache_path=tmp_path / "c.sqlite")
    report = find_paraphrases(with_ids(qs), llm=llm)
    llm.close()
    assert report.failed == 0 and report.total_paraphrase_pairs == 1


# -- the real local model ---------------------------------------------------------------------
def test_paraphrase_check_with_a_real_local_model(llm_url: str, tmp_path: Path) -> None:
    """SmolLM2-135M rarely answers in the requested format: the check must survive it and
    count what went wrong."""
    qs = [QS[0], QS[1], QS[6], QS[7], QS[4], QS[5], "Who founded Apple?",
          "Apple was founded by whom?"]
    llm = LLM(make_llm(llm_url, max_tokens=200, json_mode=True),
              cache_path=tmp_path / "llm.sqlite", concurrency=1, timeout=300)
    report = find_paraphrases(with_ids(qs), llm=llm)
    llm.close()
    json.dumps(report.model_dump(mode="json"), allow_nan=False)
    assert report.total_processed >= 1
    assert report.total_processed == report.successful + report.failed
    assert report.failed == sum(report.failures.values())
    assert report.llm is not None and report.llm.calls >= 1
    assert report.llm.completion_tokens > 0  # the server really generated
    ids = {i for i, _ in with_ids(qs)}
    assert all(p.a_id in ids and p.b_id in ids and p.a_id != p.b_id for p in report.pairs)
    assert report.total_paraphrase_pairs == len(report.pairs) <= report.total_possible_pairs
    print(f"real model paraphrase check: {report.successful}/{report.total_processed} sets, "
          f"{report.total_paraphrase_pairs} pairs, failures {report.failures}, "
          f"invalid {report.invalid_pairs}")


def test_prefilter_misses_no_jaccard_pair_even_among_common_words() -> None:
    """Brute force over all pairs: every pair with Jaccard >= j_min is a candidate, also in a
    templated set where every word is 'frequent' (the case a frequent-word cut-off misses)."""
    rng = random.Random(3)
    common = [f"{rng.choice(['When did', 'Who made', 'Why did'])} {rng.choice('ab')}x "
              f"{rng.choice(['open', 'close', 'fund'])} the {rng.choice(['depot', 'line'])} "
              f"in {rng.randint(2000, 2003)}?" for _ in range(600)]
    for texts in (synthetic(600), common):
        toks = [content_tokens(t) for t in texts]
        found = {(c.a, c.b) for c in prefilter(texts)[0]}
        expected = {(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))
                    if (u := len(toks[i] | toks[j])) and len(toks[i] & toks[j]) / u >= 0.4}
        assert expected and expected <= found
