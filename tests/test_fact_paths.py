"""Questions from fact paths: candidates enumerated in Cypher over facts the real CoreNLP read,
worded by templates, stored with the facts they use.

The pages are built so each form has a path and a twin that must give none: Titanic's
director is a bridge (Ridley Scott's birth meets nothing); Titanic and Avatar share their
director and are compared (the two Scotts share only a birthplace: strangers, not compared);
Avatar's release picks it among Cameron's films once it is read on another page than its
credit (an intersection needs two documents);
Tony Scott's two full dates give an age at death (Cameron's year-only dates would not).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.cli.main import main
from dwqa_graph.errors import UsageError
from dwqa_graph.facts.resolve import qualified_name
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.llm import LLM
from dwqa_graph.openai_compat import OpenAICompatChat
from dwqa_graph.rounds import path_generate as path_gen_mod, paths as paths_mod
from dwqa_graph.rounds.forms import FORMS, bridge as bridge_form
from dwqa_graph.rounds.forms.base import whole_years
from dwqa_graph.rounds.forms.temporal import pronoun, recurring, short_name
from dwqa_graph.rounds.path_generate import (
    PathGenerator,
    askable,
    is_wordable,
    path_problems,
    set_quality,
)
from dwqa_graph.rounds.paths import Path as FactPath, PathFact, PathGraph, draw, load_path_graphs
from dwqa_graph.rounds.render import Unworded, render
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.sampling import SampleConfig

from .conftest import PATH_PAGES, build_facts, ingest_pages
from .replay_llm import replay


def keyed(g: PathGraph) -> set[tuple[str, ...]]:
    return {(p.form, *[f"{f.subject}|{f.relation}" for f in p.facts]) for p in g.paths}


def test_paths_rounds_and_provenance(store: Store, nlp: CoreNLP, tmp_path: Path,
                                     env: dict[str, str]) -> None:
    build_facts(store, nlp, tmp_path, PATH_PAGES)
    [g] = load_path_graphs(store, t=1)
    found = keyed(g)
    # the bridge through Titanic's director to his birth (and birthplace); Ridley Scott's
    # birth is reached by no first hop
    assert ("bridge", "Titanic|directed_by", "James Cameron|born") in found
    assert ("bridge", "Titanic|directed_by", "James Cameron|born_in") in found
    assert not any(p[0] == "bridge" and "Ridley Scott" in p[1] for p in found)
    # the film is named with its page title's qualifier; a person whose title has none, bare
    bridge = next(p for p in g.paths if p.form == "bridge" and p.facts[0].subject == "Titanic")
    assert bridge.facts[0].subject_named == "the 1997 film Titanic"
    assert bridge.facts[0].object_named == "James Cameron"
    # Cameron's two films are compared; the Scotts, who share only a birthplace, are not
    comparisons = [p for p in g.paths if p.form == "comparison"]
    assert comparisons and all({f.subject for f in p.facts[:2]} == {"Titanic", "Avatar"}
                               for p in comparisons)
    # credit and release on one page: no intersection (one document answers it)
    assert not any(p[0] == "intersection" for p in found)
    # the maker's birth and his film's release, linked through the credit
    assert ("temporal", "James Cameron|born", "Titanic|released", "Titanic|directed_by") \
        in found
    # every candidate's answer is unique: one year per (subject, relation) in the path
    for p in g.paths:
        assert len({f.id for f in p.facts}) == len(p.facts)

    report = new_round(store, seed=3, generator=PathGenerator(),
                       cfg=SampleConfig(reuse="allow"))
    assert report.items == 1 and report.set_quality is not None
    [item] = export_rows(store, report.round)
    assert item["generator"].startswith("paths") and item["answer_type"] in (
        "entity", "date", "number", "choice")
    # provenance: each fact's evidence sentence, verbatim at its offsets in its version
    assert len(item["provenance"]) >= 2
    for prov in item["provenance"]:
        [row] = store.read("MATCH (v:DocumentVersion {id: $v}) "
                           "RETURN substring(v.text, $s, $e - $s) AS text",
                           {"v": prov["version_id"], "s": prov["start"], "e": prov["end"]})
        assert row["text"] == prov["evidence"] and prov["fact_id"]
        assert prov["title"] in PATH_PAGES  # whose page: "It"/"He" in a span is its subject
    # the same seed and evidence give the same item
    again = new_round(store, seed=3, generator=PathGenerator(), cfg=SampleConfig(reuse="allow"))
    assert [r["question"] for r in export_rows(store, again.round)] == [item["question"]]
    used = {p["fact_id"] for p in item["provenance"]}
    fresh = new_round(store, seed=4, generator=PathGenerator(), previous=again.round)
    for other in export_rows(store, fresh.round):  # each needs a fact the item did not use
        assert {p["fact_id"] for p in other["provenance"]} - used
    disjoint = new_round(store, seed=4, generator=PathGenerator(), previous=again.round,
                         cfg=SampleConfig(reuse="disjoint"))
    for other in export_rows(store, disjoint.round):  # none of them
        assert not used & {p["fact_id"] for p in other["provenance"]}
    # the collision statistics of paths rounds count the path pool as a round does (K = the
    # graph's paths a template words: the same K as the round's own set quality)
    from dwqa_graph.rounds.round import collisions
    stats = collisions(store, rounds=[report.round, again.round])
    [per] = stats["graphs"].values()
    k = len(path_gen_mod.wordable(g).paths)
    assert per["k_per_round"] == [k] * 2 and report.set_quality["median_k"] == k > 0
    # --checked: only the paths whose wording passes the checks against their pages
    checked = collisions(store, rounds=[report.round, again.round], checked=True)
    [cper] = checked["graphs"].values()
    texts = {r["id"]: r["text"] for r in store.query(
        "rounds/version_texts", ids=[d.version_id for d in g.documents])}
    ask = sum(path_gen_mod.askable(g, p, texts) for p in g.paths)
    assert cper["k_per_round"] == [ask] * 2 and 0 < ask <= k
    assert checked["k_counts"] == "askable" and stats["k_counts"] == "wordable"
    # pool_sizes counts what ``keep`` keeps (control: without it, every Cypher candidate)
    spec = [{"query_id": g.query_id, "versions": [d.version_id for d in g.documents]}]
    assert paths_mod.pool_sizes(store, spec) == {g.query_id: len(g.paths)}
    assert paths_mod.pool_sizes(store, spec, keep=lambda p: p.form == "bridge") == {
        g.query_id: sum(p.form == "bridge" for p in g.paths)} != {g.query_id: len(g.paths)}
    # the command line says what a paths round holds and why graphs got none
    out = CliRunner().invoke(main, ["round", "new", "--seed", "5", "--generator", "paths",
                                    "--reuse", "allow"], env=env)
    assert out.exit_code == 0, out.output
    assert "1 items for 1 seed graphs" in out.output and "two-option share" in out.output
    assert "one fact in at most 1 items; 0 items on a repeated pair" in out.output
    assert "no seed graph holds a path" not in out.output
    # a setting the graph holds no path at (no chain: hops 4) says so and where to look
    deep = CliRunner().invoke(main, ["round", "new", "--seed", "6", "--generator", "paths",
                                     "--reuse", "allow", "--hops", "4-4"], env=env)
    assert deep.exit_code == 0, deep.output
    assert "0 items for 1 seed graphs" in deep.output
    assert "no seed graph holds a path at --hops 4-4 --sources 1 --constraints 0-2" \
        in deep.output and "round collisions --checked" in deep.output
    # A graph that also holds a round of another generator (marked so here): collisions
    # refuse it, and the report counts the paths generator's rounds instead of failing.
    from dwqa_graph.report.data import gather
    with store._session(read=False) as session:
        session.run("MATCH (r:Round {t: $t}) SET r.generator = 'rules'", t=report.round)
    with pytest.raises(UsageError, match="not made by the paths generator"):
        collisions(store)
    data = gather(store)
    assert data.collisions is not None and report.round not in data.collisions["rounds"]
    assert again.round in data.collisions["rounds"]
    with store._session(read=False) as session:
        session.run("MATCH (r:Round {t: $t}) SET r.generator = 'paths'", t=report.round)
    # a draw over many seeds reaches every form the graph has
    forms = {draw(g, r, 0).form for r in range(200)}  # type: ignore[union-attr]
    assert forms == {p.form for p in g.paths}

    # A second birth year for Cameron makes "the director of Titanic was born in ..."
    # ambiguous: that bridge is gone, the rest stay.
    with store._session(read=False) as session:
        session.run("MATCH (e:NamedEntity {name: 'James Cameron'})<-[:SUBJECT]-"
                    "(f:Fact {relation: 'born'})-[:READ_FROM]->(v) WITH e, v LIMIT 1 "
                    "CREATE (g:Fact {id: 'conflict', relation: 'born', year: 1955, "
                    "date: '1955', precision: 'year', version_id: v.id, evidence: 'x', "
                    "start: 0, end: 1})-[:SUBJECT]->(e), (g)-[:READ_FROM]->(v)").consume()
    [g2] = load_path_graphs(store, t=1)
    assert ("bridge", "Titanic|directed_by", "James Cameron|born") not in keyed(g2)
    assert ("bridge", "Titanic|directed_by", "James Cameron|born_in") in keyed(g2)
    # Avatar's release read on Cameron's page too: of Cameron's films, the one released in
    # 2009 is an intersection across two documents; Titanic (1997) is its rival
    with store._session(read=False) as session:
        session.run("MATCH (a:NamedEntity {name: 'Avatar'}), (:Document {title: 'James "
                    "Cameron'})-[:HAS_VERSION]->(v) CREATE (g:Fact {id: 'elsewhere', "
                    "relation: 'released', year: 2009, date: '2009', precision: 'year', "
                    "version_id: v.id, evidence: 'Avatar came out in 2009.', start: 0, "
                    "end: 1})-[:SUBJECT]->(a), (g)-[:READ_FROM]->(v)").consume()
    [g3] = load_path_graphs(store, t=1)
    [inter] = [p for p in g3.paths if p.form == "intersection"]
    assert [f.relation for f in inter.facts] == ["directed_by", "released"]
    assert inter.facts[0].subject == "Avatar" and inter.others == 1
    r = render(inter, random.Random(0))
    assert r.answer == "Avatar" and "James Cameron" in r.question and "2009" in r.question


def test_refacting_keeps_an_items_facts(store: Store, nlp: CoreNLP, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new rules version replaces the facts, but an item's facts stay as its provenance
    (retired: in no path again)."""
    build_facts(store, nlp, tmp_path, PATH_PAGES)
    report = new_round(store, seed=3, generator=PathGenerator())
    before = export_rows(store, report.round)
    monkeypatch.setattr("dwqa_graph.facts.extractors.corenlp.RULES_VERSION", "test-next")
    monkeypatch.setattr("dwqa_graph.facts.extract.RULES_VERSION", "test-next")
    extract_facts(store, nlp=nlp)
    assert export_rows(store, report.round) == before
    # the item's facts (their ids name the extractor) are retired: in no path again, while
    # the new rules' facts give the paths
    used = {p["fact_id"] for p in before[0]["provenance"]}
    retired = {r["id"] for r in store.read("MATCH (f:Fact) WHERE f.retired RETURN f.id AS id")}
    assert retired == used
    [g] = load_path_graphs(store, t=1)
    assert g.paths and not {f.id for p in g.paths for f in p.facts} & retired
    # a re-run of the same rules keeps them as they are
    extract_facts(store, nlp=nlp)
    assert export_rows(store, report.round) == before


# -- wording, without a database --------------------------------------------------------------
def fact(subject: str, relation: str, stype: str = "PERSON", **kw: object) -> PathFact:
    return PathFact(id=f"{subject}-{relation}-{kw.get('object', kw.get('year'))}",
                    relation=relation, subject_id=subject, subject=subject,
                    subject_type=stype, evidence=str(kw.pop("evidence", "")), start=0, end=1,
                    version_id=str(kw.pop("version", "v1")), **kw)  # type: ignore[arg-type]


TITANIC = fact("Titanic", "directed_by", "MISC", object="James Cameron", object_id="jc",
               object_type="PERSON", evidence="Titanic is a film directed by James Cameron.")
BORN = fact("James Cameron", "born", year=1954, date="1954-08-16", precision="day",
            evidence="James Cameron (born August 16, 1954) is a filmmaker.", version="v2")


def test_bridge_wording_and_answer() -> None:
    p = FactPath(form="bridge", facts=[TITANIC, BORN])
    seen = set()
    for seed in range(40):
        r = render(p, random.Random(seed))
        assert "Titanic" in r.question and "Cameron" not in r.question
        assert r.question.endswith("?") and r.question[0].isupper()
        assert r.answer in ("1954", "August 16, 1954")
        seen.add(r.question)
    assert len(seen) >= 4  # several phrasings
    # a born fact of a film is a reading error, not a question
    film_born = BORN.model_copy(update={"subject_type": "MISC"})
    with pytest.raises(Unworded):
        render(FactPath(form="bridge", facts=[TITANIC, film_born]), random.Random(0))


def test_a_title_qualifier_names_the_entity_unless_it_gives_a_year_away() -> None:
    calf = ["The Golden Calf (1930 film) - Wikipedia"]
    assert qualified_name("The Golden Calf", calf) == "the 1930 film The Golden Calf"
    # as a reader writes it where the qualifier says what the entity is, else in brackets
    assert qualified_name("Amazon", ["Amazon (company) - Wikipedia"]) == "the company Amazon"
    assert qualified_name("Deep South", ["Deep South (film)"]) == "the film Deep South"
    assert qualified_name("Metrocenter Mall", ["Metrocenter Mall (Jackson, Mississippi)"]) \
        == "Metrocenter Mall (Jackson, Mississippi)"
    assert qualified_name("Tom Smith", ["Tom Smith (American football)"]) \
        == "Tom Smith (American football)"
    # no qualifier, another page's title, or two different qualifiers: the bare name
    assert qualified_name("James Cameron", ["James Cameron"]) == "James Cameron"
    assert qualified_name("The Golden Calf", ["Golden Calf Award (film)"]) == "The Golden Calf"
    assert qualified_name("Up", ["Up (2009 film)", "Up (album)"]) == "Up"
    film = TITANIC.model_copy(update={"subject": "The Golden Calf", "subject_titles": calf})
    for seed in range(10):  # the director's birth year: the film's year gives nothing away
        q = render(FactPath(form="bridge", facts=[film, BORN]), random.Random(seed)).question
        assert "the 1930 film The Golden Calf" in q
    # a question that opens with a qualified name opens with a capital
    amazon = ["Amazon (company) - Wikipedia"]
    founded = fact("Amazon", "founded", "ORG", year=1994, subject_titles=amazon)
    launch = fact("Amazon", "event", "ORG", year=2006, verb="launch", version="v2",
                  phrase="launched the Fulfillment by Amazon program", subject_titles=amazon)
    qs = {render(FactPath(form="temporal", facts=[founded, launch]),
                 random.Random(s)).question for s in range(20)}
    assert all(q[0].isupper() and "(company)" not in q and "company Amazon" in q
               for q in qs), qs
    # a path about the film's own release year: the qualifier would give the year away and
    # the bare title names several films (review S), so it is no question
    released = fact("The Golden Calf", "released", "MISC", year=1930, subject_titles=calf)
    maker = BORN.model_copy(update={"year": 1890, "date": "1890"})
    with pytest.raises(Unworded, match="title_gives_year"):
        render(FactPath(form="temporal", facts=[maker, released, film]), random.Random(0))
    # control: a title with no qualifier is asked about its year as it is
    bare = [f.model_copy(update={"subject_titles": ["The Golden Calf"]})
            for f in (released, film)]
    q = render(FactPath(form="temporal", facts=[maker, *bare]), random.Random(0)).question
    assert "The Golden Calf" in q and "1930" not in q


def test_comparison_is_mostly_a_difference() -> None:
    a = fact("Titanic", "released", "MISC", year=1997, version="v1")
    b = fact("Avatar", "released", "MISC", year=2009, version="v2")
    link = [fact(x, "directed_by", "MISC", object="James Cameron", object_type="PERSON")
            for x in ("Titanic", "Avatar")]
    p = FactPath(form="comparison", facts=[a, b, *link])
    got = [render(p, random.Random(s)) for s in range(400)]
    choice = [r for r in got if r.two_option]
    assert 0 < len(choice) < 0.25 * len(got)  # capped, not absent
    assert {r.answer for r in choice} == {"Titanic"}
    assert {r.answer for r in got if not r.two_option} == {"12 years"}
    assert all("directed by James Cameron" in r.question for r in got)
    # the link follows the pair it links (templates 10): never after the second subject alone
    born = [fact(x, "born", year=y)
            for x, y in (("Halvard Ostrem", 1931), ("Ruth Aldane", 1934))]
    wed = [fact("Halvard Ostrem", "married", object="Ruth Aldane", object_type="PERSON")]
    pair = FactPath(form="comparison", facts=[*born, *wed])
    questions = {render(pair, random.Random(s)).question for s in range(400)}
    assert any("Halvard Ostrem and Ruth Aldane, who married each other" in q for q in questions)
    assert any(q.startswith("By how many years do the birth years of Halvard Ostrem and Ruth "
                            "Aldane, who married each other, differ") for q in questions)
    assert not any("differ from that of" in q for q in questions)


def test_age_needs_both_days() -> None:
    born = fact("Tony Scott", "born", year=1944, date="1944-06-21", precision="day")
    died = fact("Tony Scott", "died", year=2012, date="2012-08-19", precision="day")
    r = render(FactPath(form="temporal", facts=[born, died]), random.Random(1))
    assert r.answer == "68"
    year_only = died.model_copy(update={"date": "2012", "precision": "year"})
    with pytest.raises(Unworded):
        render(FactPath(form="temporal", facts=[born, year_only]), random.Random(1))


def test_no_birth_is_paired_with_an_event_after_the_death() -> None:
    """Review R: "What age did Elvis Presley turn in the year he was awarded the Presidential
    Medal of Freedom?" -> 83 (a posthumous award). An event after the death the graph dates
    pairs with no birth; before the death, or with no death known, it does."""
    born = fact("Elvis Presley", "born", year=1935, date="1935-01-08", precision="day",
                subject_pronoun="he")
    died = fact("Elvis Presley", "died", year=1977, date="1977-08-16", precision="day")
    award = fact("Elvis Presley", "event", year=2018, verb="award", subject_pronoun="he",
                 phrase="was awarded the Presidential Medal of Freedom")
    debut = award.model_copy(update={"id": "debut", "year": 1956, "verb": "make",
                                     "phrase": "made his film debut in Love Me Tender"})
    lifespan = FactPath(form="temporal", facts=[born, died])
    late, early = (FactPath(form="temporal", facts=[born, e]) for e in (award, debut))
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[],
                  paths=[lifespan, late, early])
    # (an age from a day and a year: the age turned in the event's year, a last resort)
    assert "posthumous" in path_problems(g, late, render(late, random.Random(0), True), {})
    assert "posthumous" not in path_problems(g, early, render(early, random.Random(0), True),
                                             {})
    # nor with another event of his life (review R58: a Senate election and a coin)
    career = FactPath(form="temporal", facts=[debut, award])
    assert "posthumous" in path_problems(g, career, render(career, random.Random(0)), {})
    alive = g.model_copy(update={"paths": [late, early, career]})  # no death in the graph
    assert "posthumous" not in path_problems(alive, late, render(late, random.Random(0), True),
                                             {})
    assert "posthumous" not in path_problems(alive, career,
                                             render(career, random.Random(0)), {})


def test_an_age_and_a_gap_from_the_birth_year_are_one_question() -> None:
    """What a round asks once in a temporal item (path generator 20, review R50): one event
    measured from a person's first year twice, as an age and as a gap from an event of his
    birth year ("How old did Charles III turn in the year he became President of the
    British National Rifle Association?" and "How many years after the year Charles III was
    christened did he become ...?", 29 both). Two events measured from one fact are two
    questions, and so is one event measured from two events of one later year."""
    born = fact("Charles III", "born", year=1948, date="1948-11-14", precision="day",
                subject_pronoun="he")
    event = fact("Charles III", "event", year=1977, date="1977", precision="year",
                 verb="become", subject_pronoun="he",
                 phrase="became President of the British National Rifle Association")
    christened = event.model_copy(update={"id": "christened", "year": 1948, "precision": "day",
                                          "date": "1948-12-15", "verb": "christen",
                                          "phrase": "was christened"})
    other = event.model_copy(update={"id": "other", "verb": "open",
                                     "phrase": "opened the Duchy Home Farm"})
    ceremony = christened.model_copy(update={"id": "ceremony", "year": 1953,
                                             "date": "1953-06-02", "verb": "move",
                                             "phrase": "moved to Clarence House"})
    school = ceremony.model_copy(update={"id": "school", "date": "1953-09-01",
                                         "verb": "start", "phrase": "started school"})

    def keys(*facts: PathFact) -> set[tuple[str, ...]]:
        path = FactPath(form="temporal", facts=list(facts))
        return path_gen_mod._answer_keys(path, render(path, random.Random(0), True))

    def one_question(first: set[tuple[str, ...]], then: set[tuple[str, ...]]) -> bool:
        return any(path_gen_mod._clashing(k) & first for k in then)

    age, gap = keys(born, event), keys(christened, event)
    assert one_question(age, gap) and one_question(gap, age)  # 29 and "29 years"
    assert one_question(age, keys(born.model_copy(update={"id": "born2"}), event))
    # two ages of one number through one birth: two events
    assert not one_question(age, keys(born, other))
    # two events of one year after one event, one event after two events of one year
    assert not one_question(gap, keys(christened, other))
    assert not one_question(keys(ceremony, event), keys(school, event))
    # the control: from the birth year, but another number
    later = other.model_copy(update={"year": 1980, "date": "1980"})
    assert not one_question(age, keys(christened, later))


def test_path_checks_catch_shortcuts() -> None:
    g = PathGraph(query_id="q", question="Who directed Titanic?", evidence_round=0,
                  documents=[], answers=["James Cameron"])
    p = FactPath(form="bridge", facts=[TITANIC, BORN])
    r = render(p, random.Random(0))
    assert path_problems(g, p, r, {}) == []
    # one sentence that names Titanic and gives the year answers it alone
    both = BORN.model_copy(update={"evidence": "Titanic's director James Cameron was born "
                                               "in 1954."})
    assert "no_shortcut" in path_problems(g, FactPath(form="bridge", facts=[TITANIC, both]),
                                          r, {})
    # an age the death sentence states is no computation
    born = fact("Tony Scott", "born", year=1944, date="1944-06-21", precision="day")
    died = fact("Tony Scott", "died", year=2012, date="2012-08-19", precision="day",
                evidence="Tony Scott died at the age of 68.")
    age = FactPath(form="temporal", facts=[born, died])
    assert "no_shortcut" in path_problems(g, age, render(age, random.Random(0)), {})
    # ... also when the facts were read from other sentences: the page's lead holds both
    # dates ("Tony Scott (21 June 1944 - 19 August 2012)"), or another sentence the number
    # (surname only: "Scott died in 2012, aged 68")
    born = born.model_copy(update={"evidence": "Scott was born in North Shields on 21 June 1944."})
    died = died.model_copy(update={"evidence": "Scott died in San Pedro on 19 August 2012."})
    age = FactPath(form="temporal", facts=[born, died])
    r_age = render(age, random.Random(0))
    own = "\n".join([born.evidence, died.evidence])
    assert "no_shortcut" not in path_problems(g, age, r_age, {"v1": own})  # control
    lead = "Anthony Scott (21 June 1944 \u2013 19 August 2012) was an English director."
    assert "no_shortcut" in path_problems(g, age, r_age, {"v1": lead + "\n" + own})
    stated = "He retired in 2010. Scott died in 2012, aged 68. He had two sons."
    assert "no_shortcut" in path_problems(g, age, r_age, {"v1": own + "\n" + stated})
    other = "Tom Hale died in 2012, aged 68."  # someone else's age: no shortcut
    assert "no_shortcut" not in path_problems(g, age, r_age, {"v1": own + "\n" + other})
    # re-asking the seed: same answer, same subject
    who = fact("Titanic", "directed_by", "MISC", object="James Cameron", evidence="x")
    seedlike = r.model_copy(update={"answer": "James Cameron", "answer_type": "entity",
                                    "question": "Who made Titanic?"})
    assert "seed_question" in path_problems(g, FactPath(form="bridge", facts=[who, BORN]),
                                            seedlike, {})


def test_templates_cover_the_enumerated_relations(monkeypatch: pytest.MonkeyPatch) -> None:
    assert list(FORMS) == ["bridge", "intersection", "comparison", "temporal", "chain"]
    for form in FORMS.values():
        assert form.unworded() == [], form.name
    # control: a first hop the query would take and no template words is reported
    monkeypatch.setattr(bridge_form, "FIRST", (*bridge_form.FIRST, "founded_by"))
    assert FORMS["bridge"].unworded() == ["founded_by"]


def test_set_quality_counts() -> None:
    p = FactPath(form="bridge", facts=[TITANIC, BORN])
    gen = PathGenerator()
    items = [gen.candidate(p, render(p, random.Random(s))) for s in range(10)]
    q = set_quality(items, [20, 40, 60])
    assert q["two_option_share"] == 0.0 and q["answer_types"] == {"date": 10}
    assert q["median_k"] == 40 and q["collision_bound"]["bound"] == 0.25
    assert q["relations"] == {"born": 10, "directed_by": 10}
    # ten items on one pair of facts: each names both, each repeats the pair
    assert q["most_items_naming_one_fact"] == 10 and q["items_on_a_repeated_fact_pair"] == 10
    # control: two items on different pairs sharing one fact repeat no pair
    died = BORN.model_copy(update={"id": "jc-died", "relation": "died", "year": 2050})
    other = FactPath(form="bridge", facts=[TITANIC, died])
    two = [gen.candidate(x, render(x, random.Random(0))) for x in (p, other)]
    q2 = set_quality(two, [20])
    assert q2["most_items_naming_one_fact"] == 2 and q2["items_on_a_repeated_fact_pair"] == 0


def test_a_credit_needs_the_person_of_its_role() -> None:
    """Two Christopher Nolans (a director, a poet) are one entity by name: a bridge from a
    film's director to dates read on the poet's page is refused, on the director's kept."""
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[])
    film = fact("Insomnia", "directed_by", "MISC", object="Christopher Nolan",
                object_type="PERSON", evidence="Insomnia is a film directed by Christopher "
                                                "Nolan.")
    born = fact("Christopher Nolan", "born", year=1965, version="poet",
                evidence="Christopher Nolan (6 September 1965 - 20 February 2009) was an "
                         "Irish poet.")
    p = FactPath(form="bridge", facts=[film, born])
    r = render(p, random.Random(0))
    poet = {"poet": "Christopher Nolan (6 September 1965 - 20 February 2009) was an Irish "
                    "poet and author."}
    director = {"poet": "Christopher Nolan (born 30 July 1970) is a British-American "
                        "filmmaker."}
    assert "wrong_person" in path_problems(g, p, r, poet)
    assert "wrong_person" not in path_problems(g, p, r, director)


def test_a_difference_from_years_says_it_counts_years() -> None:
    """From two years "how old" has two answers: after a birth the question asks the age
    turned in the event's year (templates 15: no "calendar years after X was born"), and
    only as a last resort (templates 20: reviewers read it as a fill-in frame); with both
    dates to the day it asks the age, computed to the day."""
    born = fact("Pelé", "born", year=1940, date="1940", precision="year")
    won = fact("Pelé", "won", object="FIFA World Cup", object_type="MISC", when="1958")
    with pytest.raises(Unworded, match="no_age_wording"):  # no pronoun to say "he won"
        render(FactPath(form="temporal", facts=[born, won]), random.Random(0), True)
    his = [f.model_copy(update={"subject_pronoun": "he"}) for f in (born, won)]
    got = {(r.question, r.answer, r.detail.get("last_resort")) for s in range(10) for r in
           [render(FactPath(form="temporal", facts=his), random.Random(s), True)]}
    assert got == {("What age did Pelé turn in the year he won FIFA World Cup?", "18", True),
                   ("In the year he won FIFA World Cup, how old did Pelé turn?", "18", True)}
    with pytest.raises(Unworded, match="no_age_wording"):  # not among the plain frames
        render(FactPath(form="temporal", facts=his), random.Random(0))
    day_born = born.model_copy(update={"date": "1940-10-23", "precision": "day"})
    day_won = won.model_copy(update={"date": "1958-06-29", "precision": "day", "year": 1958})
    got = {(r.question, r.answer) for s in range(30) for r in
           [render(FactPath(form="temporal", facts=[day_born, day_won]), random.Random(s))]}
    assert got == {("At what age did Pelé win FIFA World Cup?", "17")}
    he = [f.model_copy(update={"subject_pronoun": "he"}) for f in (day_born, day_won)]
    got = {(r.question, r.answer) for s in range(30) for r in
           [render(FactPath(form="temporal", facts=he), random.Random(s))]}
    assert got == {("At what age did Pelé win FIFA World Cup?", "17"),
                   ("How old was Pelé when he won FIFA World Cup?", "17")}


def test_whole_years_are_counted_only_where_the_dates_decide_them() -> None:
    """Templates v13: an age ("how old was X when ...") needs the whole years between two
    dates, which a month decides unless it is the birth's own month (then the day does)."""
    def f(date: str, precision: str) -> PathFact:
        return fact("Pelé", "born", year=int(date[:4]), date=date, precision=precision)
    born = f("1940-10-23", "day")
    assert whole_years(born, f("1958-06", "month")) == 17  # June, before his birthday
    assert whole_years(born, f("1958-11", "month")) == 18  # November, after it
    assert whole_years(born, f("1958-10", "month")) is None  # October: which day?
    assert whole_years(born, f("1958-10-22", "day")) == 17
    assert whole_years(born, f("1958-10-23", "day")) == 18
    assert whole_years(born, f("1958", "year")) is None
    assert whole_years(f("1940", "year"), f("1958-06-29", "day")) is None
    # the age is asked from a month too; in the birthday's month it is the year count
    june = fact("Pelé", "won", object="FIFA World Cup", object_type="MISC", when="1958",
                date="1958-06", precision="month")
    r = render(FactPath(form="temporal", facts=[born, june]), random.Random(0))
    assert (r.question, r.answer) == ("At what age did Pelé win FIFA World Cup?", "17")
    # in October the age turned that year is all the dates decide
    october = june.model_copy(update={"date": "1958-10"})
    he = born.model_copy(update={"subject_pronoun": "he"})
    got = {(r.question, r.answer) for s in range(10) for r in
           [render(FactPath(form="temporal", facts=[he, october]), random.Random(s), True)]}
    assert got == {("What age did Pelé turn in the year he won FIFA World Cup?", "18"),
                   ("In the year he won FIFA World Cup, how old did Pelé turn?", "18")}


EVENTS = {
    "Cristiano Ronaldo": "Cristiano Ronaldo (born 5 February 1985) is a Portuguese "
                         "footballer.\nRonaldo signed for Real Madrid in 2009.\n"
                         "In 2018, Ronaldo signed for Juventus.\n"
                         "In 2021, Ronaldo criticized the decision.\n"
                         "Ronaldo visited Lisbon in 2010.\nRonaldo visited Lisbon in 2015.\n"
                         "Ronaldo signed for Al Nassr in 2023.",
}


def test_events_are_asked_by_their_phrases(store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    """Every two events of one subject give a temporal path worded by their phrases (Real
    Madrid, Juventus, Al Nassr: three pairs); an event without a phrase ("criticized the
    decision") and one with two years ("visited Lisbon", 2010 and 2015) give none."""
    build_facts(store, nlp, tmp_path, EVENTS)
    [g] = load_path_graphs(store, t=1)
    events = {(f.relation, f.phrase) for p in g.paths for f in p.facts}
    assert ("event", "signed for Real Madrid") in events
    assert ("event", "signed for Juventus") in events
    assert {ph for _, ph in events} <= {None, "signed for Real Madrid", "signed for Juventus",
                                        "signed for Al Nassr"}
    pairs = sorted((p for p in g.paths if [f.relation for f in p.facts] == ["event", "event"]),
                   key=lambda p: [f.year or 0 for f in p.facts])
    assert [[f.year for f in p.facts] for p in pairs] == [[2009, 2018], [2009, 2023],
                                                          [2018, 2023]]
    pair = pairs[:1]
    worded = {render(pair[0], random.Random(s)).question for s in range(30)}
    assert len(worded) >= 2
    # both events by their phrases (the second as "did Ronaldo sign for Juventus", the
    # first as "signing for Real Madrid" where the subject is named once; or, counting
    # back, "before signing for Juventus did Cristiano Ronaldo sign for Real Madrid")
    assert all(("signed for Real Madrid" in q and "did Ronaldo sign for Juventus" in q)
               or ("signing for Real Madrid" in q
                   and "did Cristiano Ronaldo sign for Juventus" in q)
               or ("before signing for Juventus" in q
                   and "did Cristiano Ronaldo sign for Real Madrid" in q) for q in worded)
    assert {render(pair[0], random.Random(s)).answer for s in range(30)} == {"9 years"}
    born = [p for p in g.paths if [f.relation for f in p.facts] == ["born", "event"]]
    assert len(born) == 3  # the birth with each signing; never with a Lisbon visit


@pytest.mark.parametrize("dates", ["January 8, 1935 – August 16, 1977", "born January 8, 1935"])
def test_no_age_is_asked_after_a_death(store: Store, nlp: CoreNLP, tmp_path: Path,
                                       dates: str) -> None:
    """Review Z3: "What age did Elvis Presley turn in the year he was awarded the
    Presidential Medal of Freedom?" (2018; he died in 1977); review R58: "How many years
    after being elected to the United States Senate did Martin Van Buren appear in the
    Presidential dollar coins series?" (1821, 2008; he died in 1862). Nothing of a life is
    paired with an event after the person's death. Control: with no death on the page, the
    birth and the signing are paired with the award too."""
    build_facts(store, nlp, tmp_path, {"Elvis Presley": (
        f"Elvis Presley ({dates}) was an American singer.\n"
        "In 1956, Presley signed with RCA Victor.\n"
        "In 2018, Presley received the Presidential Medal of Freedom.")})
    [g] = load_path_graphs(store, t=1)
    kinds = {(p.facts[0].relation, p.facts[-1].relation, p.facts[-1].year) for p in g.paths}
    assert ("born", "event", 1956) in kinds
    assert (("born", "event", 2018) in kinds) == ("1977" not in dates), kinds
    assert (("event", "event", 2018) in kinds) == ("1977" not in dates), kinds


def test_no_subject_is_asked_to_appear_as_itself() -> None:
    """Reviews X-Z3: "How many years after Aidan Foster made his first screen appearance as
    Aidan did he make his final appearance as Aidan?" (the character's page: "he" is the
    actor). Control: an actor's own page ("appeared as Aidan" of Bob Morley) is asked."""
    first, last = (fact("Aidan Foster", "event", year=y, phrase=f"made his {w} appearance "
                        "as Aidan", verb="make") for y, w in ((2011, "first"), (2013, "final")))
    with pytest.raises(Unworded, match="as_itself"):
        render(FactPath(form="temporal", facts=[first, last]), random.Random(0))
    terrier = fact("Parson Russell Terrier", "event", "MISC", year=1990, verb="recognise",
                   phrase="was recognised in the United Kingdom as the Parson Jack Russell "
                          "Terrier")
    assert render(FactPath(form="temporal", facts=[terrier, last.model_copy(
        update={"subject": "Parson Russell Terrier", "subject_type": "MISC"})]),
        random.Random(0)).answer == "23 years"  # a thing's other name is no role
    actor = [f.model_copy(update={"subject": "Bob Morley"}) for f in (first, last)]
    assert render(FactPath(form="temporal", facts=actor), random.Random(0)).answer \
        == "2 years"


def test_an_event_its_subject_repeats_is_asked_only_by_its_one_occasion() -> None:
    """Review R37: "How many years after Joe Biden was admitted to the Delaware bar did he
    visit Serbia?" (he visited in 2009 and 2016) and "... did Charles III speak to the BBC
    about the environment?" name events that happened more than once. Controls: the same
    verbs with the one occasion named ("first met", "his 100th appearance", a work or a
    role appeared in, a quoted title), and an event of another verb, are asked."""
    def event(verb: str, phrase: str, year: int = 2016) -> PathFact:
        return fact("Joe Biden", "event", year=year, phrase=phrase, verb=verb,
                    subject_pronoun="he")

    bar = event("admit", "was admitted to the Delaware bar", 1969)
    for verb, phrase in (("visit", "visited Serbia"),
                         ("speak", "spoke to the BBC about the environment"),
                         ("meet", "met with Indian Prime Minister Narendra Modi"),
                         ("appear", "appeared at the White House Correspondents' Dinner"),
                         ("play", "played at the Tal Memorial in Moscow"),
                         ("play", "played for New South Wales"),
                         ("sail", "sailed to New York"),  # templates 18, review R40
                         ("return", "returned to the U.S."),  # review R41
                         ("contract", "contracted COVID-19"),
                         ("test", "tested positive for COVID-19")):
        again = event(verb, phrase)
        assert recurring(again)
        with pytest.raises(Unworded, match="recurring_event"):
            render(FactPath(form="temporal", facts=[bar, again]), random.Random(0))
        with pytest.raises(Unworded, match="recurring_event"):  # either side
            render(FactPath(form="temporal", facts=[again.model_copy(update={"year": 1960}),
                                                    bar]), random.Random(0))
    for verb, phrase in (("meet", "first met Lady Diana Spencer"),
                         ("appear", "made his 100th appearance for United"),
                         ("perform", "gave his final performance at the Hilton"),
                         ("sign", "signed for Al Nassr"),
                         ("sail", "sailed on the Titanic's maiden voyage"),
                         ("appear", "appeared in Adam McKay's film Don't Look Up"),
                         ("appear", "appeared as Vivian Daniels"),
                         ("play", "played Mika Cavanaugh in the BBC iPlayer teen series"),
                         ("criticize", 'criticized the lyrics of West\'s single "Famous"')):
        once = event(verb, phrase)
        assert not recurring(once)
        assert render(FactPath(form="temporal", facts=[bar, once]),
                      random.Random(0)).answer == "47 years"


def test_a_path_whose_every_wording_copies_its_page_is_not_askable() -> None:
    """K for the collision bound counts the candidates a round can draw: a path a template
    words but whose phrase is eight words of its sentence copies a run in any frame
    (``askable``). Control: the same pair with a short phrase is askable."""
    def event(phrase: str, year: int, sentence: str) -> PathFact:
        return fact("Taylor Swift", "event", year=year, phrase=phrase, verb="sign",
                    subject_pronoun="she", evidence=sentence)

    first = event("signed with Big Machine Records", 2005,
                  "In 2005, Swift signed with Big Machine Records.")
    long = event("signed a global publishing deal with Universal Music Publishing Group", 2016,
                 "In 2016, Swift signed a global publishing deal with Universal Music "
                 "Publishing Group.")
    short = event("signed with Republic Records", 2018, "In 2018, Swift signed with Republic "
                  "Records.")
    texts = {"v1": " ".join(f.evidence for f in (first, long, short))}
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[])
    copied = FactPath(form="temporal", facts=[first, long])
    assert is_wordable(copied) and not askable(g, copied, texts)
    assert askable(g, FactPath(form="temporal", facts=[first, short]), texts)


def test_event_wording_names_the_subject_again_by_surname() -> None:
    a = fact("Cristiano Ronaldo", "event", year=2009, phrase="signed for Real Madrid")
    b = fact("Cristiano Ronaldo", "event", year=2018, phrase="signed for Juventus")
    qs = {render(FactPath(form="temporal", facts=[a, b]), random.Random(s)).question
          for s in range(40)}
    assert "How many years passed between the year Cristiano Ronaldo signed for Real Madrid "\
           "and the year Ronaldo signed for Juventus?" in qs
    assert all(q[0].isupper() and q.endswith("?") for q in qs)
    pope = [fact("Pope Benedict XVI", "event", year=y, phrase=ph)
            for y, ph in ((1958, "became a professor at Freising College"),
                          (1982, "resigned from his post in Munich"))]
    for seed in range(20):  # a regnal number is no surname: never "... and the year XVI ..."
        q = render(FactPath(form="temporal", facts=pope), random.Random(seed)).question
        assert q.count("XVI") == q.count("Pope Benedict XVI") >= 1
    # a surname keeps its particle; a phrase loses the dash its sentence ran on with
    mvb = [fact("Martin Van Buren", "event", year=1817, phrase="joined the Bucktails"),
           fact("Martin Van Buren", "event", year=1821, phrase="was elected to the Senate—")]
    for seed in range(20):
        q = render(FactPath(form="temporal", facts=mvb), random.Random(seed)).question
        assert " Buren " not in q.replace("Van Buren", "") and "—" not in q, q
    # a company the tagger took for a person is named whole, never "Inc."
    assert short_name("Tesla, Inc.", "PERSON") == "Tesla, Inc."
    # ... and is "it", whatever its page calls its people (review Z3: "did he move its ...")
    tesla = [fact("Tesla, Inc.", "event", year=y, phrase=ph, verb=v, subject_pronoun="he")
             for y, ph, v in ((2012, "ceased production of the Roadster", "cease"),
                              (2021, "moved its headquarters to Austin", "move"))]
    qs = {render(FactPath(form="temporal", facts=tesla), random.Random(s)).question
          for s in range(30)}
    assert qs and not any(" he " in q for q in qs) and any(" it " in q for q in qs), qs
    assert pronoun(tesla[0].model_copy(update={"subject": "Tesla"})) == "he"  # control
    # an event with no phrase is no question
    with pytest.raises(Unworded):
        render(FactPath(form="temporal", facts=[a, b.model_copy(update={"phrase": None})]),
               random.Random(0))


def test_an_event_is_asked_as_a_question_clause_where_it_has_a_verb() -> None:
    """Templates v6: "How many years after A did X B?" (reviewers marked the "years
    between the year ..." frames template-like); the year frames only where the event has no
    verb to put in the base form."""
    a = fact("Cristiano Ronaldo", "event", year=2009, phrase="signed for Real Madrid",
             verb="sign")
    b = fact("Cristiano Ronaldo", "event", year=2018, phrase="signed for Juventus",
             verb="sign")
    qs = {render(FactPath(form="temporal", facts=[a, b]), random.Random(s)).question
          for s in range(60)}
    assert qs == {"How many years after Cristiano Ronaldo signed for Real Madrid did "
                  "Ronaldo sign for Juventus?",
                  # templates v8: the first event as a gerund, the subject named once
                  "How many years after signing for Real Madrid did Cristiano "
                  "Ronaldo sign for Juventus?",
                  # templates v11: counted back from the second event
                  "How many years before signing for Juventus did Cristiano Ronaldo "
                  "sign for Real Madrid?"}
    # templates v15: where the two ways of counting years differ (1 July 2009 to June 2018:
    # 8 whole years, 2018 - 2009 = 9), months where both dates are known to the month and
    # they give one answer, else, as a last resort, the first event anchored by its year
    # (never "calendar years", which read as a fill-in frame)
    day = a.model_copy(update={"date": "2009-07-01", "precision": "day"})
    june = b.model_copy(update={"date": "2018-06", "precision": "month"})
    anchored = {("How many years after the year Cristiano Ronaldo signed for Real Madrid did "
                 "Ronaldo sign for Juventus?", "9 years")}

    def worded(*facts: PathFact) -> set[tuple[str, str]]:
        return {(r.question, r.answer) for s in range(60)
                for r in [render(FactPath(form="temporal", facts=list(facts)),
                                 random.Random(s), last_resort=True)]}
    assert worded(day, june) == anchored
    # a date known to the day and one known by its year only: 8 or 9 whole years (review X)
    assert worded(day, b) == anchored
    for pair in ([day, june], [day, b]):  # not but as a last resort
        with pytest.raises(Unworded, match="interval_ambiguous"):
            render(FactPath(form="temporal", facts=pair), random.Random(0))
    july, may = (x.model_copy(update={"date": d, "precision": "month", "year": int(d[:4])})
                 for x, d in ((a, "2009-07"), (b, "2011-05")))
    got = {(r.question, r.answer) for s in range(60)
           for r in [render(FactPath(form="temporal", facts=[july, may]), random.Random(s))]}
    assert ("How many months after signing for Real Madrid did Cristiano Ronaldo sign for "
            "Juventus?", "22 months") in got
    assert all(q.startswith("How many months") and n == "22 months" for q, n in got)
    # to the day: whole months from an earlier day of the month (10 July -> 12 May), none
    # from a later one (12 July -> 10 May: 21 or 22); none beyond three years
    on = [x.model_copy(update={"date": d, "precision": "day", "year": int(d[:4])})
          for x, d in ((a, "2009-07-10"), (b, "2011-05-12"), (a, "2009-07-12"),
                       (b, "2011-05-10"), (b, "2013-05-12"))]
    assert render(FactPath(form="temporal", facts=on[:2]), random.Random(0)).answer \
        == "22 months"
    assert {n for _, n in worded(*on[2:4])} == {"2 years"}  # anchored by the year
    assert {(q.startswith("How many years after the year"), n)
            for q, n in worded(on[0], on[4])} == {(True, "4 years")}  # not 3 whole years
    # controls: to August 2018 both counts are 9; with both dates known by their years
    # only, the year difference is all a reader can count: years
    for first, later in ((day, b.model_copy(update={"date": "2018-08", "precision": "month"})),
                         (a, b)):
        qs = {render(FactPath(form="temporal", facts=[first, later]), random.Random(s)).question
              for s in range(60)}
        assert "How many years after signing for Real Madrid did Cristiano Ronaldo sign for " \
               "Juventus?" in qs and not any("calendar" in q for q in qs)
    # a passive keeps its auxiliary, before the subject; as a gerund it is "being ..."
    elected = b.model_copy(update={"phrase": "was elected to the Senate", "verb": "elect"})
    qs = {render(FactPath(form="temporal", facts=[a, elected]), random.Random(s)).question
          for s in range(60)}
    assert "How many years after Cristiano Ronaldo signed for Real Madrid was " \
           "Ronaldo elected to the Senate?" in qs
    qs = {render(FactPath(form="temporal", facts=[elected.model_copy(update={"year": 2001}),
                                                  b]), random.Random(s)).question
          for s in range(60)}
    assert "How many years after being elected to the Senate did Cristiano Ronaldo " \
           "sign for Juventus?" in qs
    # after a birth known by its year: the age turned in the event's year, which needs the
    # pronoun ("in the year he signed"); without it no wording (templates 15); a last resort
    born_y = fact("Cristiano Ronaldo", "born", year=1985, date="1985", precision="year")
    with pytest.raises(Unworded, match="no_age_wording"):
        render(FactPath(form="temporal", facts=[born_y, b]), random.Random(0), True)
    his = [f.model_copy(update={"subject_pronoun": "he"}) for f in (born_y, b)]
    got = {(r.question, r.answer) for s in range(60)
           for r in [render(FactPath(form="temporal", facts=his), random.Random(s), True)]}
    assert got == {("What age did Cristiano Ronaldo turn in the year he signed for "
                    "Juventus?", "33"), ("How old did Cristiano Ronaldo turn in the year he "
                                         "signed for Juventus?", "33"),
                   ("In the year he signed for Juventus, how old did Cristiano Ronaldo "
                    "turn?", "33")}
    # both to the day after a birth: the age "when" the event happened
    born = fact("Cristiano Ronaldo", "born", year=1985, date="1985-02-05", precision="day")
    signed = a.model_copy(update={"date": "2009-07-01", "precision": "day"})
    r = render(FactPath(form="temporal", facts=[born, signed]), random.Random(0))
    assert (r.question, r.answer) == ("At what age did Cristiano Ronaldo sign for Real "
                                      "Madrid?", "24")
    # with his pronoun, also "when he ..." (never the gerund "when signing ...", which only
    # words an event no clause fits)
    he = [f.model_copy(update={"subject_pronoun": "he"}) for f in (born, signed)]
    got = {(r.question, r.answer) for s in range(30)
           for r in [render(FactPath(form="temporal", facts=he), random.Random(s))]}
    assert got == {("At what age did Cristiano Ronaldo sign for Real Madrid?", "24"),
                   ("How old was Cristiano Ronaldo when he signed for Real Madrid?", "24")}
    # the inflection is the library's: "running", "making", not "runing", "makeing"
    ran = a.model_copy(update={"phrase": "ran for Congress", "verb": "run"})
    made = b.model_copy(update={"phrase": "made his debut for Portugal", "verb": "make"})
    qs = {render(FactPath(form="temporal", facts=[ran, made]), random.Random(s)).question
          for s in range(60)}
    assert "How many years after running for Congress did Cristiano Ronaldo make " \
           "his debut for Portugal?" in qs
    # control: no verb, no clause: the year frame
    bare = b.model_copy(update={"verb": ""})
    q = render(FactPath(form="temporal", facts=[a, bare]), random.Random(0)).question
    assert q.startswith("How many years passed between the year")


PRONOUNS = {
    "Edward Snowden": "Edward Snowden (born June 21, 1983) is an American whistleblower.\n"
                      "He resigned from the CIA in 2009.\nIn 2013, he leaked documents.",
    "Maura Healey": "Maura Healey (born February 8, 1971) is an American politician.\n"
                    "She joined the Massachusetts Democratic Party in 2007.\n"
                    "In 2014, she ran for Attorney General of Massachusetts.",
    "Netflix": "Netflix is an American streaming service founded in 1997.\n"
               "Netflix launched in Canada in 2010.\nIn 2016, it launched in India.",
}


def test_a_draw_spreads_over_the_kinds_of_question_a_graph_offers() -> None:
    """A person's page pairs each event with the birth: six "born+event" paths, one
    "event+event". Drawn uniformly over paths the interval would come 1 time in 7; a kind
    is drawn uniformly first, so it comes about half the time, and every path is still
    reached by some draw."""
    born = fact("Willie Nelson", "born", year=1933, date="1933", precision="year")
    events = [fact("Willie Nelson", "event", year=1960 + i, phrase=f"released Album {i}",
                   verb="release") for i in range(6)]
    paths = [FactPath(form="temporal", facts=[born, e]) for e in events]
    paths.append(FactPath(form="temporal", facts=events[:2]))
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[], paths=paths)
    assert {p.kind for p in paths} == {"temporal/born+event", "temporal/event+event"}
    firsts = [draw(g, r, 0) for r in range(400)]
    share = sum(p is not None and p.kind == "temporal/event+event" for p in firsts) / 400
    assert 0.4 < share < 0.6, share
    assert {p.key for p in firsts if p is not None} == {p.key for p in paths}
    # every attempt of one draw is a different path, and all of them come
    assert sorted(x.key for a in range(7) if (x := draw(g, 5, a))) == \
        sorted(p.key for p in paths)
    assert draw(g, 5, 7) is None


def test_a_pages_pronoun_reaches_its_subjects_facts(store: Store, nlp: CoreNLP,
                                                     tmp_path: Path) -> None:
    """Rules 24: the pronoun a page uses for its subject is stored with the page subject and
    carried by the facts a path words; a page whose text uses none gives none."""
    build_facts(store, nlp, tmp_path, PRONOUNS)
    [g] = load_path_graphs(store, t=1)
    said = {(f.subject, f.subject_pronoun) for p in g.paths for f in p.facts}
    assert ("Edward Snowden", "he") in said and ("Maura Healey", "she") in said
    assert {x for s, x in said if s == "Netflix"} == {None}  # "it" is the template's
    assert not {x for s, x in said if s in ("Edward Snowden", "Maura Healey")} & {None}


def test_a_subject_is_named_once_then_by_its_pronoun() -> None:
    """Templates v11: a person whose page says "he" or "she" is named once and then by it,
    anything but a person by "it"; without a pronoun a person is named again (never "it").
    The age reached in the year of an event is the year difference, a bare number."""
    born = fact("Edward Snowden", "born", year=1983, date="1983", precision="year",
                subject_pronoun="he")
    quit_ = fact("Edward Snowden", "event", year=2013, phrase="resigned from the CIA",
                 verb="resign", subject_pronoun="he")
    got = [render(FactPath(form="temporal", facts=[born, quit_]), random.Random(s), True)
           for s in range(60)]
    qs = {(r.question, r.answer) for r in got}
    # templates v12: with the pronoun known, a birth is asked only as the age turned (a
    # last resort) ...
    assert qs == {("What age did Edward Snowden turn in the year he resigned from the CIA?",
                   "30"),
                  ("How old did Edward Snowden turn in the year he resigned from the CIA?",
                   "30"),
                  ("In the year he resigned from the CIA, how old did Edward Snowden turn?",
                   "30")}
    # ... unless that copies a run of the sentence the checks refuse ("he" and the phrase as
    # written): then the birth anchored by its year, the verb in its base form (templates
    # 15: no "calendar years after he was born")
    post = quit_.model_copy(update={
        "phrase": "resigned from his post at the CIA station",
        "evidence": "In 2013, he resigned from his post at the CIA station."})
    qs = {(r.question, r.answer) for s in range(60) for r in
          [render(FactPath(form="temporal", facts=[born, post]), random.Random(s),
                  last_resort=True)]}
    assert qs == {("How many years after the year Edward Snowden was born did he resign from "
                   "his post at the CIA station?", "30 years")}
    with pytest.raises(Unworded, match="no_age_wording"):  # (only as a last resort)
        render(FactPath(form="temporal", facts=[born, post]), random.Random(0))
    # control: the same facts with no pronoun give no wording (a person has no
    # default pronoun, and "What age did Edward Snowden turn in the year Snowden ..." reads
    # as a frame)
    bare = [f.model_copy(update={"subject_pronoun": None}) for f in (born, quit_)]
    with pytest.raises(Unworded, match="no_age_wording"):
        render(FactPath(form="temporal", facts=bare), random.Random(0), True)
    she = [f.model_copy(update={"subject": "Maura Healey", "subject_id": "mh",
                                "subject_pronoun": "she"}) for f in (born, quit_)]
    qs = {render(FactPath(form="temporal", facts=she), random.Random(s), True).question
          for s in range(60)}
    assert qs == {"What age did Maura Healey turn in the year she resigned from the CIA?",
                  "How old did Maura Healey turn in the year she resigned from the CIA?",
                  "In the year she resigned from the CIA, how old did Maura Healey turn?"}
    # a company is "it", whatever its page's people are called
    founded = fact("Netflix", "founded", "ORG", year=1997, date="1997", precision="year",
                   subject_pronoun="he")
    launch = fact("Netflix", "event", "ORG", year=2010, phrase="launched in Canada",
                  verb="launch", subject_pronoun="he")
    qs = {render(FactPath(form="temporal", facts=[founded, launch]), random.Random(s)).question
          for s in range(60)}
    assert "How many years after Netflix was founded did it launch in Canada?" in qs
    assert all(" he " not in q and q.count("Netflix") == 1 for q in qs)


def test_a_paths_round_before_any_facts_says_what_to_run(store: Store, nlp: CoreNLP,
                                                        tmp_path: Path,
                                                        env: dict[str, str]) -> None:
    ingest_pages(store, tmp_path, {"Titanic (1997 film)": PATH_PAGES["Titanic (1997 film)"]})
    result = CliRunner().invoke(main, ["round", "new", "--seed", "1"], env=env)
    assert result.exit_code == 1 and "dwqa facts" in result.output, result.output
    assert "Traceback" not in result.output
    assert store.read("MATCH (r:Round) RETURN count(r) AS n") == [{"n": 0}]  # no number taken
    # after `dwqa facts` the default works
    extract_facts(store, nlp=nlp)
    ok = CliRunner().invoke(main, ["round", "new", "--seed", "2"], env=env)
    assert ok.exit_code == 0, ok.output


def test_a_wording_that_copies_its_page_is_worded_again(monkeypatch: pytest.MonkeyPatch,
                                                         ) -> None:
    """Path generator 3: "How old was Ronaldo when he signed for Real Madrid?" quotes the
    page ("... Cristiano Ronaldo when he signed for Real Madrid ..." elsewhere on it), so the
    same path is worded again ("At what age did ... sign ...") before the next path is
    drawn; a path that passes keeps the draw's own wording."""
    born = fact("Cristiano Ronaldo", "born", year=1985, date="1985-02-05", precision="day",
                subject_pronoun="he", evidence="Cristiano Ronaldo (born 5 February 1985).")
    signed = fact("Cristiano Ronaldo", "event", year=2009, date="2009-07-01", precision="day",
                  phrase="signed for Real Madrid", verb="sign", subject_pronoun="he",
                  evidence="On 1 July 2009, he signed for Real Madrid.")
    path = FactPath(form="temporal", facts=[born, signed])
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[], paths=[path])
    page = {"v1": "Fans still remember Cristiano Ronaldo when he signed for Real Madrid."}
    copying = next(s for s in range(50) if "when he" in render(
        path, random.Random(f"{s}:0")).question)
    rendered, problems = path_gen_mod._worded(g, path, f"{copying}:0", page)
    assert problems == [] and rendered.question == \
        "At what age did Cristiano Ronaldo sign for Real Madrid?" and rendered.answer == "24"
    # control: with one wording only, the copy is what the checks see
    monkeypatch.setattr(path_gen_mod, "REWORDINGS", 1)
    rendered, problems = path_gen_mod._worded(g, path, f"{copying}:0", page)
    assert "copied_run" in problems and "when he signed" in rendered.question


def test_a_models_spare_paths_leave_every_graph_its_first(store: Store, nlp: CoreNLP,
                                                         tmp_path: Path) -> None:
    """Path generator 4: three seed graphs on one page of three paths all reach the model.
    A graph's spare paths (offered if the model's wording of its first is refused) are drawn
    after every graph has its first; generator 3 drew them at once, and the first graph's
    two left the third none ("paths_exhausted"). (Dates to the day: an age turned in a
    year is a last resort, which a rule round caps.)"""
    page = {"Cristiano Ronaldo": "Cristiano Ronaldo (born 5 February 1985) is a Portuguese "
                                 "footballer.\nOn 1 July 2009, he signed for Real Madrid.\n"
                                 "On 10 July 2018, he signed for Juventus."}
    seeds = [{"_id": q, "question": f"Which club did Ronaldo join ({q})?", "answer": "x",
              "supporting_facts": [], "context": [[t, [x]] for t, x in page.items()]}
             for q in ("q1", "q2", "q3")]
    (tmp_path / "seeds.json").write_text(json.dumps(seeds))
    ingest(store, [tmp_path / "seeds.json"], fmt="hotpotqa")
    extract_claims(store)
    extract_facts(store, nlp=nlp)
    graphs = load_path_graphs(store, t=1)
    assert [len(g.paths) for g in graphs] == [3, 3, 3]
    with replay({}) as srv:  # no reply is usable: every path a graph offers is sent
        llm = LLM(OpenAICompatChat(base_url=srv.url, model="none"),
                  cache_path=tmp_path / "llm.sqlite")
        report = new_round(store, seed=1, generator=PathGenerator(llm), cfg=SampleConfig(),
                           previous=0)
    # each graph's first: the page's three paths, no spare left
    sent = [m for m in srv.missing.values() if len(m) == 1]  # not the repair turns
    assert len(sent) == 3 and report.items == 0 and report.no_item == 3
    assert not {"paths_exhausted", "no_fresh_path", "attempts_exhausted", "no_path"} & set(
        report.no_item_reasons), report.no_item_reasons
    # control: without a model the three graphs get an item each from the same page
    rule = new_round(store, seed=1, generator=PathGenerator(), cfg=SampleConfig(), previous=0)
    assert rule.items == 3


def graph_per_page(store: Store, nlp: CoreNLP, tmp_path: Path, pages: dict[str, str],
                   question: str) -> None:
    """One seed graph per page (its id the title, its question ``question`` about it), with
    claims and facts."""
    seeds = [{"_id": title, "question": question.format(title), "answer": "x",
              "supporting_facts": [], "context": [[title, [text]]]}
             for title, text in pages.items()]
    (tmp_path / "seeds.json").write_text(json.dumps(seeds))
    ingest(store, [tmp_path / "seeds.json"], fmt="hotpotqa")
    extract_claims(store)
    extract_facts(store, nlp=nlp)


def questions_by_subject(store: Store, subjects: tuple[str, str],
                         seeds: range) -> dict[str, set[str]]:
    """The questions rule rounds drawn with ``seeds`` ask, by which of two subjects they
    name (the second: any question not naming the first)."""
    asked: dict[str, set[str]] = {s: set() for s in subjects}
    for seed in seeds:
        report = new_round(store, seed=seed, generator=PathGenerator(),
                           cfg=SampleConfig(reuse="allow"))
        for row in export_rows(store, report.round):
            asked[subjects[0] if subjects[0] in row["question"] else subjects[1]].add(
                row["question"])
    return asked


LAST_RESORT = {
    "Netflix": "Netflix is an American streaming company.\nNetflix was founded on August 29, "
               "1997.\nIn 2007, Netflix signed a deal with Microsoft.",
    "Hulu": "Hulu is an American streaming company.\nHulu was founded on March 12, 2007."
            "\nIn 2010, Hulu signed a deal with Disney.\nIn 2017, Hulu signed a deal with "
            "CBS.",
}


def test_a_last_resort_wording_only_where_a_graph_has_nothing_else(
        store: Store, nlp: CoreNLP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Templates v15: Netflix's founding (to the day) and its 2007 deal have no one count
    of years but by the founding's year, a wording reviewers read as a fill-in frame: its
    graph gets it, having nothing else; Hulu's graph also has its two deals (years only),
    and its items never use it. Path generator 6: at most ``LAST_RESORT_SHARE`` of a rule
    round's items are worded so."""
    graph_per_page(store, nlp, tmp_path, LAST_RESORT, "When was {} founded?")
    graphs = {g.paths[0].facts[0].subject if g.paths else "": g
              for g in load_path_graphs(store, t=1)}
    assert set(graphs) == {"Netflix", "Hulu"}
    # the default cap leaves one item of two no last-resort one: Netflix sits the round out
    report = new_round(store, seed=0, generator=PathGenerator(), cfg=SampleConfig())
    assert report.items == 1 and report.no_item_reasons.get("last_resort_cap") == 1, report
    monkeypatch.setattr(path_gen_mod, "LAST_RESORT_SHARE", 0.5)
    asked = questions_by_subject(store, ("Netflix", "Hulu"), range(6))
    assert asked["Netflix"] == {"How many years after the year Netflix was founded did it "
                                "sign a deal with Microsoft?"}
    assert asked["Hulu"] and not any("after the year" in q for q in asked["Hulu"]), asked


AGES = {
    "Ada Brenner": "Ada Brenner (born 14 March 1950) is a Norwegian chemist.\nIn 1985, she "
                   "moved to Bergen.",
    "Olav Lindqvist": "Olav Lindqvist (born 2 May 1948) is a Norwegian painter.\nIn 1975, he "
                      "moved to Tromsø.\nIn 1990, he opened a gallery in Oslo.",
}


def test_an_age_turned_in_a_year_only_where_a_graph_has_nothing_else(
        store: Store, nlp: CoreNLP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Templates 20: the age turned in an event's year ("What age did X turn in the year she
    ...?") is a last resort; reviewers read its word orders as one fill-in frame. Brenner's
    graph has nothing else (a birth and an event known by its year) and gets it; Lindqvist's also
    has his two events, and its items never use it (under templates 19 half of his draws
    were ages)."""
    graph_per_page(store, nlp, tmp_path, AGES, "Who is {}?")
    kinds = {g.paths[0].facts[0].subject: {p.kind for p in g.paths}
             for g in load_path_graphs(store, t=1)}
    assert kinds == {"Ada Brenner": {"temporal/born+event"},
                     "Olav Lindqvist": {"temporal/born+event", "temporal/event+event"}}, kinds
    monkeypatch.setattr(path_gen_mod, "LAST_RESORT_SHARE", 0.5)
    asked = questions_by_subject(store, ("Brenner", "Lindqvist"), range(20))
    assert asked["Brenner"] and all(" turn" in q for q in asked["Brenner"]), asked
    assert asked["Lindqvist"] and not any(" turn" in q for q in asked["Lindqvist"]), asked


SHORTER = {
    "Cristiano Ronaldo": "Cristiano Ronaldo (born 5 February 1985) is a Portuguese "
                         "footballer.\nIn 2003, Ronaldo made his debut for Portugal in a "
                         "friendly against Kazakhstan.\nIn 2009, Ronaldo signed for Real "
                         "Madrid in a record transfer from Manchester United.",
    # on another page: a page telling both signings reads neither core (rules 45,
    # test_facts), so the graph's own check is seen across pages
    "Real Madrid CF": "Real Madrid CF is a Spanish football club.\nIn 2021, Cristiano "
                      "Ronaldo signed for Real Madrid.",
}


def test_an_events_short_phrase_is_used_only_where_it_names_one_event(
        store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    """Rules 27 read each event's core ("made his debut for Portugal" without "in a friendly
    against Kazakhstan"); a graph words an event by it only where no other event of the
    subject is worded so with another year ("signed for Real Madrid": 2009's core is 2021's
    phrase), and asks nothing of an event whose phrase is another's core (2021's would name
    both)."""
    build_facts(store, nlp, tmp_path, SHORTER)
    stored = {r["y"]: (r["p"], r["s"]) for r in store.read(
        "MATCH (f:Fact {relation: 'event'}) RETURN f.year AS y, f.phrase AS p, "
        "f.short_phrase AS s")}
    assert stored == {
        2003: ("made his debut for Portugal in a friendly against Kazakhstan",
               "made his debut for Portugal"),
        2009: ("signed for Real Madrid in a record transfer from Manchester United",
               "signed for Real Madrid"),
        2021: ("signed for Real Madrid", None)}
    [g] = load_path_graphs(store, t=1)
    events = {f.year: f for p in g.paths for f in p.facts if f.relation == "event"}
    assert events[2003].short_phrase == "made his debut for Portugal"
    assert events[2009].short_phrase is None  # control: the stored fact has one
    assert 2021 not in events
    # the same candidate, worded by the core
    debut = next(p for p in g.paths if [f.year for f in p.facts] == [1985, 2003])
    assert debut.shortened is not None and debut.shortened.key == debut.key
    worded = {render(debut.shortened, random.Random(s), True).question for s in range(20)}
    assert all("debut for Portugal" in q and "Kazakhstan" not in q for q in worded)


def test_a_long_phrase_copied_from_its_page_is_worded_by_its_core() -> None:
    """Path generator 5: every wording of "fought at the Battle of Sobraon during the First
    Anglo-Sikh War" copies 8 words of its page; the core's does not. Control: the same path
    without a core is refused. (An age from a day and a year: a last-resort wording.)"""
    sentence = "In 1846, he fought at the Battle of Sobraon during the First Anglo-Sikh War."
    born = fact("Charles Sackville-West", "born", year=1815, date="1815-11-13",
                precision="day", subject_pronoun="he",
                evidence="Charles Sackville-West (13 November 1815 - 1873) was a soldier.")
    fought = fact("Charles Sackville-West", "event", year=1846, date="1846", precision="year",
                  phrase="fought at the Battle of Sobraon during the First Anglo-Sikh War",
                  short_phrase="fought at the Battle of Sobraon", verb="fight",
                  subject_pronoun="he", evidence=sentence)
    path = FactPath(form="temporal", facts=[born, fought])
    g = PathGraph(query_id="q", question="", evidence_round=0, documents=[], paths=[path])
    page = {"v1": sentence}
    rendered, problems = path_gen_mod._worded(g, path, "7:0", page, True)
    assert problems == [] and "Battle of Sobraon" in rendered.question
    assert "Anglo-Sikh" not in rendered.question and rendered.answer
    whole = path.model_copy(update={"facts": [born, fought.model_copy(
        update={"short_phrase": None})]})
    with pytest.raises(Unworded, match="no_age_wording"):  # the age frames refuse the copy
        path_gen_mod._worded(g, whole, "7:0", page, True)
    # ... which is the copy: from a sentence that words it otherwise, the whole phrase is
    other = "The First Anglo-Sikh War saw him fight at the Battle of Sobraon in 1846."
    whole = path.model_copy(update={"facts": [born, fought.model_copy(
        update={"short_phrase": None, "evidence": other})]})
    rendered, problems = path_gen_mod._worded(g, whole, "7:0", {"v1": other}, True)
    assert problems == [] and "Anglo-Sikh War" in rendered.question


@pytest.mark.parametrize("verb", ["hosted", "directed"])
def test_a_shows_host_is_never_a_hop(store: Store, nlp: CoreNLP, tmp_path: Path,
                                     verb: str) -> None:
    """Review: "Where was the host of Brain Games born?" -- a host holds the role for a time
    and the page called it his second season, so "the host of" named no one person. A host
    reaches no bridge or chain (the show may still be compared or described by its host).
    Control: the same pages with the show directed by him give the bridge."""
    build_facts(store, nlp, tmp_path, {
        "Brain Games": f"Brain Games is an American television series {verb} by Keegan "
                       "Key.\nBrain Games was released in 2011.",
        "Keegan Key": "Keegan Key (born March 22, 1971) is an American actor.\n"
                      "Keegan Key was born in Southfield."})
    [g] = load_path_graphs(store, t=1)
    read = {f["relation"] for f in store.read("MATCH (f:Fact) RETURN f.relation AS relation")}
    assert f"{verb}_by" in read  # the fact is there either way: the form decides
    hops = {tuple(f.relation for f in p.facts) for p in g.paths if p.form in ("bridge", "chain")}
    assert any(rels[0] == f"{verb}_by" for rels in hops) == (verb == "directed"), hops
