"""The rounds' entity layer: claims linked to normalised ``Entity`` nodes (``MENTIONS``),
with the roles the current generator reads. It lives with rounds (not claims) because it is
computed from the generator's own wording rules; claims import nothing from rounds. The
resolved entities and typed facts of ``facts/`` are what replaces it.

Entities come from the claim features (``features.find_entities``) and from the document's
title when the title names a subject (HotpotQA paragraphs are titled by their subject; a
news page title such as "Solvane scales back ... | Nordic Battery Review" is not an entity).
Names are normalised (case, articles, possessives, a trailing parenthetical) so that
"Scott Derrickson's" and "Scott Derrickson" meet in one node. Nationalities, countries,
months and units are flagged ``generic``: two claims that both say "American" are not about
the same subject, and sampling never connects claims through them.
"""

from __future__ import annotations

import re
from typing import Any

from dwqa_graph.evaluation.scoring import normalize_answer
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id

GENERIC = frozenset("""american british english scottish welsh irish canadian australian french
german italian spanish portuguese dutch belgian swiss austrian swedish norwegian danish finnish
russian polish czech hungarian greek turkish chinese japanese korean indian mexican brazilian
european asian african united states usa us u s uk united kingdom england scotland wales
ireland canada australia france germany italy spain netherlands sweden norway denmark finland
russia china japan india mexico brazil europe asia africa america gwh mw gw mwh kwh km eur usd
gbp sundays saturdays update applications households construction trams vta ncaa division i
christmas easter summer winter spring autumn north south east west ceo cbe mbe obe kbe kcsg
sir dr jr sr""".split()) | {
    "united states", "united kingdom", "new york", "world war ii", "world war i", "division i",
    "ncaa division i", "the film", "film", "album", "band", "company", "city", "council"}
_PAREN = re.compile(r"\s*\([^()]*\)\s*$")
_POSSESSIVE = re.compile(r"['’]s?$")


def norm(name: str) -> str:
    name = _PAREN.sub("", name.strip())
    name = " ".join(_POSSESSIVE.sub("", w) for w in name.split())
    return normalize_answer(name)


def title_entity(title: str | None) -> str | None:
    """A title that names a subject: short, capitalised, no site suffix."""
    if not title:
        return None
    t = _PAREN.sub("", title.strip())
    if any(ch in t for ch in "|:–—") or " - " in t or not t[:1].isupper() or len(t.split()) > 6:
        return None
    return t


def is_generic(n: str) -> bool:
    return n in GENERIC or len(n) < 3 or n.isdigit() or n.split()[0].isdigit()


_ORG_SUFFIX = frozenset("energy energi coaches corporation corp company co inc ltd limited "
                        "group gmbh ag plc llc holdings industries infrastruktur".split())
_INITIAL = re.compile(r"(?<=[a-z])\s+[A-Z]\.\s+(?=[A-Z][a-z])")
_ACRONYM_HEAD = re.compile(r"^([A-Z]{2,6})['’]?s?\s+[A-Z]")


def aliases(name: str) -> list[str]:
    """A shorter name the same subject goes by in other documents: an acronym that heads a
    name ("IFFHS World's Best Goalkeeper" -> "IFFHS"), a name without its middle initial.
    (Surnames were tried and dropped:
    "Terry Richardson" met "Kenton Richardson", two different people.)"""
    name = _PAREN.sub("", name).strip()
    out = []
    m = _ACRONYM_HEAD.match(name)
    if m:
        out.append(m.group(1))
    # "Solvane Energy" is "Solvane" in the next sentence: an organisation without the word
    # that says what kind it is.
    words = name.split()
    if len(words) >= 2 and words[-1].lower().strip(".,") in _ORG_SUFFIX:
        out.append(" ".join(words[:-1]))
    # "Henry J. Kaiser" is "Henry Kaiser" in other documents: a middle initial dropped.
    bare = _INITIAL.sub(" ", name)
    if bare != name and len(bare.split()) >= 2:
        out.append(bare)
    return out


def mentions(entities: list[str], title: str | None) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    subject = title_entity(title)
    named = ([(subject, "title")] if subject else []) + [(e, "text") for e in entities]
    named += [(a, "alias") for n, _ in list(named) for a in aliases(n)]
    for name, role in named:
        n = norm(name)
        if not n or n in out:
            continue
        display = _POSSESSIVE.sub("", _PAREN.sub("", name).strip())
        out[n] = {"id": stable_id("entity", n), "name": display, "norm": n,
                  "generic": is_generic(n), "role": role}
    return list(out.values())


#: Bump when the roles below change: claims linked by an older version are linked again.
LINK_VERSION = "32"


def roles(text: str, years: list[int], raw: list[str], units: list[str],
          ments: list[dict[str, Any]], title: str | None) -> dict[str, Any]:
    """What a generator can say about a claim, computed once when it is linked, so sampling
    (and the candidate pools counted in Cypher) only combine usable facts:
    ``event_years``: years that date an event the claim names (not a lifespan, a title year,
    a season); ``event_names``: entities those events name (a temporal pair is connected
    through one of them); ``quantity_units``: per number, its unit when a noun names what it
    measures (else ""); ``listed``: entities that are members of the claim's list of names
    (rounds/lists.py: a conjunction clue); ``compared``, ``compared_years``,
    ``compared_subject``: the lead's events comparable with another subject's of the same
    kind (rounds/kinds.py); ``effect_heads``, ``effect_stems``,
    ``cause_stems``: the claim's sides of a causal chain (rounds/causes.py)."""
    from dwqa_graph.rounds.causes import chain_roles
    from dwqa_graph.rounds.checks import quantity_kind
    from dwqa_graph.rounds.kinds import compared
    from dwqa_graph.rounds.lists import listed
    from dwqa_graph.rounds.wording import event_clause, quantity_name, subject_of

    subject = title_entity(title)
    holder = subject_of(text, None, subject)
    names = [quantity_name(text, r, holder, subject) for r in raw]
    kinds = [(quantity_kind(n) or "") if n else "" for n in names]
    # A count with no unit word ("The population was 449") is comparable with other counts
    # of the same kind.
    units = [u or ("count" if k in ("population", "riders") else "")
             for u, k in zip(units, kinds, strict=False)]
    clauses = [event_clause(text, y, None, subject) for y in years]
    members = listed(text, [m["name"] for m in ments])

    def named(phrase: str | None) -> list[str]:
        """Entities a generated phrase names: what connects it to another claim."""
        words = f" {norm(phrase or '')} {norm(_INITIAL.sub(' ', phrase or ''))} "
        return sorted({m["norm"] for m in ments if not m["generic"]
                       and f" {m['norm']} " in words})

    # An event names an entity either as its subject or because the generator names it
    # when asked to ("the film Big Stone Gap, directed by Adriana Trigiani, was released").
    through = {m["norm"] for y, cl in zip(years, clauses, strict=True) if cl
               for m in ments if not m["generic"] and m["role"] == "text"
               and m["norm"] in named(event_clause(text, y, m["name"], subject))}

    return {
        "quantity_kinds": kinds,
        "quantity_units": [u if k else "" for u, k in zip(units, kinds, strict=False)],
        "event_years": [y for y, cl in zip(years, clauses, strict=True) if cl],
        "event_names": sorted({n for cl in clauses if cl for n in named(cl)} | through),
        "listed": sorted({m["norm"] for m in ments if not m["generic"]
                          and m["name"] in members}),
        **chain_roles(text),
        **compared(text, years, clauses, title),
    }


def link_entities(store: Store) -> int:
    """Link every claim not yet linked (by this LINK_VERSION); returns how many."""
    rows = []
    for r in store.query("entities/unlinked", version=LINK_VERSION):
        ments = mentions(r["entities"], r["title"])
        rows.append({"claim_id": r["claim_id"], "mentions": ments, "version": LINK_VERSION,
                     "roles": roles(r["text"], r["years"], r["raw"], r["units"], ments,
                                    r["title"])})
    if rows:
        store.write("entities/link", rows, batch_rows=2000)
    return len(rows)
