"""Controllable complexity: chains of three or four hops, entities named by a description,
and the hops / sources / constraints a round is asked for (issue "Controllable complexity").

The wording tests run on the relation combinations the film pages give (a film's director,
their spouse, the spouse's death or birthplace); the Neo4j tests read the example's film
pages with the real CoreNLP and enumerate the chains and descriptions in the real Neo4j."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from dwqa_graph.cli.main import main
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.forms import describe, hops
from dwqa_graph.rounds.forms.base import Path as FactPath, PathFact, PathGraph
from dwqa_graph.rounds.path_generate import PathGenerator, path_problems
from dwqa_graph.rounds.paths import description_rows, load_path_graphs
from dwqa_graph.rounds.render import Unworded, render
from dwqa_graph.rounds.round import export_rows, new_round, show_round
from dwqa_graph.rounds.sampling import SampleConfig

from .conftest import build_facts


def fact(subject: str, relation: str, stype: str = "PERSON", version: str = "v1",
         evidence: str = "", start: int = 0, **kw: object) -> PathFact:
    return PathFact(id=f"{subject}-{relation}-{kw.get('object', kw.get('year'))}",
                    relation=relation, subject_id=subject, subject=subject,
                    subject_type=stype, evidence=evidence, start=start, end=start + 1,
                    version_id=version, **kw)  # type: ignore[arg-type]


def person(subject: str, relation: str, obj: str, otype: str = "PERSON", stype: str = "PERSON",
           **kw: object) -> PathFact:
    return fact(subject, relation, stype, object=obj, object_id=obj, object_type=otype, **kw)


DIRECTED = person("The Ferryman's Daughter", "directed_by", "Halvard Ostrem", stype="MISC",
                  subject_titles=["The Ferryman's Daughter (1962 film)"],
                  evidence="The Ferryman's Daughter is a 1962 Valmoran drama film directed by "
                           "Halvard Ostrem.")
MARRIED = person("Halvard Ostrem", "married", "Ruth Aldane", version="v2",
                 evidence="Ostrem married the novelist Ruth Aldane in 1960.")
DIED = fact("Ruth Aldane", "died", year=2015, date="2015-05-07", precision="day", version="v3",
            evidence="She died in Valmora on 7 May 2015.")
BORN_IN = person("Ruth Aldane", "born_in", "Ketterby", otype="PLACE", version="v3",
                 evidence="Aldane was born in Ketterby on 22 August 1934.")
FOUNDED = fact("Ketterby", "founded", stype="PLACE", year=1412, version="v4",
               evidence="Ketterby was founded in 1412.")


def test_a_chain_nests_one_noun_phrase_per_hop() -> None:
    three = FactPath(form="chain", facts=[DIRECTED, MARRIED, DIED])
    seen = set()
    for seed in range(30):
        r = render(three, random.Random(seed))
        assert r.answer in ("2015", "May 7, 2015") and r.answer_type == "date"
        assert "the spouse of the director of" in r.question
        assert "Ostrem" not in r.question and "Aldane" not in r.question
        assert r.anchors == ["The Ferryman's Daughter"]
        seen.add(r.question)
    assert "In what year did the spouse of the director of the 1962 film The Ferryman's " \
           "Daughter die?" in seen
    # four hops: the birthplace of the spouse of the director, and the place's founding
    four = FactPath(form="chain", facts=[DIRECTED, MARRIED, BORN_IN, FOUNDED])
    questions = {render(four, random.Random(s)).question for s in range(30)}
    assert any(q.startswith("In what year was the birthplace of the spouse of the director of")
               for q in questions), questions
    # no hop is a relative clause: around another noun phrase it reads as a puzzle
    assert not any(" where " in q or " who " in q for q in questions), questions
    # the path's hop facts, its sources and its key
    assert (hops(four), four.sources, four.constraints) == (4, 4, 0)


def test_hops_count_the_sentences_a_reader_has_to_find() -> None:
    assert hops(FactPath(form="chain", facts=[DIRECTED, MARRIED, DIED])) == 3  # control
    # "Ostrem married Ruth Aldane, who died in 2015": one sentence gives two facts, one hop
    told_together = DIED.model_copy(update={"version_id": "v2", "evidence": MARRIED.evidence})
    assert hops(FactPath(form="chain", facts=[DIRECTED, MARRIED, told_together])) == 2
    # a comparison states its link ("both directed by Halvard Ostrem"): two dates, two hops,
    # with one link fact or two
    other = person("The Tram Conductor", "directed_by", "Halvard Ostrem", stype="MISC",
                   version="v6", evidence="The Tram Conductor was directed by Halvard Ostrem.")
    released = fact("The Tram Conductor", "released", "MISC", year=1975, version="v6",
                    evidence="The Tram Conductor was released in 1975.")
    linked = FactPath(form="comparison", facts=[RELEASED, released, DIRECTED, other])
    assert len(linked.chain) == 4 and hops(linked) == 2


def test_a_credit_person_is_never_named_by_another_persons_page_title() -> None:
    other = person("The Tram Conductor", "directed_by", "Halvard Ostrem", stype="MISC",
                   version="v6", evidence="The Tram Conductor was directed by Halvard Ostrem.")
    released = fact("The Tram Conductor", "released", "MISC", year=1975, version="v6",
                    evidence="The Tram Conductor was released in 1975.")
    # (no page title of the first film: "the 1962 film ..." would give its year away)
    first = RELEASED.model_copy(update={"subject_titles": []})
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[])
    texts = {"v1": DIRECTED.evidence, "v5": RELEASED.evidence, "v6": other.evidence + " "
             + released.evidence}

    def problems(title: str | None) -> tuple[str, list[str]]:
        titles = [title] if title else []
        links = [f.model_copy(update={"object_titles": titles, "subject_titles": []})
                 for f in (DIRECTED, other)]
        path = FactPath(form="comparison", facts=[first, released, *links])
        for seed in range(40):  # a difference, not the which-first choice
            r = render(path, random.Random(seed))
            if r.answer_type == "number":
                return r.question, path_problems(g, path, r, texts)
        raise AssertionError("no difference worded")

    # the director's name merged with a poet's page: the poet's title must not name him
    question, found = problems("Halvard Ostrem (poet)")
    assert "Halvard Ostrem (poet)" in question and "wrong_person" in found
    # positive controls: a title that says the role, and no title at all
    question, found = problems("Halvard Ostrem (film director)")
    assert "Halvard Ostrem (film director)" in question and "wrong_person" not in found
    question, found = problems(None)
    assert "Halvard Ostrem" in question and found == []


def test_a_chain_of_the_wrong_types_is_not_worded() -> None:
    wrong = DIED.model_copy(update={"subject_type": "MISC"})  # a film does not die
    with pytest.raises(Unworded):
        render(FactPath(form="chain", facts=[DIRECTED, MARRIED, wrong]), random.Random(0))


RELEASED = fact("The Ferryman's Daughter", "released", "MISC", year=1962, version="v5",
                subject_titles=["The Ferryman's Daughter (1962 film)"],
                evidence="It premiered at the Valmora Film Festival on 8 September 1962.")
WRITTEN = person("The Ferryman's Daughter", "written_by", "Ruth Aldane", stype="MISC",
                 version="v3", subject_titles=["The Ferryman's Daughter (1962 film)"],
                 evidence="It was written by Ruth Aldane.")
OSTREM_BORN = fact("Halvard Ostrem", "born", year=1931, date="1931-03-14", precision="day",
                   version="v2", evidence="Ostrem was born in Kellhaven on 14 March 1931.")


def test_a_description_is_worded_by_a_grammar_over_its_relations() -> None:
    assert describe.phrase([WRITTEN, RELEASED]) == \
        "the film released in 1962 and written by Ruth Aldane"
    born = fact("Ruth Aldane", "born", year=1934, version="v3")
    assert describe.phrase([BORN_IN, born]) == "the person born in Ketterby in 1934"
    assert describe.phrase([born, DIED]) == "the person born in 1934 who died in 2015"


def test_a_described_bridge_names_its_entity_by_the_description_only() -> None:
    bridge = FactPath(form="bridge", facts=[DIRECTED, OSTREM_BORN])
    # the description may not name the bridge entity or the answer: Ruth Aldane is neither
    [got] = describe.variants(bridge, [[RELEASED, WRITTEN]])
    assert (hops(got), got.constraints, got.sources) == (2, 2, 4)
    r = render(got, random.Random(0))
    assert "The Ferryman's Daughter" not in r.question, r.question
    assert "the film released in 1962 and written by Ruth Aldane" in r.question, r.question
    assert r.answer.endswith("1931") and r.anchors == ["Ruth Aldane"]
    # positive control: the same bridge named by its film
    assert "The Ferryman's Daughter" in render(bridge, random.Random(0)).question
    # a description that names the bridge entity gives a hop away: no variant
    by_director = person("The Ferryman's Daughter", "produced_by", "Halvard Ostrem",
                         stype="MISC", version="v6")
    assert describe.variants(bridge, [[RELEASED, by_director]]) == []
    # nor one that restates the path's own first hop
    assert describe.variants(bridge, [[RELEASED, DIRECTED]]) == []


def test_no_sentence_of_the_pages_may_answer_a_chain_or_undo_its_description() -> None:
    chain = FactPath(form="chain", facts=[DIRECTED, MARRIED, DIED])
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[])
    r = render(chain, random.Random(0))
    plain = {"v1": DIRECTED.evidence, "v2": MARRIED.evidence, "v3": DIED.evidence}
    assert "no_shortcut" not in path_problems(g, chain, r, plain)  # positive control
    told = {**plain, "v1": plain["v1"] + " The Ferryman's Daughter was the last film "
            "Ruth Aldane saw before she died in 2015."}
    assert "no_shortcut" in path_problems(g, chain, r, told)
    bridge = FactPath(form="bridge", facts=[DIRECTED, OSTREM_BORN])
    [got] = describe.variants(bridge, [[RELEASED, WRITTEN]])
    d = render(got, random.Random(0))
    pages = {"v1": DIRECTED.evidence, "v2": OSTREM_BORN.evidence, "v3": WRITTEN.evidence,
             "v5": RELEASED.evidence}
    assert "no_shortcut" not in path_problems(g, got, d, pages)
    undone = {**pages, "v5": "The Ferryman's Daughter, written by Ruth Aldane, came out in "
              "1962."}
    assert "no_shortcut" in path_problems(g, got, d, undone)


ALDANE_BORN_IN = BORN_IN.model_copy(update={"version_id": "v7"})
WRITTEN_BY_OSTREM = person("The Ferryman's Daughter", "written_by", "Halvard Ostrem",
                           stype="MISC", version="v8")
OSTREM_BORN_IN = person("Halvard Ostrem", "born_in", "Kellhaven", otype="PLACE", version="v2")


def test_a_description_through_a_maker_names_neither_the_entity_nor_the_maker() -> None:
    assert describe.phrase([WRITTEN, ALDANE_BORN_IN]) == \
        "the film written by a person born in Ketterby"
    assert describe.phrase([WRITTEN, DIED]) == "the film written by a person who died in 2015"
    bridge = FactPath(form="bridge", facts=[DIRECTED, OSTREM_BORN])
    [got] = describe.variants(bridge, [[WRITTEN, ALDANE_BORN_IN]])
    assert (hops(got), got.constraints, got.sources) == (2, 2, 4)
    r = render(got, random.Random(0))
    assert "the film written by a person born in Ketterby" in r.question, r.question
    assert "Ferryman" not in r.question and "Aldane" not in r.question, r.question
    assert r.answer.endswith("1931") and r.anchors == ["Ketterby"]
    assert describe.stated(got.description) == ["Ketterby"]
    # through a maker the path names (the director the bridge asks about): no variant
    assert describe.variants(bridge, [[WRITTEN_BY_OSTREM, OSTREM_BORN_IN]]) == []
    # control: the same maker's fact, of a maker the path does not name, is a variant
    assert describe.variants(bridge, [[WRITTEN, ALDANE_BORN_IN]])
    # one sentence that names the film with what the description states undoes it
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[])
    pages = {"v1": DIRECTED.evidence, "v2": OSTREM_BORN.evidence, "v3": WRITTEN.evidence,
             "v7": ALDANE_BORN_IN.evidence}
    assert "no_shortcut" not in path_problems(g, got, r, pages)
    undone = {**pages, "v3": "The Ferryman's Daughter was written by Ketterby native Ruth "
              "Aldane."}
    assert "no_shortcut" in path_problems(g, got, r, undone)


def test_the_complexity_knobs_and_their_bad_values() -> None:
    cfg = SampleConfig(hops=(3, 4), sources=3, constraints=(2, 2))
    assert cfg.admits(3, 3, 2) and cfg.admits(4, 5, 2)
    assert not cfg.admits(2, 3, 2) and not cfg.admits(3, 2, 2) and not cfg.admits(3, 3, 0)
    with pytest.raises(ValidationError):
        SampleConfig(hops=(4, 2))
    for option, value in (("--hops", "4-2"), ("--hops", "two"), ("--constraints", "-1"),
                          ("--sources", "0")):
        res = CliRunner().invoke(main, ["round", "new", "--seed", "1", option, value])
        assert res.exit_code == 2, (option, value, res.output)
        assert option in res.output and "Traceback" not in res.output


# -- in Neo4j, from the film pages ---------------------------------------------------------
SPOUSES = {
    "The Ferryman's Daughter (1962 film)": "The Ferryman's Daughter is a 1962 Valmoran drama "
                                           "film directed by Halvard Ostrem.",
    "Halvard Ostrem": "Halvard Ostrem (14 March 1931 – 2 November 2004) was a Valmoran film "
                      "director and screenwriter.\nOstrem married the novelist Ruth Aldane "
                      "in 1960.",
    "Ruth Aldane": "Ruth Aldane (22 August 1934 – 7 May 2015) was a Valmoran novelist and "
                   "screenwriter.",
}


def _chains(store: Store) -> list[FactPath]:
    return [p for g in load_path_graphs(store, t=10**9) for p in g.paths if p.form == "chain"]


def test_a_chain_is_listed_from_real_pages(store: Store, nlp: CoreNLP,
                                           tmp_path: Path) -> None:
    build_facts(store, nlp, tmp_path, SPOUSES)
    chains = _chains(store)
    relations = {tuple(f.relation for f in p.facts) for p in chains}
    assert ("directed_by", "married", "died") in relations, relations  # positive control
    for p in chains:
        assert hops(p) == 3 and p.sources >= 2


def test_a_round_asked_for_deeper_items_gives_them(films: Store) -> None:
    graphs = load_path_graphs(films, t=10**9)
    chains = [p for g in graphs for p in g.paths if p.form == "chain"]
    assert chains
    # a description's two facts come from two documents: on the film pages, which state an
    # entity's own facts on its own page, through its maker ("the film written by a person
    # born in ...")
    described = [p for g in graphs for p in g.paths if p.described]
    assert any(describe.through_maker(p.description) for p in described)
    for p in described:
        assert p.constraints == 2 and len({f.version_id for f in p.description}) == 2
    rep0 = new_round(films, seed=4, generator=PathGenerator(),
                     cfg=SampleConfig(constraints=(2, 2)))
    rows0 = export_rows(films, rep0.round)
    assert rows0 and all(r["constraints"] == 2 for r in rows0)
    assert all(" by a person " in r["question"] or " and " in r["question"] for r in rows0)
    rep = new_round(films, seed=5, generator=PathGenerator(),
                    cfg=SampleConfig(hops=(3, 4), constraints=(0, 0)))
    rows = export_rows(films, rep.round)
    assert rows and all(3 <= r["hops"] <= 4 and r["constraints"] == 0 for r in rows)
    info = show_round(films, rep.round)
    assert info["levels"]["constraints"] == {"0": len(rows)}
    assert json.loads(json.dumps(info["theta"]))["sampling"]["hops"] == [3, 4]
    # the same graph asked for 2-hop items only: no chain
    rep2 = new_round(films, seed=6, generator=PathGenerator(),
                     cfg=SampleConfig(hops=(2, 2), constraints=(0, 0)))
    rows2 = export_rows(films, rep2.round)
    assert rows2 and all(r["hops"] == 2 for r in rows2)
    assert rep2.hops == {"2": len(rows2)}


def test_a_description_fits_one_entity_of_the_whole_database(films: Store) -> None:
    """A reader searches the web for a description, not one seed graph: "the work written
    by a person who died in Valmora" fits the one film of a seed graph holding only Halvard
    Ostrem's page and his film's, and three films of the database (Ruth Aldane died there
    too). Every description is checked here by brute force over every fact of the database,
    and the control finds the descriptions a check within one seed graph would let through."""
    graphs = [{"query_id": h["query_id"], "versions": [d["version_id"] for d in h["documents"]]}
              for h in films.query("paths/graphs", t=10**9, dataset=None, ids=None)]
    rows = description_rows(films, graphs)
    facts = {r["id"]: r for r in films.read(
        "MATCH (f:Fact)-[:SUBJECT]->(s:NamedEntity) OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity) "
        "RETURN f.id AS id, f.relation AS relation, s.id AS subject, s.type AS type, "
        "o.id AS object, f.year AS year, f.version_id AS version, "
        "coalesce(f.uncertain, false) AS uncertain")}

    def key(f: dict[str, Any]) -> str:
        return f["object"] or str(f["year"])

    def fitting(first: dict[str, Any], second: dict[str, Any],
                within: frozenset[str] | None = None) -> set[str]:
        """The entities of ``first``'s subject's type the description fits, among the facts
        read from ``within`` (None: every version of the database)."""
        among = [f for f in facts.values() if within is None or f["version"] in within]
        if second["subject"] == first["object"]:  # through a maker
            makers = {f["subject"] for f in among
                      if f["relation"] == second["relation"] and key(f) == key(second)}
            return {f["subject"] for f in among if f["relation"] == first["relation"]
                    and f["type"] == first["type"] and f["object"] in makers}
        return {f["subject"] for f in among if f["relation"] == first["relation"]
                and f["type"] == first["type"] and key(f) == key(first)} & {
            f["subject"] for f in among if f["relation"] == second["relation"]
            and key(f) == key(second)}

    for r in rows:
        first, second = (facts[i] for i in r["facts"])
        assert fitting(first, second) == {r["entity"]}, r
    # the control: descriptions through a maker that fit one entity of their seed graph and
    # several of the database -- what the check exists for -- and none of them is listed
    only_here = {
        (g["query_id"], d1["subject"], d1["relation"], d2["relation"], key(d2))
        for g in graphs for d1 in facts.values() for d2 in facts.values()
        if d1["version"] in g["versions"] and d2["version"] in g["versions"]
        and d1["version"] != d2["version"] and not (d1["uncertain"] or d2["uncertain"])
        and d1["relation"] in describe.MAKERS and d2["relation"] in describe.MAKER_FACTS
        and d2["subject"] == d1["object"]
        and fitting(d1, d2, frozenset(g["versions"])) == {d1["subject"]}
        and len(fitting(d1, d2)) > 1}
    assert only_here
    listed = {(r["query_id"], r["entity"], facts[r["facts"][0]]["relation"],
               facts[r["facts"][1]]["relation"], key(facts[r["facts"][1]])) for r in rows}
    assert not only_here & listed
    assert any(len(r["facts"]) == 2 for r in rows)  # and the example still describes some


#: A studio whose founding sentence names its founder too, and whose credit its page tells
#: again; and one whose date and credit only different sentences state (the control).
FOUNDERS = {
    "Nordvik Studios": "Nordvik Studios is a Valmoran film studio.\n"
                       "Anton Brell founded Nordvik Studios in 1949.\n"
                       "Nordvik Studios was founded by Anton Brell, the son of a printer.",
    "Anton Brell": "Anton Brell (born 3 May 1904) was a Valmoran film producer.",
    "Kestrel Pictures": "Kestrel Pictures is a Valmoran film studio.\n"
                        "Kestrel Pictures was founded in 1962.\n"
                        "Kestrel Pictures was founded by Lise Marrow.",
    "Lise Marrow": "Lise Marrow (born 9 June 1921) was a Valmoran film producer.",
}


def test_a_credit_its_works_date_sentence_states_is_no_hop(store: Store, nlp: CoreNLP,
                                                          tmp_path: Path) -> None:
    """"SpaceX was founded how many years after the birth year of its founder Elon Musk?" was
    counted three hops: the credit was read from another sentence than "Musk founded SpaceX
    in May 2002", which states it with the date. The path takes the reading from the fewest
    sentences; where only separate sentences state the date and the credit, three it is."""
    build_facts(store, nlp, tmp_path, FOUNDERS)
    makers = {p.facts[1].subject: p for g in load_path_graphs(store, t=10**9)
              for p in g.paths if p.form == "temporal" and len(p.facts) == 3}
    assert set(makers) >= {"Nordvik Studios", "Kestrel Pictures"}, makers
    assert hops(makers["Nordvik Studios"]) == 2
    assert hops(makers["Kestrel Pictures"]) == 3  # the control


#: A film whose writing credit is shared with a playwright the reader makes no entity of
#: ("the playwright Jon Sedlak": the parser makes "playwright" the conjunct), and a film
#: written by the same novelist alone (the control).
SHARED_CREDIT = {
    "Winter at Kellby": "Winter at Kellby is a 1968 drama film directed by Halvard Ostrem.\n"
                        "It was written by Ruth Aldane and the playwright Jon Sedlak.",
    "The Salt Road": "The Salt Road is a 1975 historical film.\n"
                     "It was written by Ruth Aldane.",
    "Ruth Aldane": "Ruth Aldane (22 August 1934 – 7 May 2015) was a novelist.",
}


def test_a_credit_shared_with_someone_unnamed_is_no_hop(store: Store, nlp: CoreNLP,
                                                         tmp_path: Path) -> None:
    """"The writer of Winter at Kellby" names one of two writers when its sentence credits a
    second one the reader has no entity for: the fact is stored ``shared`` and no path
    walks it, while the film Aldane wrote alone gives its bridge and its "how many years
    after its writer's birth year" (control)."""
    build_facts(store, nlp, tmp_path, SHARED_CREDIT)
    rows = store.read("MATCH (f:Fact {relation: 'written_by'})-[:SUBJECT]->(s), "
                      "(f)-[:OBJECT]->(o) RETURN s.name AS s, o.name AS o, f.shared AS shared")
    assert {(r["s"], r["o"], r["shared"]) for r in rows} == {
        ("Winter at Kellby", "Ruth Aldane", True), ("The Salt Road", "Ruth Aldane", False)}
    paths = [p for g in load_path_graphs(store, t=10**9) for p in g.paths]
    # "its writer's birth year" (temporal) names the maker by the credit too
    credited = {(p.form, f.subject) for p in paths for f in p.facts
                if f.relation == "written_by"}
    assert {"bridge", "temporal"} <= {form for form, _ in credited}  # control
    # a comparison states the credit as its link ("both written by Ruth Aldane"): true
    assert {subject for form, subject in credited if form != "comparison"} == {
        "The Salt Road"}
