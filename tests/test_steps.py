"""The deterministic step parser follows the seed's JSON-formatter rules."""

import json

import pytest

from dwqa_graph.ingest.steps import (
    RuleStepParser,
    cited_ids,
    classify,
    keep_only_citation,
    split_bullets,
)

from .conftest import DATA


def test_split_bullets_and_paragraphs() -> None:
    text = ("First paragraph\ncontinues here.\n\nSecond one.\n- bullet a [1]\n"
            "* bullet b\n1. numbered")
    assert split_bullets(text) == [
        "First paragraph continues here.", "Second one.", "bullet a [1]", "bullet b", "numbered"]


def test_one_step_per_citation_keeps_only_that_citation() -> None:
    parsed = RuleStepParser().parse("- Alpha rose [2][5], beta fell [5].\n- Done [1].")
    first = [s for s in parsed.thoughts if s.position < 2]
    assert [s.cites[0].id for s in first] == [2, 5]
    assert first[0].text == "Alpha rose [2], beta fell."
    assert first[1].text == "Alpha rose [5], beta fell [5]."
    assert cited_ids("x [3, 4] y [3]") == [3, 4]
    assert keep_only_citation("a [3, 4] b", 4) == "a [4] b"


@pytest.mark.parametrize(("text", "n", "last", "expected"), [
    ("Overall, the lease ended [2].", 1, False, "conclude"),
    ("Therefore the answer is 4.", 0, False, "conclude"),
    ("Anything at all [3].", 1, True, "conclude"),
    ("Searching for the council minutes.", 0, False, "retrieve"),
    ("I visited https://example.org/x [1].", 1, False, "retrieve"),
    ("Line A is longer than line B [2].", 1, False, "comparison"),
    ("The opening might slip to 2025 [4].", 1, False, "hypothesis"),
    ("The tram opened in May 2023 [4].", 1, False, "evidence"),  # "May" is a month here
    ("The line closed because of floods [4].", 1, False, "reason"),
    ("No citation, plain statement.", 0, False, "reason"),
])
def test_classify(text: str, n: int, last: bool, expected: str) -> None:
    assert classify(text, n, is_last=last) == expected


def test_meta_austin_steps() -> None:
    log = json.loads((DATA / "meta_austin.json").read_text())
    parsed = RuleStepParser().parse(log["thinking"], answer=log["answer"])
    cites = sorted({c.id for s in parsed.thoughts for c in s.cites})
    assert cites == [4, 6, 8, 9, 10]
    types = [s.step_type for s in parsed.thoughts]
    assert types[-1] == "conclude"
    assert types.count("evidence") == 2  # "Leaving its lease at The Domain" [4] and [9]
    assert [s.position for s in parsed.thoughts] == list(range(len(parsed.thoughts)))


def test_parser_is_deterministic() -> None:
    text = (DATA / "meta_austin.json").read_text()
    assert RuleStepParser().parse(text) == RuleStepParser().parse(text)
