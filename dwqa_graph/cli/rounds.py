"""``dwqa round``: make, inspect, export and freeze rounds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import click

from dwqa_graph.cli.common import (
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
    registry_option,
)
from dwqa_graph.cli.web import _options as fetch_options_of, fetch_options
from dwqa_graph.config import Settings
from dwqa_graph.registry import GENERATORS
from dwqa_graph.rounds.generate import make_generator
from dwqa_graph.rounds.round import (
    PREDECESSOR_WAIT_SECONDS,
    collisions,
    export_round,
    freeze_round,
    list_rounds,
    new_round,
    show_round,
)
from dwqa_graph.rounds.sampling import (
    DEFAULT_CONSTRAINTS,
    DEFAULT_HOPS,
    Reuse,
    SampleConfig,
    TimeSensitive,
)
from dwqa_graph.rounds.verify import verify_round


@click.group("round")
def round_group() -> None:
    """Dynamic rounds: one fresh, checked QA item per seed graph."""


class RangeType(click.ParamType):
    """``N`` or ``LO-HI`` (0 <= LO <= HI), as a pair."""

    name = "range"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[int, int]:
        if isinstance(value, tuple):
            return value  # type: ignore[return-value]
        lo, _, hi = str(value).strip().partition("-")
        try:
            pair = (int(lo), int(hi or lo))
        except ValueError:
            self.fail(f"{value!r} is not N or LO-HI (e.g. 3 or 2-4)", param, ctx)
        if pair[0] < 0 or pair[1] < pair[0]:
            self.fail(f"{value!r}: want 0 <= LO <= HI", param, ctx)
        return pair


def _int_list(text: str | None) -> list[int] | None:
    return [int(x) for x in text.split(",") if x.strip()] if text else None


@round_group.command("new")
@click.option("--seed", type=int, required=True, help="Round seed: r_i,t = H(seed, graph id).")
@registry_option("--generator", "generator_name", default="paths", show_default=True,
                 registry=GENERATORS, help="QA generator:")
@llm_option
@click.option("--dataset", help="Only the seed graphs of this dataset.")
@click.option("--round", "round_t", type=int, help="Regenerate this (unfrozen) round.")
@click.option("--reuse", type=click.Choice(list(get_args(Reuse))),
              default="fresh", show_default=True,
              help="Facts round t-1's items used: no item computed from them alone "
                   "(fresh; an item may share one with a new fact), none of them at all "
                   "(disjoint; a graph without another path sits the round out), only "
                   "where nothing else is left (avoid), like any other (allow), or only "
                   "they (prefer).")
@click.option("--max-per-fact", type=click.IntRange(min=1),
              help="At most this many of the round's items name one fact (default: no cap; "
                   "seed graphs citing one page share its facts, and a cap costs items).")
@click.option("--wait", type=click.FloatRange(min=0), default=PREDECESSOR_WAIT_SECONDS,
              show_default=True, metavar="SECONDS",
              help="Longest wait for round t-1 to be written by a concurrent `round new` "
                   "(its facts are what --reuse steers against).")
@click.option("--time-sensitive", "time_sense", type=click.Choice(list(get_args(TimeSensitive))),
              default="any", show_default=True,
              help="Draw every path (any), only paths with a fact read from a claim about "
                   "now -- present tense, 'currently', 'as of' (only) -- or only paths "
                   "without one (exclude). Marks facts not marked yet with CoreNLP.")
@click.option("--hops", type=RangeType(), default="-".join(map(str, DEFAULT_HOPS)),
              show_default=True, metavar="N or LO-HI",
              help="Sentences a reader must find to reach the answer (2: bridges, "
              "comparisons, temporal pairs; 3-4: chains).")
@click.option("--sources", type=click.IntRange(min=1), default=1, show_default=True,
              help="The least number of distinct documents an item needs.")
@click.option("--constraints", type=RangeType(),
              default="-".join(map(str, DEFAULT_CONSTRAINTS)), show_default=True,
              metavar="N or LO-HI",
              help="Facts describing an entity in place of its name (0, or 2: \"the film "
                   "released in 1997 and written by X\").")
@json_option
@click.pass_obj
@friendly_errors
def round_new(settings: Settings, seed: int, generator_name: str, llm_spec: str | None,
              dataset: str | None, round_t: int | None,
              reuse: Reuse, max_per_fact: int | None, wait: float, time_sense: TimeSensitive,
              hops: tuple[int, int], sources: int, constraints: tuple[int, int],
              as_json: bool) -> None:
    """Create round t: draw, word, check and store one QA item per seed graph."""
    gen = make_generator(generator_name, llm=open_llm(llm_spec, concurrency=8))
    with open_store(settings) as store:
        report = new_round(store, seed=seed, generator=gen,
                           cfg=SampleConfig(reuse=reuse, max_per_fact=max_per_fact,
                                            time_sensitive=time_sense, hops=hops,
                                            sources=sources, constraints=constraints),
                           dataset=dataset, t=round_t, wait=wait)

    def human() -> None:
        click.echo(f"round {report.round}: {report.items} items for {report.graphs} seed graphs "
                   f"({report.no_item} without a valid candidate) {report.patterns}")
        click.echo(f"  by hops {report.hops}, sources {report.sources}, constraints "
                   f"{report.constraints}")
        q = report.set_quality
        click.echo(f"  no item: {report.no_item_reasons}; rejected: {report.rejected_by_reason}")
        click.echo(f"  two-option share {q['two_option_share']}, answer types "
                   f"{q['answer_types']}, {q['phrasings']} phrasings, median K "
                   f"{q['median_k']}, collision bound at {q['collision_bound']['rounds']} "
                   f"rounds {q['collision_bound']['bound']}")
        click.echo(f"  one fact in at most {q['most_items_naming_one_fact']} items; "
                   f"{q['items_on_a_repeated_fact_pair']} items on a repeated pair of facts")
        if report.graphs and not report.items and set(report.no_item_reasons) == {"no_path"}:
            # An empty deep round is what a graph without chains gives, not a failure: say
            # where the pool per setting is counted and how a graph grows.
            click.echo(f"  no seed graph holds a path at --hops {hops[0]}-{hops[1]} --sources "
                       f"{sources} --constraints {constraints[0]}-{constraints[1]}: `dwqa round "
                       f"collisions --checked` counts the paths per setting, and `dwqa expand` "
                       f"adds pages for entities a graph names without a page of their own")

    emit(as_json, report.model_dump(), human)


@round_group.command("list")
@json_option
@click.pass_obj
@friendly_errors
def round_list(settings: Settings, as_json: bool) -> None:
    """Every round: seed, generator, θ hash, items, frozen."""
    with open_store(settings) as store:
        rows = list_rounds(store)
    emit(as_json, rows, lambda: echo_lines(
        # a round still being generated (or whose run died) has no seed, generator or θ yet
        f"{r['t']:>4}  seed {r['seed']!s:<8} {r['generator'] or '-':<12} θ {r['theta_hash']}  "
        f"{r['items']:>5} items  {'frozen' if r['frozen'] else ''}"
        f"{'generating' if r['status'] == 'generating' else ''}" for r in rows))


@round_group.command("show")
@click.argument("t", type=int)
@json_option
@click.pass_obj
@friendly_errors
def round_show(settings: Settings, t: int, as_json: bool) -> None:
    """A round's settings, pattern counts, rejections and NO_ITEM reasons, and example
    items."""
    with open_store(settings) as store:
        info = show_round(store, t)

    def text() -> None:
        q = info.get("quality") or {}
        click.echo(f"round {info['t']}: seed {info['seed']}, {info['generator']}, "
                   f"θ {info['theta_hash']}, {info['items']} items, {info['no_item']} without "
                   f"an item{', frozen' if info['frozen'] else ''}")
        click.echo(f"patterns: {info['patterns']}")
        click.echo("items by " + "; ".join(f"{k} {v}" for k, v in info["levels"].items()))
        if q:
            click.echo(f"candidates tried: {q.get('attempts')}; coverage {q.get('coverage')}")
            click.echo(f"rejections by reason: {q.get('rejected_by_reason')}")
            click.echo(f"NO_ITEM reasons: {q.get('no_item_reasons')}")
        for ex in info["examples"]:
            click.echo(f"- [{ex['pattern']}, hops {ex['hops']}, sources {ex['sources']}, "
                       f"constraints {ex['constraints']}] {ex['question']} -> {ex['answer']}")

    emit(as_json, info, text)


@round_group.command("export")
@click.argument("t", type=int)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="JSONL file.")
@json_option
@click.pass_obj
@friendly_errors
def round_export(settings: Settings, t: int, out: Path, as_json: bool) -> None:
    """Write a round's items with provenance (claims, spans, offsets, URLs) as JSON lines."""
    with open_store(settings) as store:
        n = export_round(store, t, out)
    emit(as_json, {"round": t, "items": n, "out": str(out)},
         lambda: click.echo(f"wrote {n} items of round {t} to {out}"))


@round_group.command("freeze")
@click.argument("t", type=int)
@json_option
@click.pass_obj
@friendly_errors
def round_freeze(settings: Settings, t: int, as_json: bool) -> None:
    """Freeze round t for snapshot evaluation: it is never modified afterwards."""
    with open_store(settings) as store:
        info = freeze_round(store, t)
    emit(as_json, info, lambda: click.echo(f"round {t} frozen at {info['frozen_at']}"))


@round_group.command("collisions")
@click.option("--rounds", "rounds_text", metavar="T1,T2,...", help="Rounds (default: all).")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="Target collision probability for the K-needed figures.")
@click.option("--simulate", "trials", type=int, default=0,
              help="Monte-Carlo trials per graph (0: none).")
@click.option("--checked", is_flag=True,
              help="Count in K only the paths whose wording passes every check against its "
                   "pages (the candidates a rule round can draw; about a second per "
                   "full-page graph), and report K and the bound per complexity setting "
                   "(hops 2, 3, 4; constraints 2). Default: the paths a template words, an "
                   "upper bound.")
@json_option
@click.pass_obj
@friendly_errors
def round_collisions(settings: Settings, rounds_text: str | None, delta: float, trials: int,
                     checked: bool, as_json: bool) -> None:
    """Candidate pool size K, overlap J_max, observed repeats and the collision bound."""
    with open_store(settings) as store:
        stats = collisions(store, _int_list(rounds_text), delta, trials, checked=checked)
    def human() -> None:
        click.echo(json.dumps(stats["aggregate"], indent=2))
        for name, row in stats.get("by_setting", {}).items():
            click.echo(f"{name}: median K {row['median_k']} ({row['graphs_with_k']} graphs "
                       f"with one), bound at T = {row['rounds']}: {row['bound']}")

    emit(as_json, stats, human)


@round_group.command("verify")
@click.argument("t", type=int)
@fetch_options
@click.option("--time-sensitive", "mark", is_flag=True,
              help="Also mark the items whose facts come from a present-tense or 'as of' "
                   "claim (parses their sentences with CoreNLP).")
@json_option
@click.pass_obj
@friendly_errors
def round_verify(settings: Settings, t: int, concurrency: int, per_host: int,
                 timeout: float, max_bytes: int, allow_private: bool,
                 allow_hosts: tuple[str, ...], deadline: float, mark: bool,
                 as_json: bool) -> None:
    """Re-fetch the pages of round t's items and re-check each item: holds, changed (with
    the new answer), unsupported (a fact's sentence is gone) or unreachable."""
    opts = fetch_options_of(concurrency, per_host, timeout, max_bytes, allow_private,
                            allow_hosts, deadline)
    with open_store(settings) as store:
        report = verify_round(store, t, opts, mark_time_sensitive=mark)

    def human() -> None:
        c = report.counts
        click.echo(f"round {t}: {report.items} items over {report.pages} pages: "
                   f"{c['holds']} hold, {c['changed']} changed, {c['unsupported']} "
                   f"unsupported, {c['unreachable']} unreachable"
                   + (f"; {report.time_sensitive} time-sensitive"
                      if report.time_sensitive is not None else ""))
        for r in report.results:
            if r.status == "changed":
                click.echo(f"- changed: {r.question} {r.original_answer} -> {r.answer}")
            elif r.status != "holds":
                click.echo(f"- {r.status}: {r.question} ({r.reason})")

    emit(as_json, report.model_dump(), human)
