"""The rubric's text checks (rounds/checks.py), without a database.

Fixture: ``cloze_items.json`` holds cloze-style items of an earlier generator that quoted
its evidence (two real rounds over the HotpotQA sample and the bundled example, plus the
three quoted in issue 11): the failure the blind review named first."""

from __future__ import annotations

import json

from dwqa_graph.rounds.checks import CheckInput, copied_run, not_verbatim, self_contained

from .conftest import DATA


def problems(question: str, spans: list[str], documents: tuple[str, ...] = ()) -> list[str]:
    x = CheckInput(question=question, spans=spans, documents=list(documents))
    return [p for p in (self_contained(x), not_verbatim(x)) if p]


def test_cloze_items_are_rejected() -> None:
    items = json.loads((DATA / "cloze_items.json").read_text())
    assert len(items) >= 50
    reasons = [problems(i["question"], i["spans"]) for i in items]
    flat = [x for r in reasons for x in r]
    assert flat.count("quoted_passage") >= 0.9 * len(items)
    assert "copied_run" in flat


def test_own_words_question_passes_and_each_check_can_fail() -> None:
    spans = ["Sinister is a 2012 supernatural horror film directed by Scott Derrickson.",
             "Deliver Us from Evil is a 2014 American supernatural horror film directed by "
             "Scott Derrickson and produced by Jerry Bruckheimer."]
    good = ("How many years passed between when the film Sinister was released and when the "
            "film Deliver Us from Evil was released?")
    assert problems(good, spans) == []  # positive control
    copied = ("How many years after Sinister did the 2014 American supernatural horror film "
              "directed by Scott Derrickson come out?")
    assert problems(copied, spans) == ["copied_run"]
    page = "Its sequel, released in 2015 to mixed reviews, grossed less than the first film."
    assert problems("Was its sequel released in 2015 to mixed reviews, and how much?", [],
                    (page,)) == ["dangling_reference", "copied_run"]
    assert "quoted_passage" in problems('How many years apart were "Sinister is a 2012 '
                                        'supernatural horror film"?', spans)
    assert problems("How many years after it was released did he marry?", spans) == [
        "dangling_reference"]
    assert problems("How many years apart are the two statements?", spans) == [
        "mentions_documents"]
    assert problems("In what year was the film ___ released?", spans) == ["blank"]


def test_copied_run_counts_words_as_a_reader_does() -> None:
    cell = "Solvane Energy announced its second-generation sodium-ion cell"
    # "second-generation" is two words, as a search engine reads it: eight in a row
    assert copied_run("Solvane Energy announced its second-generation sodium-ion", [cell])
    assert copied_run("Solvane Energy announced its new sodium-ion cell", [cell]) is None
