"""``dwqa nlp serve``: one CoreNLP worker shared by the commands that read language."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from dwqa_graph.cli.common import friendly_errors


@click.group()
def nlp() -> None:
    """The language reader (Stanford CoreNLP) shared across commands."""


@nlp.command("serve")
@click.option("--socket", "path", type=click.Path(dir_okay=False, path_type=Path),
              envvar="DWQA_CORENLP_SOCKET", required=True,
              help="The Unix socket to listen at (also DWQA_CORENLP_SOCKET), e.g. "
                   "~/.cache/dwqa/corenlp.sock.")
@click.option("--threads", type=click.IntRange(1, 64), default=None,
              help="Worker threads (default: the cores, at most 4).")
@friendly_errors
def nlp_serve(path: Path, threads: int | None) -> None:
    """Keep one CoreNLP worker loaded and serve it on a Unix socket (mode 0600) until
    interrupted. Commands run with DWQA_CORENLP_SOCKET set to the same path (facts, expand,
    round verify, eval --agent decompose) use it instead of loading the models each."""
    from dwqa_graph.language.corenlp import CoreNLP, corenlp_classpath
    from dwqa_graph.language.corenlp_server import serve

    stop, ready = threading.Event(), threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # a script stops a background job with SIGTERM (a shell's `cmd &` ignores SIGINT)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # The jars first (Maven fills ~/.m2 on a first run): a script may start another Maven
    # resolution (``dwqa db up``) once the line below is printed.
    corenlp_classpath()
    click.echo(f"dwqa nlp: loading the models; commands may connect now with "
               f"DWQA_CORENLP_SOCKET={path}", err=True)
    # started by ``serve`` once the socket listens, so that commands may connect meanwhile;
    # never itself a client of the socket it serves
    reader = CoreNLP(threads=threads, shared=False)
    try:
        serve(path, reader, ready=ready, stop=stop)
    finally:
        reader.close()
