"""Verifying past rounds against a real local web whose pages change between fetches (real
HTTP on loopback, the real fetcher and SSRF guard, real CoreNLP, real Neo4j).

The web is built here: one seed graph per film, citing the film's page ("X is a drama film
directed by D.") and its director's page ("D was born on March 12, 1950."), so each
graph's one path is the bridge "In what year was the director of X born?". After the round
is made, a constructed set of changes is applied to the pages:

- ``moved``: the director's birth year moves (the item changes; its new answer is the new
  year);
- ``replaced``: the film's director is replaced by another person whose page the graph
  also cites (the item changes; its new answer is that person's year);
- ``deleted``: the director page's birth sentence is deleted (the item loses support);
- ``contradicted``: the director's page keeps its birth sentence and gains a second one with
  another year (the item loses support: its answer is no longer the one the page states --
  re-matching the old sentence alone would call it "holds");
- ``gone``: the film's page is deleted (404: the item is unreachable);
- ``edited``: a sentence about something else is added to the director's page (a new page
  version, the same facts: the item holds -- the positive control for "changed page"
  without a changed answer);

and every other graph's pages are left alone (they hold: no false alarm).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.evaluation.agents.base import AgentAnswer
from dwqa_graph.evaluation.evaluate import evaluate, round_items_basis
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.report.data import gather
from dwqa_graph.report.models import ReportData, VerifyRow
from dwqa_graph.report.render import render_report
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import collisions, export_rows, freeze_round, new_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.rounds.timesense import time_sensitive
from dwqa_graph.rounds.verify import latest, verify_round
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve

from .conftest import EXAMPLES

FIRST = ("Thomas", "Maria", "Peter", "Anna", "David", "Laura", "Michael", "Sarah", "Daniel",
         "Emma", "Robert", "Julia", "Simon", "Clara", "Martin")
LAST = ("Walker", "Hartley", "Brennan", "Lindqvist", "Morrow", "Ashford", "Keller",
        "Donovan", "Whitaker", "Sandberg", "Foley", "Prescott")
ADJ = ("Silent", "Northern", "Broken", "Golden", "Quiet", "Distant", "Hidden", "Last",
       "Winter", "Burning", "Lonely", "Crimson")
NOUN = ("River", "Harbour", "Garden", "Station", "Mountain", "Lantern", "Bridge", "Orchard",
        "Island", "Valley", "Lighthouse", "Meadow")
#: The constructed changes: how many seed graphs each touches (>= 30 changed in all; with
#: the untouched ones at most the 144 titles ADJ x NOUN make).
GROUPS = {"moved": 10, "replaced": 10, "deleted": 6, "contradicted": 4, "gone": 6,
          "edited": 8}
UNSUPPORTED = GROUPS["deleted"] + GROUPS["contradicted"]
#: Seed graphs left alone (>= 100).
UNTOUCHED = 100
FILMS = sum(GROUPS.values()) + UNTOUCHED
YEARS_MOVED = 3


def html(title: str, paragraphs: list[str]) -> str:
    body = "\n".join(f"      <p>{p}</p>" for p in paragraphs)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n"
            f"  <title>{title} - OpenTownWiki</title>\n</head>\n<body>\n  <main>\n"
            f"    <article>\n      <h1>{title}</h1>\n{body}\n    </article>\n  </main>\n"
            f"</body>\n</html>\n")


def slug(name: str) -> str:
    return name.lower().replace(" ", "-") + ".html"


class Web:
    """The films, their directors and the replacement directors, as files of a folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        people = [f"{f} {ln}" for ln in LAST for f in FIRST]
        self.films = [f"The {a} {n}" for a in ADJ for n in NOUN][:FILMS]
        self.director = dict(zip(self.films, people, strict=False))
        self.born = {p: 1920 + i % 60 for i, p in enumerate(people)}
        # which films each change touches, in order
        self.group: dict[str, str] = {}
        at = 0
        for name, n in GROUPS.items():
            for film in self.films[at:at + n]:
                self.group[film] = name
            at += n
        replaced = [f for f in self.films if self.group.get(f) == "replaced"]
        self.stand_in = dict(zip(replaced, people[FILMS:], strict=False))
        for film in self.films:
            self.write_film(film, self.director[film])
            self.write_person(self.director[film])
        for p in self.stand_in.values():
            self.write_person(p)

    def write_film(self, film: str, director: str) -> None:
        (self.root / slug(film)).write_text(html(film, [
            f"{film} is a drama film directed by {director}.",
            "It follows a family in a harbour town through one long winter."]))

    def write_person(self, person: str, *, born: bool = True, extra: str = "") -> None:
        lead = [f"{person} is a film director from the coast."] + (
            [f"{person} was born on March 12, {self.born[person]}."] if born else [])
        (self.root / slug(person)).write_text(html(person, [
            " ".join(lead), "The director studied painting before turning to film." + extra]))

    def log(self, path: Path, url: str) -> Path:
        with path.open("w") as fh:
            for film in self.films:
                pages = [film, self.director[film]] + (
                    [self.stand_in[film]] if film in self.stand_in else [])
                fh.write(json.dumps({
                    "question": f"What do the pages about {film} say?", "answer": "things",
                    "thinking": "- They say things [1].",
                    "sources": [{"id": i, "url": f"{url}/{slug(p)}", "title": p}
                                for i, p in enumerate(pages, 1)]}) + "\n")
        return path

    def change(self) -> None:
        """Apply the constructed changes."""
        for film, name in self.group.items():
            person = self.director[film]
            if name == "moved":
                self.born[person] += YEARS_MOVED
                self.write_person(person)
            elif name == "replaced":
                self.write_film(film, self.stand_in[film])
            elif name == "deleted":
                self.write_person(person, born=False)
            elif name == "contradicted":
                self.write_person(person, extra=f" {person} was born on March 12, "
                                                f"{self.born[person] + YEARS_MOVED}.")
            elif name == "gone":
                (self.root / slug(film)).unlink()
            elif name == "edited":
                self.write_person(person, extra=" The director also taught at a film "
                                                "school for many years.")


def test_verify_reports_a_constructed_set_of_changes_exactly(
        store: Store, nlp: CoreNLP, tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "web"
    root.mkdir()
    web = Web(root)
    with serve(root) as site:
        opts = FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{site.port}"}), workers=1)
        ingest(store, [web.log(tmp_path / "log.jsonl", site.url)])
        first = fetch(store, opts)
        assert first.failed == 0 and first.ok == FILMS * 2 + GROUPS["replaced"]
        extract_facts(store, nlp=nlp)
        made = new_round(store, seed=1, generator=PathGenerator(),
                         cfg=SampleConfig(reuse="allow"))
        items = export_rows(store, made.round)
        # every graph has its item: the bridge through the film's director to his birth
        assert made.items == FILMS, made.no_item_reasons
        film_of = {i["id"]: next(p["title"] for p in i["provenance"]
                                 if p["relation"] == "directed_by") for i in items}
        assert all(i["pattern"] == "bridge" for i in items)
        assert all(str(web.born[web.director[film_of[i["id"]]]]) in i["answer"]
                   for i in items)
        old_born = dict(web.born)
        web.change()
        report = verify_round(store, made.round, opts, nlp=nlp)

        by_item = {c.item_id: c for c in report.results}
        expected = {i["id"]: {"moved": "changed", "replaced": "changed",
                              "deleted": "unsupported", "contradicted": "unsupported",
                              "gone": "unreachable"}.get(
                                  web.group.get(film_of[i["id"]], ""), "holds")
                    for i in items}
        got = {i: c.status for i, c in by_item.items()}
        wrong = {i: (film_of[i], expected[i], got[i], by_item[i].reason) for i in expected
                 if expected[i] != got[i]}
        assert not wrong
        assert report.counts == {"holds": UNTOUCHED + GROUPS["edited"], "changed": 20,
                                 "unsupported": UNSUPPORTED, "unreachable": 6}
        for i in items:
            check, film = by_item[i["id"]], film_of[i["id"]]
            group, director = web.group.get(film), web.director[film]
            year = str(old_born[director])
            if group == "moved":
                assert check.answer == i["answer"].replace(year, str(web.born[director]))
                assert check.answer != i["answer"]
                assert any(str(web.born[director]) in s.sentence for s in check.sentences)
            elif group == "replaced":
                stand_in = web.stand_in[film]
                assert check.answer == i["answer"].replace(year, str(web.born[stand_in]))
                assert {s.sentence for s in check.sentences} >= {
                    f"{film} is a drama film directed by {stand_in}."}
            elif group == "deleted":
                assert check.answer is None and director in check.reason
            elif group == "contradicted":
                assert check.answer is None and "2 values of" in check.reason
                assert year in check.reason and str(int(year) + YEARS_MOVED) in check.reason
            elif group == "gone":
                assert check.answer is None and "http_404" in check.reason
                assert slug(film) in check.reason
            else:
                assert check.answer == i["answer"]
            if group != "gone":
                # checked against the pages' versions now
                assert len(check.versions) == len(i["provenance"])
        # the edited pages are new versions, and their items were re-matched, not skipped
        edited = [by_item[i["id"]] for i in items if web.group.get(film_of[i["id"]]) == "edited"]
        assert all(c.versions != [p["version_id"] for p in i["provenance"]]
                   for c, i in zip(edited, [i for i in items if web.group.get(
                       film_of[i["id"]]) == "edited"], strict=True))
        # stored on the items: the latest verification of each
        stored = latest(store, made.round)
        assert {i: r["status"] for i, r in stored.items()} == got
        # freezing the round records the verification it froze; a frozen round can still be
        # verified (its items are not modified)
        assert freeze_round(store, made.round)["verification"] == report.run_id
        # a second run over the same web (through the CLI, --json) converges on the same
        result = CliRunner().invoke(main, ["round", "verify", str(made.round), "--allow-host",
                                           f"127.0.0.1:{site.port}", "--json"], env=env)
        assert result.exit_code == 0, result.output
        again = json.loads(result.stdout)
        assert again["counts"] == report.counts
        assert {r["item_id"]: r["status"] for r in again["results"]} == got
    [runs] = store.read("MATCH (:Round {t: $t})-[:VERIFIED]->(x:VerifyRun) "
                        "RETURN count(x) AS n, COUNT { (:Verification) } AS checks",
                        {"t": made.round})
    assert runs == {"n": 2, "checks": 2 * FILMS}
    # the report's table of the round over time: one row per verification run
    shown = gather(store).verification
    assert [(v.round, v.holds, v.changed, v.unsupported, v.unreachable) for v in shown] == [
        (made.round, UNTOUCHED + GROUPS["edited"], 20, UNSUPPORTED, 6)] * 2

    # evaluation on the verified round: an agent that answers what the web says now is right
    # on every item scored against the answers that hold now, and the unsupported items are
    # left out; scored against the original answers (--original) it loses the changed ones
    now = {c.question: c.answer or c.original_answer for c in report.results}
    agent = Answering(now)
    verified, basis = round_items_basis(store, made.round)
    assert basis is not None and basis.answers == "verified"
    assert (len(verified), basis.changed, basis.unsupported, basis.unverified) == (
        FILMS - UNSUPPORTED, 20, UNSUPPORTED, 6)
    scored, _ = evaluate(store, agent, verified, target=f"round:{made.round}",
                         round_t=made.round, answers=basis)
    assert scored.scores["em"].score == 1.0 and scored.answers == basis
    snapshot, basis = round_items_basis(store, made.round, original=True)
    assert len(snapshot) == FILMS and basis is not None and basis.answers == "original"
    scored, _ = evaluate(store, agent, snapshot, target=f"round:{made.round}",
                         round_t=made.round, answers=basis)
    assert scored.scores["em"].score == pytest.approx((FILMS - 20) / FILMS)

    # drift measured: a round drawn after the verification's fetch sees the pages' current
    # versions; `round collisions` reports J between the two rounds beside K, comparing the
    # candidates by what their facts state. Untouched graphs (and those whose film page is
    # gone: its last version stays current) keep their paths (J = K), and so do graphs whose
    # director page was edited elsewhere (a new version, the same facts); where a fact of
    # the path changed or went, the paths through it are not shared (J < K: the positive
    # control)
    later = new_round(store, seed=2, generator=PathGenerator(), cfg=SampleConfig(reuse="allow"))
    stats = collisions(store, rounds=[made.round, later.round])["graphs"]
    drift = {film_of[i["id"]]: (stats[i["query_id"]]["k_per_round"][0],
                                stats[i["query_id"]]["j_consecutive"]) for i in items}
    for film, (k, [j]) in drift.items():
        moved = web.group.get(film) in ("moved", "replaced", "deleted", "contradicted")
        assert k >= 1 and (j < k if moved else j == k), (film, web.group.get(film), k, j)
    assert sum(web.group.get(f) == "edited" for f in drift) == GROUPS["edited"]


class Answering:
    """An agent that answers from a table (question -> answer)."""

    spec = "table"

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def answer(self, question: str) -> AgentAnswer:
        return AgentAnswer(answer=self.table[question])

    def close(self) -> None:
        pass


def test_an_unchanged_web_raises_no_false_alarm_over_five_rounds(
        store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    """The example corpus as the demo builds it, five rounds, every page fetched again
    unchanged: every item of every round holds."""
    with serve(EXAMPLES / "web") as site:
        logs = []
        for name in ("agent_runs", "film_runs"):
            log = tmp_path / f"{name}.jsonl"
            log.write_text((EXAMPLES / "logs" / f"{name}.jsonl").read_text()
                           .replace("http://127.0.0.1:8765", site.url))
            logs.append(log)
        ingest(store, logs, dataset="example")
        opts = FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{site.port}"}), workers=1)
        fetch(store, opts)
        extract_facts(store, nlp=nlp)
        rounds = [new_round(store, seed=s, generator=PathGenerator()) for s in range(1, 6)]
        assert sum(r.items for r in rounds) >= 20  # a positive control: there are items
        for r in rounds:
            report = verify_round(store, r.round, opts, nlp=nlp)
            assert report.fetch is not None and report.fetch.new_versions == 0
            assert report.facts is None  # nothing changed, nothing to read
            assert report.counts == {"holds": r.items, "changed": 0, "unsupported": 0,
                                     "unreachable": 0}, [
                (c.question, c.status, c.reason) for c in report.results
                if c.status != "holds"]


def test_verify_names_a_round_that_is_not_there(store: Store, env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["round", "verify", "9"], env=env)
    assert result.exit_code == 1
    assert "no round 9" in result.output and "Traceback" not in result.output



def test_the_report_shows_each_verification_run(tmp_path: Path) -> None:
    row = VerifyRow(round=3, run_id="r1", checked_at="2026-12-01T00:00:00Z", items=142,
                    holds=110, changed=20, unsupported=6, unreachable=6)
    page = render_report(ReportData(generated_at="now", verification=[row]),
                         tmp_path / "a").index_html.read_text()
    assert "verified against today" in page
    assert "<td>2026-12-01T00:00:00Z</td><td>142</td><td>110</td><td>20</td><td>6</td>" in page
    empty = render_report(ReportData(generated_at="now"), tmp_path / "b").index_html
    assert "no round verified" in empty.read_text()


#: (sentence, the fact's verb lemma or None, time-sensitive?) -- each claim about now beside
#: a twin that is not one (the same words in the past, or without the "as of").
CLAIMS = [
    ("The quiz show is hosted by Anna Keller.", "host", True),
    ("The quiz show was hosted by Anna Keller.", "host", False),
    ("Harbourton has a population of 5,000.", None, True),
    ("Harbourton had a population of 5,000.", None, False),
    ("Keller has won four national titles.", "win", True),
    ("Keller won four national titles.", "win", False),
    ("As of 2023, the club had 40 members.", None, True),
    ("In 2023, the club had 40 members.", None, False),
    ("The Silent River is a drama film directed by Thomas Walker.", "direct", False),
    ("Thomas Walker was born on March 12, 1950.", "bear", False),
]


def test_time_sensitive_claims_are_read_from_the_parse(nlp: CoreNLP) -> None:
    got = time_sensitive(nlp, [(s, v) for s, v, _ in CLAIMS])
    wrong = [(s, want) for (s, _, want), g in zip(CLAIMS, got, strict=True) if g != want]
    assert not wrong
