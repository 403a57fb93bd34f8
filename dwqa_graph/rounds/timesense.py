"""Time-sensitive items: an item whose facts come from a sentence that states something as
true now -- a present-tense claim ("X is hosted by Y", "the city has 50,000 inhabitants",
"Z has won four titles"), a reference to the present ("currently", "now": SUTime's
``PRESENT_REF``), or a claim "as of" a date -- gives an answer that the web is expected to
change. Read from the parse (tense from the part-of-speech tags of the fact's verb and its
auxiliaries, the date mentions' normalised values, the dependency that makes "as of" one
preposition), not from word lists.

A fact's mark is made once and stored on the fact with the rules' version (``fact_marks``):
``round verify --time-sensitive`` and ``round new --time-sensitive only|exclude`` parse only
the sentences of facts not marked yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dwqa_graph.errors import LanguageError
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.language.doc import Sentence

#: The marking rules' version, stored with each mark: a fact marked under other rules is
#: marked again. Bump it when what ``sentence_is_time_sensitive`` says changes.
RULES_VERSION = "1"

#: Penn tags of a present-tense finite verb (3rd person singular, and the rest).
PRESENT = frozenset({"VBZ", "VBP"})
#: Dependents of a verb that carry its tense: an auxiliary, a passive auxiliary, a copula.
TENSE_CARRIERS = ("aux", "aux:pass", "cop")
#: Mention types that can refer to the present or anchor an "as of".
TIME_MENTIONS = frozenset({"DATE", "TIME", "DURATION", "SET"})


def _present_verb(sent: Sentence, i: int) -> bool:
    if sent.token(i).pos in PRESENT:
        return True
    return any(sent.token(d).pos in PRESENT for d in sent.deps(i, *TENSE_CARRIERS))


def _as_of(sent: Sentence) -> bool:
    """A time mention introduced by a multi-word preposition ("as of 2023", "up to now"):
    its head has a ``case`` marker that has a ``fixed`` dependent."""
    for m in sent.mentions:
        if m.ner not in TIME_MENTIONS:
            continue
        for i in range(m.first, m.last + 1):
            if any(sent.deps(c, "fixed") for c in sent.deps(i, "case")):
                return True
    return False


def sentence_is_time_sensitive(sent: Sentence, verb: str | None = None) -> bool:
    """Whether ``sent`` states its claim as of now: the fact's verb (lemma ``verb``; else
    the sentence's root) is in the present tense, a time mention refers to the present, or
    the claim is made "as of" a time."""
    if any(m.ner in TIME_MENTIONS and m.norm and "PRESENT_REF" in m.norm
           for m in sent.mentions):
        return True
    if _as_of(sent):
        return True
    heads = [t.i for t in sent.tokens if verb and t.lemma.lower() == verb.lower()] or \
        sent.deps(0)
    return any(_present_verb(sent, i) for i in heads)


def time_sensitive(nlp: CoreNLP, sentences: Sequence[tuple[str, str | None]]) -> list[bool]:
    """For each (sentence, fact verb lemma): whether it is a time-sensitive claim. A
    sentence the library cannot read is not marked (and not an error: the item still is
    checked)."""
    out = []
    for (_, verb), doc in zip(sentences, nlp.annotate_many(t for t, _ in sentences),
                                 strict=True):
        out.append(not isinstance(doc, LanguageError) and any(
            sentence_is_time_sensitive(s, verb) for s in doc.sentences))
    return out


def fact_marks(store: Store, facts: Iterable[tuple[str, str, str | None]],
               nlp: CoreNLP | None = None) -> dict[str, bool]:
    """For each (fact id, evidence sentence, verb lemma): whether the fact is time-sensitive,
    read from its stored mark, or parsed now (with ``nlp``, or a CoreNLP of its own started
    only when a fact is not marked yet) and stored on the fact."""
    wanted = {fid: (sentence, verb) for fid, sentence, verb in facts}
    marks = {r["id"]: bool(r["time_sensitive"]) for r in store.query(
        "verify/fact_marks", ids=sorted(wanted), rules=RULES_VERSION)}
    todo = {fid: sv for fid, sv in wanted.items() if fid not in marks}
    if not todo:
        return marks
    sentences = list(dict.fromkeys(todo.values()))
    reader = nlp or CoreNLP()
    try:
        got = dict(zip(sentences, time_sensitive(reader, sentences), strict=True))
    finally:
        if nlp is None:
            reader.close()
    made = {fid: got[sv] for fid, sv in todo.items()}
    store.write("verify/mark_facts", [{"id": fid, "time_sensitive": m, "rules": RULES_VERSION}
                                      for fid, m in made.items()])
    return {**marks, **made}
