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
from dwqa_graph.registry import AGENTS, SCORERS
from dwqa_graph.rounds.generate import RuleGenerator
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
@click.option("--docs", type=int, default=3, show_default=True)
@click.option("--hops", type=int, default=2, show_default=True)
@click.option("--export-leak", "export", type=click.Path(path_type=Path),
              help="Write the leaked rounds as chat fine-tuning JSONL.")
@concurrency_option
@json_option
@click.pass_obj
@friendly_errors
def leaktest_cmd(settings: Settings, agent_spec: str, leaked_spec: str, n_rounds: int,
                 epsilon: float, alpha: float, static_name: str | None, scorer: str,
                 seed: int, dataset: str | None, docs: int, hops: int, export: Path | None,
                 concurrency: int, as_json: bool) -> None:
    """Leak&Test: leak round t into M_leak, score both on fresh round t+1; test the mean
    gap against epsilon (and the static leak gain with --static)."""
    from dwqa_graph.leakage.leaktest import leaktest  # scipy.stats: imported only when testing

    cfg = SampleConfig(docs=docs, hops=hops)
    with open_store(settings) as store, \
            opened_agent(agent_spec, store) as agent, \
            opened_agent(leaked_spec, store) as leaked:
        report = leaktest(store, agent, leaked, rounds=n_rounds, generator=RuleGenerator(),
                          cfg=cfg, seed=seed, dataset=dataset, epsilon=epsilon,
                          alpha=alpha, scorer=scorer, static=static_name,
                          concurrency=concurrency, export=export,
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
