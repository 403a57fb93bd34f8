"""``dwqa``: a thin CLI over the Python API.

Each command reads its options, calls one library function, and prints either a short
human summary or, with ``--json``, exactly one JSON object on stdout. Errors become a
one-line message on stderr and exit code 1; bad input records are reported on stderr as
``file:line: reason: detail`` while the command keeps going.
"""

from __future__ import annotations

import click

from dwqa_graph._version import __version__
from dwqa_graph.cli.claims import claims_cmd
from dwqa_graph.cli.contamination import contamination_group
from dwqa_graph.cli.datasets import dataset_group
from dwqa_graph.cli.db import cypher_cmd, db, query_cmd
from dwqa_graph.cli.evaluate import eval_cmd, runs_group
from dwqa_graph.cli.expand import expand_cmd
from dwqa_graph.cli.facts import facts_cmd
from dwqa_graph.cli.ingest import ingest_cmd
from dwqa_graph.cli.leaktest import leaktest_cmd
from dwqa_graph.cli.nlp import nlp
from dwqa_graph.cli.report import report_cmd
from dwqa_graph.cli.rounds import round_group
from dwqa_graph.cli.web import fetch_cmd, refresh_cmd, search_cmd, web
from dwqa_graph.config import load_settings
from dwqa_graph.errors import UsageError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dwqa")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dwqa-graph: fresh multi-hop QA rounds from evidence graphs in Neo4j."""
    try:
        ctx.obj = load_settings()
    except UsageError as exc:  # a bad DWQA_* variable: one line, before any command runs
        raise click.UsageError(str(exc)) from exc


# One module per command group, in pipeline order; click lists them alphabetically.
for _command in (db, cypher_cmd, query_cmd, ingest_cmd, fetch_cmd, refresh_cmd, expand_cmd,
                 search_cmd, web, nlp, claims_cmd, facts_cmd, round_group, dataset_group, eval_cmd,
                 runs_group, contamination_group, leaktest_cmd, report_cmd):
    main.add_command(_command)

if __name__ == "__main__":
    main()
