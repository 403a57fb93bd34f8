"""Pretraining-leakage tests: guided completion (ROUGE-L, cleaning, fake and real models) and
Min-K% Prob (the math, echo alignment, a simulated llama-cpp-python server, the real one)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from dwqa_graph.leakage.pretraining import (
    CALIBRATION_TEXT,
    align_echo,
    alignment_hits,
    alignment_verdict,
    auc_greater,
    clean_completion,
    guided_completion,
    lcs_length,
    min_k_prob,
    min_k_score,
    pretraining_report,
    rouge_l,
    split_question,
)
from dwqa_graph.llm import LLM, make_llm
from dwqa_graph.models import EvalItem

from .conftest import HOTPOT


def item(i: str, question: str, dataset: str = "hotpotqa") -> EvalItem:
    return EvalItem(id=i, question=question, golds=["x"], source="static", dataset=dataset)


def json_safe(report: Any) -> dict[str, Any]:
    data = report if isinstance(report, dict) else report.model_dump(mode="json")
    json.dumps(data, allow_nan=False)  # raises on NaN / inf
    return data  # type: ignore[no-any-return]


# -- ROUGE-L ------------------------------------------------------------------------------------
def test_rouge_l_hand_computed() -> None:
    # LCS of [the cat sat on the mat] / [the cat is on the mat] = the cat on the mat (5).
    r = rouge_l("the cat sat on the mat", "the cat is on the mat")
    assert r.precision == pytest.approx(5 / 6) and r.recall == pytest.approx(5 / 6)
    assert r.f1 == pytest.approx(5 / 6)
    # Lin (2004)'s example: word order matters; LCS = "the gunman" (2 of 4 each way).
    assert rouge_l("police killed the gunman", "the gunman kill police").f1 == 0.5
    # Unequal lengths: LCS 3, P = 3/3, R = 3/6, F1 = 2·1·0.5 / 1.5.
    r = rouge_l("a b c", "a x b y c z")
    assert (r.precision, r.recall) == (1.0, 0.5) and r.f1 == pytest.approx(2 / 3)
    # Lowercase word tokens; punctuation is not a token.
    assert rouge_l("Wood of the same NATIONALITY?", "wood of the same nationality").f1 == 1.0
    assert rouge_l("nothing shared", "entirely different").f1 == 0.0
    assert rouge_l("", "").f1 == 1.0 and rouge_l("", "text").f1 == 0.0
    assert rouge_l("?!", "abc").f1 == 0.0
    assert lcs_length("abcbdab", "bdcaba") == lcs_length("bdcaba", "abcbdab") == 4


def test_split_question_at_a_word_boundary() -> None:
    q = "Were Scott Derrickson and Ed Wood of the same nationality?"  # 10 words
    assert split_question(q) == ("Were Scott Derrickson and Ed", "Wood of the same nationality?")
    assert split_question(q, 0.3) == ("Were Scott Derrickson", "and Ed Wood of the same "
                                                               "nationality?")
    # At least one word on each side; the text's own spacing is kept.
    assert split_question("Why  now", 0.1) == ("Why", "now")
    assert split_question("Why  now", 0.9) == ("Why", "now")
    assert split_question("A  b\tc d") == ("A  b", "c d")
    assert split_question("Why?") is None
    with pytest.raises(ValueError):
        split_question(q, 1.0)


def test_clean_completion() -> None:
    prefix = "Were Scott Derrickson and Ed"
    assert clean_completion("Second piece: Wood of the same nationality?", prefix) == \
        "Wood of the same nationality?"
    assert clean_completion('"Wood of the same nationality?"\nAnswer: yes', prefix) == \
        "Wood of the same nationality?"
    # The whole question repeated: the first piece is dropped.
    assert clean_completion("Were Scott Derrickson and Ed Wood of the same nationality?",
                            prefix) == "Wood of the same nationality?"
    assert clean_completion("**Completion:** ...Wood of the same nationality", prefix) == \
        "Wood of the same nationality"
    assert clean_completion("\n\n  \n", prefix) == ""


# -- guided completion with fake models ---------------------------------------------------------
class Recording(GenericFakeChatModel):
    """GenericFakeChatModel that keeps the prompts it was sent."""

    seen: list[str] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append(str(messages[-1].content))
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_guided_completion_scores_and_counts_failures(tmp_path: Path) -> None:
    items = [
        item("a", "Were Scott Derrickson and Ed Wood of the same nationality?"),
        item("b", "Who is older, Annie Morton or Terry Richardson?"),
        item("c", "What year did Guns N Roses perform a promo for a movie?"),
        item("d", "Why?"),  # one word: cannot be split, no call
        item("e", "Which band released the album Ten in 1991?"),  # the fake runs dry: error
    ]
    model = Recording(messages=iter([
        AIMessage("Second piece: Wood of the same nationality?"),  # verbatim
        AIMessage("Morton or Richardson?"),  # LCS 3 of 4: F1 = 6/7
        AIMessage("I am sorry, I cannot help with that."),
    ]))
    llm = LLM(model, cache_path=tmp_path / "c.sqlite", concurrency=1, retries=0)
    report = guided_completion(items, llm, dataset_name="HotpotQA")
    llm.close()
    by_id = {r.id: r for r in report.results}
    assert by_id["a"].exact_match and by_id["a"].rouge_l == 1.0 and by_id["a"].suspected
    assert by_id["b"].remainder == "Morton or Terry Richardson?"
    assert by_id["b"].rouge_l == pytest.approx(6 / 7) and by_id["b"].rouge_l_recall == 0.75
    assert by_id["b"].suspected and not by_id["b"].exact_match
    assert by_id["c"].rouge_l == 0.0 and not by_id["c"].suspected
    assert by_id["d"].error == "too_short" and by_id["d"].completion is None
    assert by_id["e"].error == "error" and by_id["e"].rouge_l is None
    assert (report.items, report.scored, report.suspected) == (5, 3, 2)
    assert report.mean_rouge_l == pytest.approx((1 + 6 / 7 + 0) / 3)
    assert report.exact_match_rate == pytest.approx(1 / 3)
    assert report.failures == {"error": 1, "too_short": 1}
    assert report.llm.failures == {"error": 1} and report.llm.calls == 4
    # The prompt names the dataset and shows only the first piece.
    assert "from the HotpotQA dataset" in model.seen[0]
    assert "First piece: Were Scott Derrickson and Ed\n" in model.seen[0]
    assert "Wood of the same" not in model.seen[0]
    assert report.prompt["name"] == "guided_completion" and report.reference is None
    json_safe(report)


def test_guided_completion_question_with_template_braces(tmp_path: Path) -> None:
    model = Recording(messages=iter([AIMessage("does in wiki markup?")]))
    llm = LLM(model, cache_path=tmp_path / "c.sqlite")
    report = guided_completion([item("a", "What {{cite web}} template does in wiki markup?")],
                               llm, dataset_name="FreshQA")
    llm.close()
    assert report.results[0].error is None and report.results[0].rouge_l == 1.0
    assert "First piece: What {{cite web}} template\n" in model.seen[0]


def test_guided_completion_against_a_reference(tmp_path: Path) -> None:
    items = [item("a", "Were Scott Derrickson and Ed Wood of the same nationality?")]
    refs = [item("r", "Which council approved the Valmora tram extension?", "round:1")]
    model = FakeListChatModel(responses=["Wood of the same nationality?",
                                         "did something else entirely?"])
    llm = LLM(model, cache_path=tmp_path / "c.sqlite", concurrency=1)
    report = guided_completion(items, llm, dataset_name="HotpotQA", reference_items=refs)
    llm.close()
    assert report.reference is not None and report.reference.mean_rouge_l == 0.0
    assert report.reference_results[0].remainder == "the Valmora tram extension?"
    assert report.difference == {"mean_rouge_l": 1.0, "exact_match_rate": 1.0,
                                 "suspected_rate": 1.0}
    json_safe(report)


def test_pretraining_report_without_an_endpoint(tmp_path: Path) -> None:
    """A chat model without /v1/completions: guided runs, Min-K% says why it cannot."""
    model = FakeListChatModel(responses=["Wood of the same nationality?"])
    out = pretraining_report([item("a", "Were Scott Derrickson and Ed Wood of the same "
                                        "nationality?")], model, dataset_name="HotpotQA",
                             cache_path=tmp_path / "c.sqlite")
    json_safe(out)
    assert out["guided_completion"]["exact_match_rate"] == 1.0
    assert out["min_k_prob"]["available"] is False
    assert "/v1/completions" in out["min_k_prob"]["reason"]
    assert out["min_k_prob"]["results"] == [] and out["reference_items"] is None


# -- Min-K% Prob: math and alignment ------------------------------------------------------------
def test_min_k_score_hand_computed() -> None:
    lps = [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0]
    assert min_k_score(lps, 0.2) == -9.5  # lowest 2: -10, -9
    assert min_k_score(lps, 0.5) == -8.0  # lowest 5: -10..-6
    assert min_k_score(lps, 1.0) == -5.5  # all: mean log-prob
    assert min_k_score([-0.5, -3.0, -1.0], 0.2) == -3.0  # ⌊0.6⌋ = 0: at least one token
    # 0.29 · 100 is 28.999... in floating point; the score still takes 29 tokens.
    assert min_k_score([-float(i) for i in range(100)], 0.29) == -85.0
    with pytest.raises(ValueError):
        min_k_score([], 0.2)
    with pytest.raises(ValueError):
        min_k_score(lps, 0.0)


def test_auc_greater() -> None:
    assert auc_greater([1.0, 2.0, 3.0], [2.0]) == 0.5  # below, tie, above
    assert auc_greater([3.0, 4.0], [1.0, 2.0]) == 1.0
    assert auc_greater([-5.0], [1.0, 2.0]) == 0.0
    assert auc_greater([], [1.0]) is None


def test_align_echo_with_real_response_shapes() -> None:
    # llama-cpp-python with the BOS prefix: first token null, generated "\n" last.
    got = align_echo("Who is older?", ["Who", " is", " older", "?", "\n"],
                     [None, -2.62, -7.9, -3.52, -1.74])
    assert got == [("Who", None), (" is", -2.62), (" older", -7.9), ("?", -3.52)]
    # A server that returns its BOS token (vLLM): skipped, it is not text.
    got = align_echo("Who is older?", ["<s>", "Who", " is", " older", "?"],
                     [None, -1.0, -2.0, -3.0, -4.0])
    assert [t for t, _ in got] == ["Who", " is", " older", "?"]
    # SentencePiece-style first word with a space.
    assert len(align_echo("Who is", [" Who", " is"], [None, -1.0])) == 2
    # Multi-byte characters split over tokens come back as "" (real SmolLM2 response).
    text = "Café naïve — 東京 résumé?"
    toks = ["C", "af", "é", " na", "ïve", " —", " ", "", "", "", "", " r", "é", "sum", "é",
            "?", "\n"]
    got = align_echo(text, toks, [None] + [-1.0] * 16)
    assert len(got) == 16 and got[-1][0] == "?"
    # ... also at the very end of the text.
    got = align_echo("Tokyo 東京", ["Tok", "yo", " ", "", "", "", "", "\n"], [None] + [-1.0] * 7)
    assert len(got) == 7
    with pytest.raises(ValueError):
        align_echo("Who is older?", ["Who", " was", " older", "?"], [None, -1.0, -1.0, -1.0])
    with pytest.raises(ValueError):
        align_echo("Who is older?", ["Who", " is"], [None, -1.0])


# Recorded from the real server (llama-cpp-python 0.3.36, SmolLM2-135M) for
# "The capital of France is Paris.": without and with the "<|im_start|>" prefix.
SHIFTED: dict[str, Any] = {"tokens": ["The", " capital", " of", " France", " is", " Paris", "."],
           "top_logprobs": [None, {" of": -0.41, " capital": -9.6}, {" the": -1.99, " of": -10.46},
                            {" is": -0.43, " France": -11.23}, {" Paris": -0.26, " is": -11.79},
                            {".": -0.38, " Paris": -8.45}, {"\n": -1.03, ".": -18.14}]}
ALIGNED: dict[str, Any] = {
           "tokens": ["The", " capital", " of", " France", " is", " Paris", ".", "\n"],
           "top_logprobs": [None, {"B": -4.19, " capital": -15.74}, {" of": -0.75},
                            {" the": -2.2, " France": -4.14}, {" is": -1.55}, {" Paris": -0.27},
                            {".": -0.53}, {"\n": -0.95}]}


def test_alignment_hits_on_recorded_responses() -> None:
    assert alignment_hits(SHIFTED["tokens"], SHIFTED["top_logprobs"]) == (0, 4)
    assert alignment_hits(ALIGNED["tokens"], ALIGNED["top_logprobs"]) == (5, 0)
    assert alignment_verdict(0, 4) == "shifted" and alignment_verdict(5, 0) == "aligned"
    assert alignment_verdict(1, 1) == "inconclusive"


# -- Min-K% Prob against a simulated llama-cpp-python server ------------------------------------
def _pieces(text: str) -> list[str]:
    """Words with their leading space; a leading "<...>" (an unrecognised BOS) on its own."""
    return re.findall(r"^<[^>\s]*>|\s?[^\s<]+", text)


def fake_llama_cpp(bos: str | None = "<|im_start|>", fail: int | None = None,
                   broken: str | None = None, garbled: str | None = None
                   ) -> tuple[httpx.MockTransport, list[str]]:
    """A /v1/completions that behaves like llama-cpp-python: aligned when the prompt starts
    with ``bos``, shifted by one otherwise. A token's true log-prob is −(its length)."""
    prompts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert body["echo"] is True and body["max_tokens"] == 1 and body["logprobs"] == 1
        prompt: str = body["prompt"]
        prompts.append(prompt)
        if fail is not None:
            return httpx.Response(fail, text="server error")
        aligned = bos is not None and prompt.startswith(bos)
        text = prompt[len(bos):] if aligned and bos else prompt
        if broken is not None and text == broken:
            return httpx.Response(200, json={"choices": [{"text": text, "logprobs": None}]})
        if text == "odd tops here":  # top_logprobs of the wrong type: no alignment counts
            return httpx.Response(200, json={"choices": [{"text": text, "logprobs": {
                "tokens": ["odd", " tops", " here", "\n"],
                "token_logprobs": [None, -1.0, -2.0, -0.5],
                "top_logprobs": [None, {"x": "high"}, "nonsense", {"\n": -0.5}]}}]})
        toks = _pieces(text)
        if garbled is not None and text == garbled:
            toks = [t.upper() for t in toks]
        true = [-float(len(t.strip())) for t in toks]
        if aligned:
            tokens = [*toks, "\n"]
            values: list[float | None] = [None, *true[1:], -0.5]
            tops: list[Any] = [None] + [{t: v} for t, v in zip(tokens[1:], values[1:],
                                                                 strict=True)]
        else:  # row i predicts token i+1; the value reported is token i's under it
            tokens = toks
            values = [None] + [v - 10.0 for v in true[1:]]
            nxt = [*toks[1:], "\n"]
            tops = [None] + [{nxt[i]: -0.1, toks[i]: values[i]} for i in range(1, len(toks))]
        return httpx.Response(200, json={"choices": [{"text": prompt + "\n", "logprobs": {
            "tokens": tokens, "token_logprobs": values, "top_logprobs": tops,
            "text_offset": list(range(len(tokens)))}}]})

    return httpx.MockTransport(handler), prompts


def test_min_k_prob_finds_the_bos_prefix_and_scores_exactly() -> None:
    transport, prompts = fake_llama_cpp()
    items = [item("a", "a bb ccc dddd eeeee"), item("b", "zz yyy"), item("c", "Why?")]
    refs = [item("r", "a bbbbbbbbb cc", "round:1")]
    report = min_k_prob(items, "http://llm.test/v1/", "m", k=0.5, reference_items=refs,
                        transport=transport)
    json_safe(report)
    assert report.available and report.prefix == "<|im_start|>"
    assert [c["verdict"] for c in report.calibration] == ["shifted", "aligned"]
    assert prompts[:2] == [CALIBRATION_TEXT, "<|im_start|>" + CALIBRATION_TEXT]
    a, b, c = report.results
    # First token unscored: [-2, -3, -4, -5]; lowest half = -5, -4.
    assert (a.n_tokens, a.min_k, a.mean_logprob) == (4, -4.5, -3.5)
    assert (b.n_tokens, b.min_k) == (1, -3.0)
    assert c.error == "too_few_tokens" and c.min_k is None
    assert (report.items, report.scored, report.failures) == (3, 2, {"too_few_tokens": 1})
    assert report.mean == -3.75 and report.median == -3.75
    assert report.alignment.verdict == "aligned" and report.alignment.shifted_top1 == 0
    # Reference: [-9, -2] -> lowest half -9.
    assert report.reference is not None and report.reference.mean == -9.0
    assert report.difference == 5.25 and report.auc == 1.0


def test_min_k_prob_counts_bad_responses() -> None:
    transport, _ = fake_llama_cpp(broken="no log probs here", garbled="spelled differently")
    items = [item("a", "a bb ccc"), item("b", "no log probs here"),
             item("c", "spelled differently"), item("d", "odd tops here")]
    report = min_k_prob(items, "http://llm.test/v1", "m", prefix="<|im_start|>",
                        transport=transport)
    assert report.available and report.calibration == []  # explicit prefix: no calibration
    assert [r.error for r in report.results] == [None, "no_logprobs", "alignment_error", None]
    assert report.failures == {"alignment_error": 1, "no_logprobs": 1} and report.scored == 2
    assert report.results[3].min_k == -2.0 and report.results[3].aligned_top1 == 1
    json_safe(report)


def test_min_k_prob_unavailable_when_every_prefix_is_shifted() -> None:
    transport, prompts = fake_llama_cpp(bos=None)
    report = min_k_prob([item("a", "a bb ccc")], "http://llm.test/v1", "m",
                        transport=transport)
    assert not report.available and report.reason and "misaligned" in report.reason
    assert len(report.calibration) == 6 == len(prompts)
    assert {c["verdict"] for c in report.calibration} == {"shifted"}
    assert report.results == [] and report.mean is None
    json_safe(report)


def test_min_k_prob_unavailable_when_the_endpoint_fails() -> None:
    transport, prompts = fake_llama_cpp(fail=500)
    report = min_k_prob([item("a", "a bb ccc")], "http://llm.test/v1", "m", retries=1,
                        transport=transport)
    assert not report.available and "http_500" in (report.reason or "")
    assert len(prompts) == 2  # one retry
    # Nothing listening at all.
    report = min_k_prob([item("a", "a bb ccc")], "http://127.0.0.1:9/v1", "m", retries=0,
                        timeout=5)
    assert not report.available and report.calibration[0]["error"] == "connect_error"
    json_safe(report)


# -- the real local model -----------------------------------------------------------------------
def hotpot_items(n: int) -> list[EvalItem]:
    data = json.loads(HOTPOT.read_text(encoding="utf-8"))
    return [EvalItem(id=r["_id"], question=r["question"], golds=[r["answer"]], source="static",
                     dataset="hotpotqa") for r in data[:n]]


FRESH = [item("r1", "Which council approved the Valmora tram extension in March 2024?",
              "round:1"),
         item("r2", "What caused the fire at the Solvane pilot plant?", "round:1")]


def test_pretraining_report_with_a_real_local_model(llm_url: str, tmp_path: Path) -> None:
    """Both detectors end to end over HTTP; the numbers are whatever SmolLM2 gives."""
    items = hotpot_items(5)
    # "?json" must not switch the free-text completion into JSON mode.
    out = pretraining_report(items, f"{llm_url}#smollm2-135m-instruct?json",
                             dataset_name="HotpotQA", reference_items=FRESH,
                             cache_path=tmp_path / "llm.sqlite")
    json_safe(out)
    g = out["guided_completion"]
    assert g["model_identity"]["json_mode"] is False
    assert g["items"] == 5 and g["scored"] + sum(g["failures"].values()) == 5
    assert g["llm"]["calls"] >= 1 and g["llm"]["completion_tokens"] > 0
    for r in g["results"]:
        assert r["prefix"] and r["remainder"]
        assert r["error"] is not None or 0.0 <= r["rouge_l"] <= 1.0
    assert g["reference"]["items"] == 2
    m = out["min_k_prob"]
    assert m["available"], m["reason"]
    # What the server really does: shifted log-probs without SmolLM2's BOS, aligned with it.
    assert m["prefix"] == "<|im_start|>"
    assert m["calibration"][0] == {**m["calibration"][0], "prefix": "", "verdict": "shifted"}
    assert m["alignment"]["verdict"] == "aligned"
    assert m["scored"] + sum(m["failures"].values()) == 5
    for r in m["results"] + m["reference_results"]:
        if r["error"] is None:
            assert r["n_tokens"] > 0 and math.isfinite(r["min_k"])
            assert r["min_k"] <= r["mean_logprob"] <= 0.0
    assert math.isfinite(m["difference"]) and 0.0 <= m["auc"] <= 1.0
    print(f"real model: guided mean ROUGE-L {g['mean_rouge_l']:.3f} "
          f"(reference {g['reference']['mean_rouge_l']:.3f}); Min-K% mean {m['mean']:.2f} "
          f"vs reference {m['reference']['mean']:.2f}")


def test_min_k_prob_real_server_without_the_bos_is_flagged(llm_url: str) -> None:
    """Forcing no prefix on the real server gives the shifted log-probs; the per-item
    alignment check says so instead of passing them off as scores."""
    report = min_k_prob(FRESH, llm_url, "smollm2-135m-instruct", prefix="")
    assert report.available and report.scored == 2
    assert report.alignment.aligned_top1 < report.alignment.shifted_top1
    assert report.alignment.verdict == "shifted"
    json_safe(report)


def test_guided_completion_real_model_direct(llm_url: str, tmp_path: Path) -> None:
    llm = LLM(make_llm(llm_url, max_tokens=48), cache_path=tmp_path / "llm.sqlite",
              concurrency=1, timeout=300)
    report = guided_completion(hotpot_items(3), llm, dataset_name="HotpotQA", fraction=0.6)
    llm.close()
    assert report.items == 3 and report.scored + sum(report.failures.values()) == 3
    assert report.failures == {k: v for k, v in report.llm.failures.items()}
    if report.scored:
        assert report.mean_rouge_l is not None and 0.0 <= report.mean_rouge_l <= 1.0
    json_safe(report)
