"""The compiled fine-grained gazetteers (language/gazetteer.py) tag exactly as the library's
own: the same text through CoreNLP with the models jar's gazetteers and with the compiled
ones gives the same tag on every token; fine-grained types are on that text at all (the
tags differ from a pipeline without them), so the comparison can fail."""

from __future__ import annotations

from dwqa_graph.language.corenlp import PROPERTIES, CoreNLP, corenlp_classpath
from dwqa_graph.language.gazetteer import FINE_MAPPING, compile_gazetteer, indexable

# Abbreviations the compiled files merge (states, titles, U.S., L.A.), entries left as they
# are (a city, a title, a nationality, a religion) and words near them that must stay
# untagged.
TEXT = (
    "Gen. Mark Milley met Lt. Col. Ann Reyes in Sacramento, Calif., on May 3, 2019. "
    "The American actress was born in Ala. and moved to L.A. in 1998.\n"
    "Rep. John Lewis, a Baptist minister from Ga., criticised the U.S. government and "
    "Washington, D.C. officials; Sgt. Pepper is an album.\n"
    "She wrote to info@example.org and www.example.com about the Conn. primary and the "
    "Mass. governor.\n"
    "The company was founded in San Jose by Indian engineers."
)
NER = "tokenize,ssplit,pos,lemma,ner"


def _tags(properties: dict[str, str]) -> list[tuple[str, str]]:
    with CoreNLP(threads=1, annotators=NER, properties=properties, heap="3g") as nlp:
        doc = nlp.annotate(TEXT)
    return [(t.word, t.ner) for s in doc.sentences for t in s.tokens]


def test_compile_merges_only_unindexable_single_tokens() -> None:
    lines = ["Calif\\.?\tSTATE_OR_PROVINCE\tLOCATION\t1",
             "New York\tCITY\tLOCATION\t1",
             "Ala\\.?\tSTATE_OR_PROVINCE\tLOCATION\t1",
             "Lt\\. Col\\.\tTITLE\tMISC\t1",
             "Gen\\.?\tTITLE\tMISC\t2",
             "pvt\\. first class\tTITLE\tMISC\t1",
             "Ga\\.?\tSTATE_OR_PROVINCE\tLOCATION\t1"]
    out = compile_gazetteer(lines)
    assert out == ["(?:Calif\\.?|Ala\\.?|Ga\\.?)\tSTATE_OR_PROVINCE\tLOCATION\t1",
                   "New York\tCITY\tLOCATION\t1",
                   "Lt\\. Col\\.\tTITLE\tMISC\t1",
                   "Gen\\.?\tTITLE\tMISC\t2",
                   "pvt\\. first class\tTITLE\tMISC\t1"]
    assert indexable("pvt\\. first class") and not indexable("u\\.s\\.")


def test_compiled_gazetteers_tag_as_the_library() -> None:
    corenlp_classpath()
    library = ";".join(f"{o},{m}" if o else m for o, m in FINE_MAPPING)
    own = _tags({**PROPERTIES, "ner.fine.regexner.mapping": library})
    compiled = _tags(PROPERTIES)  # the default: compiled files
    without = _tags({**PROPERTIES, "ner.applyFineGrained": "false"})
    # Positive control: the fine-grained types are on this text.
    tags = dict(own)
    assert tags["Calif."] == "STATE_OR_PROVINCE" and tags["actress"] == "TITLE"
    assert tags["American"] == "NATIONALITY" and tags["U.S."] == "COUNTRY"
    assert sum(a != b for a, b in zip(own, without, strict=True)) >= 5
    assert compiled == own
