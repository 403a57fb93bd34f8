"""Progress bars on stderr, so stdout stays clean for ``--json``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def progress(description: str, total: float | None) -> Iterator[Callable[[float], None]]:
    """Yield ``advance(n)``. Silent when stderr is not a terminal (CI logs, pipes)."""
    if not sys.stderr.isatty():
        yield lambda n: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)
