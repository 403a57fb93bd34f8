"""Rounds with or without time-sensitive items (``round new --time-sensitive``), on a real
local web (loopback HTTP, the real fetcher), real CoreNLP and the real Neo4j.

Each seed graph cites a film's page and its director's page, so its path is the bridge "In
what year was the director of X born?". Half of the films' pages state the director in the
present ("X is directed by D.": a claim about now), half in the past ("X was directed by
D."); the director pages are past ("D was born on ..."). Which films are which is fixed
here, not read from the marks the code makes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.errors import UsageError
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import export_rows, new_round, show_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve

from .test_verify import ADJ, FIRST, LAST, NOUN, html, slug

#: Films per tense.
PER_TENSE = 6


def build(store: Store, nlp: CoreNLP, root: Path, tmp: Path) -> dict[str, bool]:
    """The web and its seed graphs; film -> stated in the present."""
    films = [f"The {a} {n}" for a, n in zip(ADJ, NOUN, strict=True)][:2 * PER_TENSE]
    people = [f"{f} {ln}" for f, ln in zip(FIRST, LAST, strict=False)]
    present = {film: i % 2 == 0 for i, film in enumerate(films)}
    with serve(root) as site:
        lines = []
        for i, (film, person) in enumerate(zip(films, people, strict=False)):
            verb = "is" if present[film] else "was"
            (root / slug(film)).write_text(html(film, [
                f"{film} {verb} directed by {person}.",
                "It follows a family in a harbour town through one long winter."]))
            (root / slug(person)).write_text(html(person, [
                f"{person} was born on March 12, {1930 + i}.",
                "The director studied painting before turning to film."]))
            lines.append(json.dumps({
                "question": f"What do the pages about {film} say?", "answer": "things",
                "thinking": "- They say things [1].",
                "sources": [{"id": n, "url": f"{site.url}/{slug(p)}", "title": p}
                            for n, p in enumerate((film, person), 1)]}))
        log = tmp / "log.jsonl"
        log.write_text("\n".join(lines) + "\n")
        ingest(store, [log])
        got = fetch(store, FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{site.port}"})))
        assert got.failed == 0 and got.ok == 4 * PER_TENSE
    extract_facts(store, nlp=nlp)
    return present


def films_of(store: Store, t: int) -> list[str]:
    return sorted(next(p["title"] for p in i["provenance"] if p["relation"] == "directed_by")
                  for i in export_rows(store, t))


def test_rounds_draw_with_or_without_time_sensitive_items(
        store: Store, nlp: CoreNLP, tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "web"
    root.mkdir()
    present = build(store, nlp, root, tmp_path)
    now = sorted(f for f, p in present.items() if p)
    past = sorted(f for f, p in present.items() if not p)
    gen = PathGenerator(nlp=nlp)
    # the positive control: a round that draws any path has an item for every film of both
    anyr = new_round(store, seed=1, generator=gen, cfg=SampleConfig(reuse="allow"))
    assert films_of(store, anyr.round) == sorted(present)
    without = new_round(store, seed=1, generator=gen,
                        cfg=SampleConfig(reuse="allow", time_sensitive="exclude"))
    assert films_of(store, without.round) == past
    only = new_round(store, seed=1, generator=gen,
                     cfg=SampleConfig(reuse="allow", time_sensitive="only"))
    assert films_of(store, only.round) == now
    # the knob is part of θ (a round without it keeps the θ it had before the knob)
    thetas = [show_round(store, r.round)["theta"]["sampling"] for r in (anyr, without, only)]
    assert [s.get("time_sensitive") for s in thetas] == [None, "exclude", "only"]
    assert len({anyr.theta_hash, without.theta_hash, only.theta_hash}) == 3
    # the CLI: the marks are stored on the facts, so no CoreNLP is started for them again
    result = CliRunner().invoke(main, ["round", "new", "--seed", "2", "--reuse", "allow",
                                       "--time-sensitive", "exclude", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert films_of(store, json.loads(result.stdout)["round"]) == past
    bad = CliRunner().invoke(main, ["round", "new", "--seed", "3", "--time-sensitive",
                                    "sometimes"], env=env)
    assert bad.exit_code == 2 and "'sometimes' is not one of" in bad.output
    # only fact paths know their facts' sentences: another generator is told so
    with pytest.raises(UsageError, match="needs the paths generator"):
        new_round(store, seed=3, generator=Quoting(),  # type: ignore[arg-type]
                  cfg=SampleConfig(time_sensitive="only"))


class Quoting:
    """A generator that is not the paths generator (only its name is read first)."""

    name = "quoting"
