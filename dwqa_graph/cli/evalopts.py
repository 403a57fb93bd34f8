"""Options and helpers the evaluation commands share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import click

from dwqa_graph.cli.common import (
    open_llm,
    registry_option,
)
from dwqa_graph.errors import UsageError
from dwqa_graph.evaluation.agents import Agent, make_agent
from dwqa_graph.evaluation.datasets import static_items
from dwqa_graph.evaluation.evaluate import (
    EvalReport,
    check_scorers,
    round_items,
)
from dwqa_graph.graph.store import Store
from dwqa_graph.models import EvalItem
from dwqa_graph.registry import AGENTS


def parse_rounds(text: str) -> list[int]:
    """``3``, ``1,2,5`` or ``2-6`` (ranges inclusive) -> sorted distinct round numbers."""
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            out.update(range(int(lo), int(hi) + 1) if sep else [int(lo)])
        except ValueError:
            raise UsageError(f"bad round list {text!r}: use 3, 1,2,5 or 2-6") from None
    if not out:
        raise UsageError("no rounds given")
    return sorted(out)


def parse_scorers(text: str) -> list[str]:
    scorers = [s.strip() for s in text.split(",") if s.strip()]
    check_scorers(scorers)
    return scorers


@contextlib.contextmanager
def opened_agent(spec: str, store: Store, reader_spec: str | None = None) -> Iterator[Agent]:
    agent = make_agent(spec, store=store, reader_llm=open_llm(reader_spec))
    try:
        yield agent
    finally:
        agent.close()


agent_option = registry_option(
    "--agent", "agent_spec", required=True, metavar="SPEC", registry=AGENTS,
    help="The agent under evaluation:")
reader_option = click.option("--reader-llm", "reader_spec", metavar="SPEC",
                             help="Optional LLM reader for the baseline agent.")
concurrency_option = click.option("--concurrency", type=int, default=4, show_default=True,
                                  help="Questions in flight.")


def question_set(store: Store, dataset: str | None,
                  round_t: int | None) -> tuple[str, list[EvalItem]]:
    if (dataset is None) == (round_t is None):
        raise UsageError("give exactly one of --dataset NAME and --round T")
    if dataset is not None:
        return dataset, static_items(store, dataset)
    return f"round:{round_t}", round_items(store, round_t or 0)


def human_eval(r: EvalReport) -> None:
    target = r.target + (f" [{r.split}]" if r.split else "")
    if r.status == "failed":
        click.echo(f"{target}: {r.agent} on {r.n} items: FAILED, no score: {r.failure}  "
                   f"({r.errors} agent errors)  run {r.run_id}")
        return
    scores = "  ".join(f"{k} {v.score:.3f} [{v.ci_low:.3f}, {v.ci_high:.3f}]"
                       for k, v in r.scores.items())
    click.echo(f"{target}{' (snapshot)' if r.snapshot else ''}: {r.agent} on {r.n} items: "
               f"{scores}  ({r.errors} agent errors of {r.n})  run {r.run_id}")


