"""``dwqa``: a thin CLI over the Python API.

Each command reads its options, calls one library function, and prints either a short
human summary or, with ``--json``, exactly one JSON object on stdout. Errors become a
one-line message on stderr and exit code 1; bad input records are reported on stderr as
``file:line: reason: detail`` while the command keeps going.
"""

from __future__ import annotations

import importlib

import click

from dwqa_graph._version import __version__
from dwqa_graph.config import load_settings
from dwqa_graph.errors import UsageError

#: Every command: name -> "module:object", in pipeline order (click lists them
#: alphabetically). A command's module is imported only when that command runs: importing
#: them all (the Neo4j driver, LangChain, the NLP and report stacks) cost every ``dwqa``
#: call about two seconds, and a pipeline script makes dozens of calls.
COMMANDS = {
    "db": "db:db", "cypher": "db:cypher_cmd", "query": "db:query_cmd",
    "ingest": "ingest:ingest_cmd", "fetch": "web:fetch_cmd", "refresh": "web:refresh_cmd",
    "expand": "expand:expand_cmd", "search": "web:search_cmd", "web": "web:web",
    "nlp": "nlp:nlp", "claims": "claims:claims_cmd", "facts": "facts:facts_cmd",
    "round": "rounds:round_group", "dataset": "datasets:dataset_group",
    "eval": "evaluate:eval_cmd", "runs": "evaluate:runs_group",
    "contamination": "contamination:contamination_group", "leaktest": "leaktest:leaktest_cmd",
    "report": "report:report_cmd",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported by name when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attr = target.split(":")
        command: click.Command = getattr(
            importlib.import_module(f"dwqa_graph.cli.{module}"), attr)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dwqa")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dwqa-graph: fresh multi-hop QA rounds from evidence graphs in Neo4j."""
    try:
        ctx.obj = load_settings()
    except UsageError as exc:  # a bad DWQA_* variable: one line, before any command runs
        raise click.UsageError(str(exc)) from exc


if __name__ == "__main__":
    main()
