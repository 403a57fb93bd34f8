"""Stage 4a (fact paths) — the candidates of a seed graph are paths over its typed facts.

A candidate is a small connected set of facts (``facts/``) whose answer is unique in the
seed graph, enumerated in Cypher (``cypher/paths/*.cypher``), one query per form:

- ``bridge``: a fact of A whose object is B, then a fact of B, asked naming A only
  ("In what year was the director of Titanic born?");
- ``intersection``: the one entity with a named clue and a dated clue from another document
  ("What did James Cameron direct that was released in 1997?");
- ``comparison``: the same dated relation of two subjects that share a named link (same
  director, band, birthplace; married), never two strangers of one type;
- ``temporal``: two dated facts of one subject (two of its events: "signed for Real Madrid",
  "signed for Juventus"), or a maker's birth and their work's date.

The pool of a graph is every such path; round t draws one with r_i,t (``draw``), and fresh
rounds skip the paths that use a fact round t-1's items used. Which relations each form
takes is fixed here, and ``rounds/render.py`` words every one of them (a test checks).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from dwqa_graph.facts.resolve import qualified_name
from dwqa_graph.graph.store import Store

Form = Literal["bridge", "intersection", "comparison", "temporal"]
FORMS: tuple[Form, ...] = ("bridge", "intersection", "comparison", "temporal")

#: Bridge: the first hop names B through A ("the director of A"); a relation is a first hop
#: only when it has one object in the world ("founded by", "member of", "married" have
#: several: "the founder of Tesla" is not one person).
BRIDGE_FIRST = ("directed_by", "written_by", "created_by", "hosted_by", "born_in",
                "died_in")
BRIDGE_SECOND = ("born", "died", "founded", "opened", "released", "born_in", "died_in",
                 "directed_by", "written_by")
#: Intersection: a clue with few subjects per object in the world (one director's films,
#: one founder's companies), and a dated clue that picks one of them. Not "member of": an
#: employer or a club has thousands of members born in any year.
INTERSECTION_CLUES = ("directed_by", "written_by", "founded_by")
INTERSECTION_DATED = ("released", "born", "died", "founded")
#: Comparison: the shared object that links two subjects (same director, writer, band,
#: founder), or a relation from one subject to the other. Not a shared birthplace: two
#: physicists born in Rome are strangers (QUALITY.md: "strangers who merely share a type").
COMPARISON_LINKS = ("directed_by", "written_by", "created_by", "hosted_by", "member_of",
                    "founded_by")
COMPARISON_DIRECT = ("married",)
COMPARISON_DATED = ("born", "died", "released", "founded")
#: Temporal, one subject: (first, second) relation pairs, the first earlier. The second may
#: be an entity fact with its stated year ("won the award in 2016"), or an event worded by
#: its phrase ("signed for Juventus"; an event without one names nothing a reader can find).
TEMPORAL_PAIRS = (("born", "died"), ("born", "won"), ("born", "married"),
                  ("born", "member_of"), ("founded", "opened"), ("released", "won"),
                  ("born", "event"), ("founded", "event"), ("event", "event"))
#: Temporal, linked: a maker's birth and the date of the work or organisation.
TEMPORAL_MAKERS = ("directed_by", "written_by", "created_by", "founded_by")
TEMPORAL_WORKS = ("released", "founded")


class PathFact(BaseModel):
    """A fact as a path carries it: what the question is worded from and its evidence."""

    id: str
    relation: str
    verb: str = ""
    subject_id: str
    subject: str
    subject_type: str
    object_id: str | None = None
    object: str | None = None
    object_type: str | None = None
    date: str | None = None
    year: int | None = None
    precision: str | None = None
    value: float | None = None
    unit: str | None = None
    when: str | None = None
    approximate: bool | None = False
    phrase: str | None = None
    short_phrase: str | None = Field(None, description="The phrase's core, where the seed "
                                     "graph has no other event of the subject worded so "
                                     "(``cypher/paths/short_phrases.cypher``).")
    evidence: str
    start: int
    end: int
    version_id: str
    claim_id: str | None = None
    subject_titles: list[str] = Field(default_factory=list)
    object_titles: list[str] = Field(default_factory=list)
    subject_pronoun: str | None = Field(None, description="The pronoun the subject's own "
                                        "page uses for it ('he', 'she'), if it has a page.")

    @property
    def subject_named(self) -> str:
        """The subject as a question names it: with its page title's qualifier."""
        return qualified_name(self.subject, self.subject_titles)

    @property
    def object_named(self) -> str | None:
        return None if self.object is None else qualified_name(self.object, self.object_titles)

    @property
    def the_year(self) -> int | None:
        """The fact's year: its date's, or the year stated for an entity fact."""
        if self.year is not None:
            return self.year
        if self.when and self.when[:4].isdigit():
            return int(self.when[:4])
        return None


class Path(BaseModel):
    form: Form
    facts: list[PathFact] = Field(description="In the form's order (bridge: A's fact, then "
                                  "B's; comparison: the two dated facts, then the links).")
    link: str | None = Field(None, description="The linking entity's id, if any.")
    others: int | None = Field(None, description="Intersection: the graph's other entities "
                               "with the first clue alone.")
    across_documents: bool = True

    @property
    def computed_from(self) -> list[PathFact]:
        """The facts the answer is computed from: a comparison's link facts say why the two
        subjects are compared, not what the answer is."""
        return self.facts[:2] if self.form == "comparison" else self.facts

    @property
    def kind(self) -> str:
        """The question's kind: its form and the relations it computes with
        ("temporal/born+event", "temporal/event+event", "bridge/directed_by+born")."""
        return self.form + "/" + "+".join(f.relation for f in self.facts[:2])

    @property
    def shortened(self) -> Path | None:
        """The path with its events worded by their short phrases, or None where none has
        one. The same candidate (``key``), worded with fewer of its page's words."""
        if not any(f.short_phrase for f in self.facts):
            return None
        return self.model_copy(update={"facts": [
            f.model_copy(update={"phrase": f.short_phrase}) if f.short_phrase else f
            for f in self.facts]})

    @property
    def key(self) -> str:
        """The candidate's identity: its form and facts (the same facts in another round is
        the same candidate, for freshness and the collision statistics)."""
        return self.form + ":" + ",".join(sorted(f.id for f in self.facts))


class DocRef(BaseModel):
    document_id: str
    url: str
    title: str | None = None
    version_id: str


class PathGraph(BaseModel):
    query_id: str
    question: str
    evidence_round: int
    documents: list[DocRef]
    answers: list[str] = Field(default_factory=list, description="The seed's own answers.")
    paths: list[Path] = Field(default_factory=list)

    def document_of(self, version_id: str) -> DocRef | None:
        return next((d for d in self.documents if d.version_id == version_id), None)


def form_params() -> dict[str, dict[str, Any]]:
    """Each form's query and the relations it takes."""
    return {
        "bridge": {"first": list(BRIDGE_FIRST), "second": list(BRIDGE_SECOND)},
        "intersection": {"clues": list(INTERSECTION_CLUES),
                         "dated": list(INTERSECTION_DATED)},
        "comparison": {"links": list(COMPARISON_LINKS), "direct": list(COMPARISON_DIRECT),
                       "dated": list(COMPARISON_DATED)},
        "temporal": {"pairs": [list(p) for p in TEMPORAL_PAIRS],
                     "makers": list(TEMPORAL_MAKERS), "works": list(TEMPORAL_WORKS)},
    }


def path_rows(store: Store, graphs: list[dict[str, Any]],
              ) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    """Every form's candidate rows for ``graphs`` ([{query_id, versions}]): query_id, form,
    facts (ids), link, across_documents (and others, for intersections); and per graph the
    events a question may word by their short phrase. A candidate with an event whose
    phrase is another event's short phrase with another year is none
    (``cypher/paths/short_phrases.cypher``)."""
    rows: list[dict[str, Any]] = []
    for form, params in form_params().items():
        rows += store.query(f"paths/{form}", graphs=graphs, **params)
    worded = {r["query_id"]: r for r in store.query("paths/short_phrases", graphs=graphs)}
    rows = [r for r in rows if not set(r["facts"]) & set(worded[r["query_id"]]["ambiguous"])]
    return rows, {q: set(r["usable"]) for q, r in worded.items()}


def pool_sizes(store: Store, graphs: list[dict[str, Any]],
               keep: Callable[[Path], bool] | None = None) -> dict[str, int]:
    """K per entry of ``graphs``: the number of distinct path candidates (those ``keep``
    keeps: a round counts the paths a template words, ``path_generate.is_wordable``)."""
    k = {g["query_id"]: 0 for g in graphs}
    if keep is None:
        for row in path_rows(store, graphs)[0]:
            k[row["query_id"]] += 1
        return k
    for i in range(0, len(graphs), PATH_BATCH):
        for q, paths in paths_of(store, graphs[i:i + PATH_BATCH]).items():
            k[q] = sum(keep(p) for p in paths)
    return k


#: Seed graphs per path query (the facts of 100 full pages are ~20,000 rows).
PATH_BATCH = 100


def load_path_graphs(store: Store, t: int, dataset: str | None = None,
                     ids: list[str] | None = None) -> list[PathGraph]:
    """The seed graphs as of round ``t`` with their path candidates."""
    out: list[PathGraph] = []
    heads = store.query("paths/graphs", t=t, dataset=dataset, ids=ids)
    for i in range(0, len(heads), PATH_BATCH):
        batch = heads[i:i + PATH_BATCH]
        by_graph = paths_of(store, [
            {"query_id": h["query_id"], "versions": [d["version_id"] for d in h["documents"]]}
            for h in batch])
        for h in batch:
            out.append(PathGraph(query_id=h["query_id"], question=h["question"] or "",
                                 evidence_round=h["evidence_round"],
                                 documents=[DocRef(**d) for d in h["documents"]],
                                 answers=[a for a in h["answers"] if a],
                                 paths=by_graph.get(h["query_id"], [])))
    return out


def paths_of(store: Store, graphs: list[dict[str, Any]]) -> dict[str, list[Path]]:
    """The path candidates of ``graphs`` ([{query_id, versions}]) with their facts."""
    rows, short = path_rows(store, graphs)
    wanted = {f for r in rows for f in r["facts"]}
    versions = sorted({v for g in graphs for v in g["versions"]})
    facts = {r["id"]: PathFact(**{k: v for k, v in r.items() if v is not None})
             for r in store.query("paths/facts", versions=versions)
             if r["id"] in wanted}
    by_graph: dict[str, list[Path]] = {}
    for r in rows:
        if all(f in facts for f in r["facts"]):
            by_graph.setdefault(r["query_id"], []).append(Path(
                form=r["form"],
                facts=[_graph_fact(facts[f], short[r["query_id"]]) for f in r["facts"]],
                link=r.get("link"),
                others=r.get("others"), across_documents=bool(r["across_documents"])))
    return by_graph


def _graph_fact(f: PathFact, usable: set[str]) -> PathFact:
    """``f`` as a seed graph's path carries it: its short phrase only where the graph has no
    other event of the subject worded so."""
    return f if f.short_phrase is None or f.id in usable else f.model_copy(
        update={"short_phrase": None})


def draw(g: PathGraph, r: int, attempt: int, exclude: Iterable[str] = (),
         forms: Iterable[str] = FORMS, taken: Iterable[str] = (),
         leaked: Iterable[str] = (), used: Iterable[str] = (),
         crowded: Iterable[str] = (), recent: Iterable[str] = ()) -> Path | None:
    """Round draw ``attempt`` of graph ``g`` with r_i,t = ``r``: a form uniformly among those
    the graph has (so a graph rich in one form still gives the others), then a kind of it
    uniformly (``Path.kind``: a person's page pairs each event with the birth, and "how old
    was X when ..." on every other item read as one fill-in frame to blind reviewers), then
    a path of that kind.
    Paths using a fact in ``exclude`` are skipped (the previous round's, for 'disjoint'
    rounds), and so are paths whose answer is computed from facts in ``leaked`` alone (the
    previous round's, for 'fresh' rounds).
    Attempts are successive draws of one shuffled order: a redraw never repeats a path.
    ``taken``: path keys other seed graphs of the round already asked (graphs that share
    pages share paths; a round asks each once).
    ``used``: facts the round's items so far compute from. The paths needing the fewest
    facts outside them come first, each tier in the draw's order: graphs that share a page
    ask about few of its facts, and the next fresh round, which may not compute from them
    alone, still finds the page's other facts. (Drawn without it, a round's items took
    nearly every askable fact of the pages several seed graphs cite, and the round after
    had items for 8% of the FreshQA graphs against 75%.)
    ``crowded``: facts as many of the round's items already name as it allows
    (``SampleConfig.max_per_fact``); paths naming one are skipped.
    ``recent``: path keys this graph was asked in the last few rounds; they come last in
    their tier (a graph re-asking its own item is what the collision bound counts)."""
    banned = set(exclude) | set(crowded)
    known = set(leaked)
    asked = set(taken)
    allowed = set(forms)
    pool: dict[str, dict[str, list[Path]]] = {}
    for p in g.paths:
        if p.form in allowed and p.key not in asked and not any(
                f.id in banned for f in p.facts) and not (
                known and all(f.id in known for f in p.computed_from)):
            pool.setdefault(p.form, {}).setdefault(p.kind, []).append(p)
    rng = random.Random(r)
    order: list[Path] = []
    queues = {f: {k: sorted(ps, key=lambda p: p.key) for k, ps in sorted(kinds.items())}
              for f, kinds in sorted(pool.items())}
    for kinds in queues.values():
        for ps in kinds.values():
            rng.shuffle(ps)
    while any(any(kinds.values()) for kinds in queues.values()):
        form = rng.choice(sorted(f for f, kinds in queues.items() if any(kinds.values())))
        kind = rng.choice(sorted(k for k, ps in queues[form].items() if ps))
        order.append(queues[form][kind].pop())
    spent, asked_here = set(used), set(recent)
    if spent or asked_here:  # a stable sort: each tier keeps the draw's order
        order.sort(key=lambda p: (sum(f.id not in spent for f in p.computed_from),
                                  p.key in asked_here))
    return order[attempt] if attempt < len(order) else None
