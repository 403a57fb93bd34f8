"""Reading only the sentences with a cue (``facts.extract.CUES``): the worker leaves the others
unread, the offsets of the rest stay the text's, and the facts are those of a full reading."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from dwqa_graph.facts.extract import CUES
from dwqa_graph.facts.extractor import Reading
from dwqa_graph.facts.extractors.corenlp import offline_extractor_id, read_versions, subject_cues
from dwqa_graph.language.corenlp import CoreNLP, Cues
from dwqa_graph.web.extract import extract

from .paths import REPO_ROOT, SHARED

TEXT = ("Paris is a city on the Seine. It is large and old. Tesla was founded by Elon Musk. "
        "He married Talulah Riley in 2010. She has three children.")


def test_a_sentence_without_a_cue_is_left_unread(nlp: CoreNLP) -> None:
    full = nlp.annotate(TEXT)
    assert len(full.sentences) == 5 and full.unread_words == []  # control: every sentence
    before = nlp.unread_sentences
    cued = nlp.annotate(TEXT, cues=replace(CUES, openers=False))
    said = [TEXT[s.tokens[0].start:s.tokens[-1].end] for s in cued.sentences]
    # a cue verb ("founded"), a digit ("2010"), a number word ("three"); the first two have none
    assert said == ["Tesla was founded by Elon Musk.", "He married Talulah Riley in 2010.",
                    "She has three children."]
    assert nlp.unread_sentences - before == 2
    # the unread sentences' words come back: what a page-wide count (a pronoun's) needs
    assert cued.unread_words == ["Paris", "is", "a", "city", "on", "the", "Seine", ".",
                                 "It", "is", "large", "and", "old", "."]
    # what is read is read as in the full reading: the same tokens, tags and offsets
    by_start = {s.tokens[0].start: s for s in full.sentences}
    for s in cued.sentences:
        twin = by_start[s.tokens[0].start]
        assert [(t.word, t.pos, t.ner, t.start) for t in s.tokens] == \
            [(t.word, t.pos, t.ner, t.start) for t in twin.tokens]
    # with openers (as the facts stage reads), a paragraph's first sentence is read too
    lines = nlp.annotate(TEXT.replace(" It is large", "\nIt is large"), cues=CUES)
    assert [s.tokens[0].word for s in lines.sentences] == ["Paris", "It", "Tesla", "He", "She"]
    # a read sentence's pronoun needs the sentence before it (what "she" stands for)
    two = "The painter lived in Rome. She married Bruno in 1990."
    lean = nlp.annotate(two, cues=replace(CUES, openers=False))
    assert [s.tokens[0].word for s in lean.sentences] == ["The", "She"]
    bare = nlp.annotate(two, cues=replace(CUES, openers=False, leaners=frozenset()))
    assert [s.tokens[0].word for s in bare.sentences] == ["She"]  # control
    # a cue is found whatever the inflection: "wed", "weds", "wedding"
    wed = nlp.annotate("Alma weds Bruno at the old chapel.", cues=Cues(frozenset({"wed"})))
    assert len(wed.sentences) == 1


def test_a_cue_is_one_lower_case_word() -> None:
    for bad in ("a,b", "two words", "Born", "", "a|b"):
        with pytest.raises(ValueError):
            Cues(frozenset({bad}))


def _versions() -> list[dict[str, object]]:
    """The example web's pages and 60 HotpotQA paragraphs, as the facts stage gets them."""
    out: list[dict[str, object]] = []
    for path in sorted((REPO_ROOT / "examples" / "web").glob("*.html")):
        page = extract(path.read_text(encoding="utf-8"), url=f"http://local/{path.name}")
        out.append({"id": path.stem, "title": page.title, "text": page.text or "",
                    "claims": []})
    data = json.loads((SHARED / "hotpotqa" / "dev-more.json").read_text(encoding="utf-8"))
    for i, item in enumerate(data[:6]):
        for j, (title, sents) in enumerate(item["context"]):
            out.append({"id": f"h{i}-{j}", "title": title, "text": "".join(sents),
                        "claims": []})
    return out


def _facts(nlp: CoreNLP, versions: list[dict[str, object]], cues: Cues | None,
           ) -> dict[str, dict[str, object]]:
    facts: dict[str, dict[str, object]] = {}
    for _, got in read_versions(nlp, versions, offline_extractor_id(), cues=cues):
        assert isinstance(got, Reading)
        facts.update({f.id: f.model_dump(mode="json") for f in got.facts})
    return facts


def test_a_cued_reading_finds_the_facts_of_a_full_one(nlp: CoreNLP, tmp_path: Path) -> None:
    versions = _versions()
    every = _facts(nlp, versions, None)
    before = nlp.unread_sentences
    cued = _facts(nlp, versions, CUES)
    unread = nlp.unread_sentences - before
    assert len(every) >= 80 and unread >= 50  # controls: facts to find, sentences left
    assert cued == every


def test_the_page_subjects_name_is_a_cue_and_a_hostile_title_is_none() -> None:
    assert {"paris", "hilton"} <= subject_cues(CUES, "Paris Hilton - Wikipedia").words
    assert "hilton" not in CUES.words  # control: the name is what added it
    # small title words would make every sentence a cue: left out
    assert not {"the", "of"} & subject_cues(CUES, "The Lord of the Rings").words
    # a title is page text: what could break the request header never becomes a cue
    for title in ("Zed,Q Corp", "A|B Records", "Tab\tName Here", "Ørsted Élan"):
        words = subject_cues(CUES, title).words - CUES.words
        assert all(w.isalpha() and w == w.lower() for w in words), (title, words)
