"""A connection to a CoreNLP worker that several commands share (``dwqa nlp serve``).

Every command that reads language (facts, expand, round verify, the decomposing agent) starts
a worker of its own, and each start loads the models again (~10 s). ``dwqa nlp serve`` keeps
one worker loaded and serves it on a Unix socket; a command finds it through
``DWQA_CORENLP_SOCKET`` and speaks the worker's own wire format to it
(``corenlp/DwqaCoreNLP.java``): "ready" once the models are loaded, then requests
``ID LENGTH[ CUES]`` + LENGTH bytes of UTF-8, replies ``ID<TAB>JSON`` in any order.

Why a Unix socket and not a TCP port: a page open in a browser on the same machine can post
to any loopback port (the reason CoreNLP's own HTTP server is not used), but it cannot reach
a Unix socket, and the socket file is its owner's alone (mode 0600).

``SocketWorker`` is the connection seen as the worker process it stands in for (``stdin``,
``stdout``, ``poll``, ``wait``, ``kill``), so ``CoreNLP``'s restart and timeout logic serve
both: a connection that drops is "a worker that died", and a restart connects again.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

from dwqa_graph.errors import LanguageError

#: Where ``dwqa nlp serve`` listens and commands look, if set.
SOCKET_ENV = "DWQA_CORENLP_SOCKET"
#: The longest path a Unix socket address takes on Linux (``sun_path`` is 108 bytes with
#: its terminating NUL).
MAX_SOCKET_PATH = 107


def socket_path(path: str | os.PathLike[str]) -> Path:
    """``path`` checked as a socket address: a clear error for one the kernel would refuse."""
    p = Path(path).expanduser().absolute()
    if len(os.fsencode(p)) > MAX_SOCKET_PATH:
        raise LanguageError(f"the socket path {p} is {len(os.fsencode(p))} bytes long; a Unix "
                            f"socket's path is at most {MAX_SOCKET_PATH}: choose a shorter one")
    return p


def shared_socket() -> Path | None:
    """The shared worker's socket ``DWQA_CORENLP_SOCKET`` names, or None when unset."""
    value = os.environ.get(SOCKET_ENV, "").strip()
    return socket_path(value) if value else None


class SocketWorker:
    """A connection to the shared worker at ``path``, with the surface of a worker process.
    Connecting fails with ``LanguageError`` naming the path and what to do."""

    stderr = None  # the server keeps the worker's own messages

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._sock.connect(os.fspath(path))
        except OSError as exc:
            self._sock.close()
            raise LanguageError(
                f"no shared CoreNLP worker answers at {path} ({exc.strerror or exc}): start "
                f"one with `dwqa nlp serve --socket {path}`, or unset {SOCKET_ENV} to start "
                "a worker for this command alone") from None
        self.stdin = self._sock.makefile("wb")
        self.stdout = self._sock.makefile("rb")
        self._closed = False

    def poll(self) -> int | None:
        return 0 if self._closed else None

    def wait(self, timeout: float | None = None) -> int:
        # Nothing to wait for: the worker is the server's and goes on serving others.
        self.kill()
        return 0

    def kill(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
