"""``dwqa leaktest``: the Leak&Test protocol."""

from __future__ import annotations

from pathlib import Path

import click

from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    open_store,
    registry_option,
)
from dwqa_graph.cli.evalopts import (
    agent_option,
    concurrency_option,
    opened_agent,
)
from dwqa_graph.config import Settings
from dwqa_graph.errors import UsageError
from dwqa_graph.registry import AGENTS, GENERATORS, SCORERS
from dwqa_graph.rounds.generate import make_generator
from dwqa_graph.rounds.sampling import SampleConfig


@click.command("leaktest")
@agent_option
@registry_option("--leaked-agent", "leaked_spec", required=True, metavar="SPEC",
                 registry=AGENTS, help="The leaked model M_leak, e.g. memorize:baseline:")
@click.option("--rounds", "n_rounds", type=int, required=True,
              help="T: fresh rounds to generate (T-1 gaps; T >= 3 for a t statistic).")
@click.option("--epsilon", type=float, default=0.02, show_default=True,
              help="Tolerance: H0 mean gap <= epsilon.")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--static", "static_name", metavar="NAME",
              help="Also leak this static benchmark whole and test the gain on it.")
@registry_option("--scorer", default="em", show_default=True, registry=SCORERS,
                 help="Answer scorer of the gaps:")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Seed of the first generated round; round j uses seed + j.")
@click.option("--dataset", help="Only the seed graphs of this dataset.")
@registry_option("--generator", "generator_name", default="paths", show_default=True,
                 registry=GENERATORS, help="QA generator of the rounds (no model):")
@click.option("--export-leak", "export", type=click.Path(path_type=Path),
              help="Write the leaked rounds as chat fine-tuning JSONL.")
@click.option("--reuse", "reuse", metavar="SETTING", default="fresh", show_default=True,
              help="Fact reuse between consecutive rounds: fresh (no item of round t+1 is "
                   "computed from round t's facts alone, the default), disjoint (round t+1 "
                   "uses none of them), avoid (only where the pool forces it), "
                   "independent, reuse (only round t's facts), or reuse:P (on a share P of "
                   "the seed graphs).")
@click.option("--reuse-settings", "reuse_settings", metavar="LIST",
              help="Leak-transfer curve: run Leak&Test once per fact-reuse setting (as for "
                   "--reuse), e.g. fresh,independent,reuse:0.5,reuse; reports measured "
                   "reuse, the collision bound and the gap test per setting.")
@concurrency_option
@json_option
@click.pass_obj
@friendly_errors
def leaktest_cmd(settings: Settings, agent_spec: str, leaked_spec: str, n_rounds: int,
                 epsilon: float, alpha: float, static_name: str | None, scorer: str,
                 seed: int, dataset: str | None, generator_name: str, export: Path | None,
                 reuse: str, reuse_settings: str | None, concurrency: int,
                 as_json: bool) -> None:
    """Leak&Test: leak round t into M_leak, score both on fresh round t+1; test the mean
    gap against epsilon (and the static leak gain with --static)."""
    from dwqa_graph.leakage.curve import parse_settings
    from dwqa_graph.leakage.leaktest import leaktest  # scipy.stats: imported only when testing

    if reuse_settings is not None:
        _curve(settings, agent_spec, leaked_spec, n_rounds, epsilon, alpha, scorer, seed,
               dataset, generator_name, reuse_settings, concurrency, as_json,
               bad=[o for o, v in (("--static", static_name), ("--export-leak", export),
                                   ("--reuse", reuse != "fresh")) if v])
        return
    chosen = parse_settings(reuse)
    if len(chosen) != 1:
        raise UsageError("--reuse takes one setting (a list is --reuse-settings)")
    s = chosen[0]
    cfg = SampleConfig(reuse=s.reuse, reuse_share=s.share)
    with open_store(settings) as store, \
            opened_agent(agent_spec, store) as agent, \
            opened_agent(leaked_spec, store) as leaked:
        report = leaktest(store, agent, leaked, rounds=n_rounds,
                          generator=make_generator(generator_name), cfg=cfg, seed=seed,
                          dataset=dataset, epsilon=epsilon, alpha=alpha, scorer=scorer,
                          static=static_name, concurrency=concurrency, export=export,
                          log=lambda s: click.echo(s, err=True))

    def human() -> None:
        if report.static:
            s = report.static
            click.echo(f"static {s['dataset']}: clean {s['a_clean']:.3f} leaked "
                       f"{s['a_leak']:.3f} gap {s['gap']:+.3f} p={s['p_value']}")
        d = report.dynamic
        click.echo(f"dynamic rounds {d['rounds']}: gaps {d['gaps']} mean {d['gap']} "
                   f"t={d['t']} df={d['df']} p={d['p_value']} (epsilon {epsilon})")

    emit(as_json, report.model_dump(), human)


def _curve(settings: Settings, agent_spec: str, leaked_spec: str, n_rounds: int,
           epsilon: float, alpha: float, scorer: str, seed: int, dataset: str | None,
           generator_name: str, reuse_settings: str, concurrency: int,
           as_json: bool, bad: list[str]) -> None:
    from dwqa_graph.leakage.curve import curve_table, leak_curve, parse_settings

    if bad:
        raise UsageError(f"--reuse-settings runs fresh rounds only: drop {', '.join(bad)}")
    chosen = parse_settings(reuse_settings)
    with open_store(settings) as store, \
            opened_agent(agent_spec, store) as agent, \
            opened_agent(leaked_spec, store) as leaked:
        curve = leak_curve(store, agent, leaked, settings=chosen, rounds=n_rounds,
                           generator=make_generator(generator_name), seed=seed,
                           dataset=dataset, epsilon=epsilon, alpha=alpha, scorer=scorer,
                           concurrency=concurrency, log=lambda s: click.echo(s, err=True))

    def fmt(x: object, spec: str = ".3f") -> str:
        return "n/a" if x is None else format(x, spec)

    def human() -> None:
        click.echo(f"leak-transfer curve {curve.id}: {curve.leaked_agent} vs {curve.agent}, "
                   f"T={curve.T}, epsilon {curve.epsilon}")
        click.echo("setting     reuse  reuse_all  K_med  bound_mean  gap     95% CI            "
                   "t       df  p")
        for row in curve_table(curve):
            lo, hi = row["ci"]
            click.echo(f"{row['setting']:<11} {fmt(row['reuse']):<6} {fmt(row['reuse_all']):<10}"
                       f" {fmt(row['k_median'], 'd') if row['k_median'] is not None else 'n/a':<6}"
                       f" {fmt(row['bound_mean']):<11} {fmt(row['gap'], '+.3f'):<7} "
                       f"[{fmt(lo, '+.3f')}, {fmt(hi, '+.3f')}] {fmt(row['t'], '.2f'):<7} "
                       f"{row['df'] if row['df'] is not None else 'n/a':<3} "
                       f"{fmt(row['p_value'], '.4f')}")

    emit(as_json, curve.model_dump(), human)
