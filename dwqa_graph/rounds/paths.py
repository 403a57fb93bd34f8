"""Stage 4a (fact paths) — the candidates of a seed graph are paths over its typed facts.

A candidate is a small connected set of facts (``facts/``) whose answer is unique in the
seed graph, enumerated in Cypher, one query per question form (``rounds/forms/``):

- ``bridge``: a fact of A whose object is B, then a fact of B, asked naming A only
  ("In what year was the director of Titanic born?");
- ``intersection``: the one entity with a named clue and a dated clue from another document
  ("What did James Cameron direct that was released in 1997?");
- ``comparison``: the same dated relation of two subjects that share a named link (same
  director, band, birthplace; married), never two strangers of one type;
- ``temporal``: two dated facts of one subject (two of its events: "signed for Real Madrid",
  "signed for Juventus"), or a maker's birth and their work's date;
- ``chain``: three or four hops from entity to entity ending in a fact ("In what year did the
  spouse of the director of Titanic die?"), each hop unique in the graph.

A bridge or chain whose first entity has a description (two of its facts from different
documents no other entity of its type in the database has both of) is also a candidate with the
entity named by the description (``forms/describe.py``): ``Path.constraints`` counts them.

The pool of a graph is every such path; round t draws one with r_i,t (``draw``), and fresh
rounds skip the paths that use a fact round t-1's items used. Which relations each form
takes, and how it words them, is the form's module (a test checks that it words them all).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from dwqa_graph.graph.store import Store
from dwqa_graph.rounds.forms import FORMS, computed_from, describe
from dwqa_graph.rounds.forms.base import DocRef, Path, PathFact, PathGraph

__all__ = ["PATH_BATCH", "DocRef", "Path", "PathFact", "PathGraph", "description_rows", "draw",
           "load_path_graphs", "path_rows", "paths_of", "pool_sizes"]


def path_rows(store: Store, graphs: list[dict[str, Any]],
              ) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    """Every form's candidate rows for ``graphs`` ([{query_id, versions}]): query_id, form,
    facts (ids), link, across_documents (and others, for intersections); and per graph the
    events a question may word by their short phrase. A candidate with an event whose
    phrase is another event's short phrase with another year is none
    (``cypher/paths/short_phrases.cypher``)."""
    rows: list[dict[str, Any]] = []
    for form in FORMS.values():
        rows += store.query(form.query, graphs=graphs, **form.params())
    worded = {r["query_id"]: r for r in store.query("paths/short_phrases", graphs=graphs)}
    rows = [r for r in rows if not set(r["facts"]) & set(worded[r["query_id"]]["ambiguous"])]
    return rows, {q: set(r["usable"]) for q, r in worded.items()}


def description_rows(store: Store, graphs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every graph's descriptions: query_id, entity, facts (``forms/describe.py``): by two
    of the entity's facts, and by its maker and a fact of the maker's."""
    return store.query("paths/descriptions", graphs=graphs,
                       describe=list(describe.DESCRIBE)) + store.query(
        "paths/descriptions_nested", graphs=graphs, makers=list(describe.MAKERS),
        describe=list(describe.MAKER_FACTS))


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
    descriptions = description_rows(store, graphs)
    wanted = {f for r in rows + descriptions for f in r["facts"]}
    versions = sorted({v for g in graphs for v in g["versions"]})
    facts = {r["id"]: PathFact(**{k: v for k, v in r.items() if v is not None})
             for r in store.query("paths/facts", versions=versions)
             if r["id"] in wanted}
    described: dict[tuple[str, str], list[list[PathFact]]] = {}
    for r in descriptions:
        if all(f in facts for f in r["facts"]):
            described.setdefault((r["query_id"], r["entity"]), []).append(
                [facts[f] for f in r["facts"]])
    by_graph: dict[str, list[Path]] = {}
    for r in rows:
        if all(f in facts for f in r["facts"]):
            p = Path(form=r["form"],
                     facts=[_graph_fact(facts[f], short[r["query_id"]]) for f in r["facts"]],
                     link=r.get("link"),
                     others=r.get("others"), across_documents=bool(r["across_documents"]))
            by_graph.setdefault(r["query_id"], []).append(p)
            by_graph[r["query_id"]] += describe.variants(
                p, described.get((r["query_id"], p.facts[0].subject_id), []))
    return by_graph


def _graph_fact(f: PathFact, usable: set[str]) -> PathFact:
    """``f`` as a seed graph's path carries it: its short phrase only where the graph has no
    other event of the subject worded so."""
    return f if f.short_phrase is None or f.id in usable else f.model_copy(
        update={"short_phrase": None})


def draw(g: PathGraph, r: int, attempt: int, exclude: Iterable[str] = (),
         forms: Iterable[str] = tuple(FORMS), taken: Iterable[str] = (),
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
                known and all(f.id in known for f in computed_from(p))):
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
        order.sort(key=lambda p: (sum(f.id not in spent for f in computed_from(p)),
                                  p.key in asked_here))
    return order[attempt] if attempt < len(order) else None
