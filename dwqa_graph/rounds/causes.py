"""Stated causes and the causal chains they form across documents (the causal pattern).

A claim with an explicit causal cue is split into (cause, effect). Two such claims of
different documents form a *chain* when the first one's effect is the event the second one
gives as its cause: "The breach of the Morrow embankment in July 2022 was caused by years of
neglected maintenance" and "The breach led to water up to 1.9 metres deep in the streets of
Lower Ketterby". A causal item asks for the first cause, naming only the last effect, so
neither span answers it alone (a cause and its effect stated in one sentence always did).

Matching the two events is done on word stems computed once when a claim is linked
(``chain_roles``), so sampling in Python and the candidate pool counted in Cypher
(``cypher/rounds/pool_causal.cypher``) apply the same test: the second cause is a noun
phrase whose head the first effect has as its head (or, for a clause, among its words),
and every content word of that noun phrase occurs in the first effect. "The fire" matches
"the fire at Solvane Energy's pilot plant", never "stricter fire safety rules".
"""

from __future__ import annotations

import re
from typing import Any

from dwqa_graph.text import clean

_CAUSE_AFTER = re.compile(r"^(?P<effect>.+?),?\s+(?:because of|because|due to|owing to|as a "
                          r"result of)\s+(?P<cause>.+)$", re.I)
# "caused" but not "caused by": "A fire, caused by a faulty charger, led to ..." is a
# participle inside the cause, and its cue is the later "led to".
_CAUSE_BEFORE = re.compile(r"^(?P<cause>.+?)\s+(?:led to|leads to|caused(?!\s+by)|causes|"
                           r"resulted in|results in|triggered(?!\s+by)|forced(?!\s+by)|"
                           r"prompted(?!\s+by))\s+(?P<effect>.+)$", re.I)
_CAUSE_OPENING = re.compile(r"^(?:because of|because|due to|owing to|as a result of)\s+"
                            r"(?P<cause>.+?),\s+(?P<effect>.+)$", re.I)
_CAUSED_BY = re.compile(r"^(?P<effect>.+?)\s+(?:was|were|is|are|had been|has been)\s+"
                        r"(?:\w+ly\s+)?(?:caused|triggered|prompted)\s+by\s+(?P<cause>.+)$", re.I)
# Who said so, and what it was not, are no part of a cause or an effect.
_ATTRIBUTION = re.compile(r",?\s+(?:according to|not (?:by|because|due)|an? [\w\s-]{0,30}?"
                          r"(?:has )?(?:found|said|concluded|showed)|the \w+ said)\b")


def split_cause(text: str) -> tuple[str, str] | None:
    """(cause, effect) from a sentence with an explicit causal cue."""
    t = clean(text)
    for rx in (_CAUSE_OPENING, _CAUSED_BY, _CAUSE_BEFORE, _CAUSE_AFTER):
        m = rx.match(t)
        if m and len(m.group("cause").split()) >= 2 and len(m.group("effect").split()) >= 2:
            return (clean(_ATTRIBUTION.split(m.group("cause"))[0]),
                    clean(_ATTRIBUTION.split(m.group("effect"))[0]))
    return None


_STOP = frozenset("""the a an of in on at to for by from with and or its their his her this
that these those was were is are be been being has had have will would which who whom whose
after before during since than as about up into over also its it they he she""".split())
_DETERMINER = re.compile(r"^(?:the|a|an)\s", re.I)
_NP_END = re.compile(r"\s+(?:of|at|in|on|from|by|for|with|during|near|between|after|before)\s"
                     r"|,")
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|would|could|can|did|does|do)\b|"
                   r"\b\w+ed\b\s+(?:by|to|the|a|an|its|their)\b", re.I)
# An answer or an effect that only points elsewhere ("this capacity loss", "the test", "it")
# names nothing a reader could check.
_ANAPHOR = re.compile(r"^(?:this|that|these|those|such|it|its|they|their|he|she|his|her|"
                      r"instead|however|so|then)\b", re.I)
_DANGLING = re.compile(r"\b(?:which|that|who|and|or|but|mainly|partly|are|is|were|was)$", re.I)


def stem(word: str) -> str:
    """A crude stem: the first six letters ("withdrawal" and "withdrawn" share "withdr")."""
    return word.lower()[:6]


def stems(text: str) -> list[str]:
    """Content-word stems of ``text`` in order, each once."""
    out: list[str] = []
    for w in re.findall(r"[A-Za-z0-9]+", text):
        s = stem(w)
        if w.lower() not in _STOP and s not in out:
            out.append(s)
    return out


def noun_phrase(text: str) -> bool:
    """A determiner-led phrase with no finite verb: "The withdrawal of bus line 7"."""
    return bool(_DETERMINER.match(text)) and not _VERB.search(text)


def head(np: str) -> str:
    """The stem of a noun phrase's head: the last word before its first preposition."""
    words = re.findall(r"[A-Za-z0-9]+", _NP_END.split(np)[0])
    return stem(words[-1]) if words else ""


def answer_worthy(cause: str) -> bool:
    """A cause that can stand as an answer: names something itself, 2-10 words, no
    anaphor, not cut in the middle of a clause."""
    n = len(cause.split())
    bare = _DETERMINER.match(cause) and n <= 2  # "The excavation": which one?
    return 2 <= n <= 10 and not bare and not _ANAPHOR.match(cause) and not _DANGLING.search(
        cause)


_NAMED = re.compile(r"(?<!^)\b[A-Z][\w'’-]+|^(?!(?:The|A|An|This|That|These|Those|It|In|On)\b)"
                    r"[A-Z][\w'’-]+")


def askable(effect: str) -> bool:
    """An effect a question can name on its own: it names someone or something ("a clear
    jump in demand": for what?), and is no pointer ("The delay", "Construction is")."""
    return len(stems(effect)) >= 3 and bool(_NAMED.search(effect)) and not _ANAPHOR.match(
        effect) and not _DANGLING.search(effect)


_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|"
          r"December)")
_WHEN = re.compile(rf",?\s*\b(?:by|on|in|during|at|until|from|since)\s+(?:the\s+(?:morning|"
                   rf"evening|night|end|start|beginning|middle)\s+of\s+)?(?:\d{{1,2}}\s+"
                   rf"{_MONTH}(?:\s+\d{{4}})?|{_MONTH}\s+\d{{1,2}}(?:,?\s+\d{{4}})?|"
                   rf"{_MONTH}\s+\d{{4}}|(?:early|late|mid-?)?\s*(?:1[5-9]|20)\d\d)\b")
_MEASURE = re.compile(r"\s+(?:up to|about|around|nearly|almost|more than|over|some)?\s*"
                      r"\d[\d.,]*\s*(?:metres|meters|m|km|kilometres|miles|feet|ft|cm)\s+"
                      r"(?:deep|high|long|wide|tall)\b")


def question_effect(effect: str) -> str:
    """The effect as a question names it: without its date and its measurement ("water up
    to 1.9 metres deep in the streets of Lower Ketterby by the morning of 20 July" ->
    "water in the streets of Lower Ketterby"): details the answer does not depend on, and
    most of the words a copy of the sentence would share with it."""
    return clean(_MEASURE.sub("", _WHEN.sub("", effect)))


def effect_side(effect: str) -> tuple[list[str], list[str]]:
    """(heads, stems) of an effect: a noun phrase's head, or every word of a clause."""
    es = stems(effect)
    return ([head(effect)] if noun_phrase(effect) else es), es


def cause_side(cause: str) -> list[str]:
    """Stems of a cause that names an event (a noun phrase), head first; else []."""
    h = head(cause) if noun_phrase(cause) else ""
    return [h, *[s for s in stems(cause) if s != h]] if h else []


def same_event(heads: list[str], effect_stems: list[str], cause_stems: list[str]) -> bool:
    """The one matching rule (see the module doc), also in ``pool_causal.cypher``."""
    return bool(cause_stems) and bool(effect_stems) and cause_stems[0] in heads and all(
        s in effect_stems for s in cause_stems)


def chain_roles(text: str) -> dict[str, Any]:
    """The claim's sides of a causal chain, stored on the Claim when it is linked:
    ``effect_heads``/``effect_stems`` when its cause can be an answer (the first link);
    ``cause_stems`` (head first) when its cause is an event noun phrase and its effect can
    be asked about (the second link). Empty lists: the claim cannot be that link."""
    split = split_cause(text)
    out: dict[str, Any] = {"effect_heads": [], "effect_stems": [], "cause_stems": []}
    if split is None:
        return out
    cause, effect = split
    if answer_worthy(cause):
        out["effect_heads"], out["effect_stems"] = effect_side(effect)
    if len(cause.split()) <= 12 and askable(effect):
        out["cause_stems"] = cause_side(cause)
    return out


def chained(first: Any, second: Any) -> bool:
    """``first``'s effect is the event ``second`` gives as its cause; both carry
    ``chain_roles``."""
    return same_event(first.effect_heads, first.effect_stems, second.cause_stems)


def chain_read(effect: str, spans: list[str]) -> str:
    """A two-hop causal reader over ``spans`` alone: the span whose stated effect best
    covers ``effect`` gives the bridge event (its cause); the span whose effect is that
    event gives the answer (its cause). "" when either hop finds nothing."""
    splits = [s for s in (split_cause(t) for t in spans) if s]
    want = set(stems(effect))
    scored = sorted(((len(want & set(stems(e))), c) for c, e in splits), reverse=True)
    if not scored or scored[0][0] * 2 < len(want):
        return ""
    bridge = cause_side(scored[0][1])
    for c, e in splits:
        if c != scored[0][1] and same_event(*effect_side(e), bridge):
            return c
    return ""


def states_whole_chain(span: str, answer: str, effect: str) -> bool:
    """One span that names both the asked effect (half its content words or more) and the
    answer gives the item away on its own."""
    want, have = set(stems(effect)), set(stems(span))
    ans = set(stems(answer))
    return bool(ans) and ans <= have and len(want & have) * 2 >= len(want)
