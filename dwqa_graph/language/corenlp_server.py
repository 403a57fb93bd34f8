"""``dwqa nlp serve``: one loaded CoreNLP worker shared by the commands of its user.

The server binds its Unix socket (mode 0600) at once and starts the worker (the models load
in ~10 s meanwhile: a command that connects early waits for its "ready"), then serves each
connection on a thread of its own in the worker's wire format (``corenlp_socket.py``). It
relays texts to its ``CoreNLP`` reader, which screens, bounds and times them and replaces a
worker that dies, exactly as for a command's own worker; a text that fails is answered with
``{"error": reason}`` and the connection goes on.

A connection is as untrusted as any input (another program of the user may hold it): a
header that is not ``ID LENGTH[ CUES]``, an ID that is not a short word, a length over what
``MAX_CHARS`` characters take, or cues that do not parse end that connection with a line
saying why, and the others go on. Bounds: ``MAX_CLIENTS`` connections at once (the next is
told "busy"), ``MAX_IN_FLIGHT`` texts of one connection at once (its next header is read
when one is answered).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import stat
import threading
from pathlib import Path
from typing import IO

from dwqa_graph.errors import LanguageError
from dwqa_graph.language.corenlp import MAX_CHARS, CoreNLP, Cues
from dwqa_graph.language.corenlp_socket import socket_path

#: Connections served at once; one more is told "busy" and closed.
MAX_CLIENTS = 16
#: Texts of one connection in flight at once (a reader keeps 2 x its threads in flight).
MAX_IN_FLIGHT = 16
#: Bytes of a request header: the ID, the length and the cues (the rules' cue set is ~600).
MAX_HEADER_BYTES = 16_384
#: Bytes of a request's text: ``MAX_CHARS`` characters of up to 4 UTF-8 bytes each.
MAX_TEXT_BYTES = 4 * MAX_CHARS
_ID = re.compile(rb"[A-Za-z0-9_-]{1,32}")


def serve(path: str | os.PathLike[str], nlp: CoreNLP, *,
          ready: threading.Event | None = None, stop: threading.Event | None = None) -> None:
    """Serve ``nlp`` on the Unix socket ``path`` until ``stop`` is set (or the process is
    interrupted); ``ready`` is set once the socket listens. ``nlp`` is started here if it has
    no worker yet, and left running for its owner to close. The socket file is removed on the
    way out."""
    where = socket_path(path)
    listener = _listen(where)
    stop = stop or threading.Event()
    clients = threading.BoundedSemaphore(MAX_CLIENTS)
    try:
        if ready is not None:
            ready.set()
        if not nlp.running:
            nlp.start()
        listener.settimeout(0.2)  # how often the loop looks at ``stop``
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            if not clients.acquire(blocking=False):
                with contextlib.suppress(OSError):
                    conn.sendall(b"busy: the shared worker serves %d connections already\n"
                                 % MAX_CLIENTS)
                conn.close()
                continue
            threading.Thread(target=_serve_connection, args=(conn, nlp, clients),
                             daemon=True).start()
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            where.unlink()


def _listen(path: Path) -> socket.socket:
    """A listening socket at ``path``, readable and writable by its owner only. A socket file
    left there by a server that died is replaced; a live server's, or a file that is no
    socket, is not."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise LanguageError(f"{path} exists and is not a socket: choose another path")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(os.fspath(path))
        except OSError:
            path.unlink()  # nobody listens: a dead server's
        else:
            raise LanguageError(f"a shared CoreNLP worker already serves {path}")
        finally:
            probe.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # the file is created 0600: no moment at which others may connect
    try:
        listener.bind(os.fspath(path))
    except OSError as exc:
        listener.close()
        raise LanguageError(f"cannot listen at {path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old)
    listener.listen(MAX_CLIENTS)
    return listener


def _serve_connection(conn: socket.socket, nlp: CoreNLP,
                      clients: threading.BoundedSemaphore) -> None:
    rfile = conn.makefile("rb")
    wfile = conn.makefile("wb")
    write_lock = threading.Lock()
    in_flight = threading.BoundedSemaphore(MAX_IN_FLIGHT)

    def send(line: bytes) -> None:
        with write_lock, contextlib.suppress(OSError, ValueError):
            wfile.write(line)
            wfile.flush()

    def answer(rid: str, text: str, cues: Cues | None) -> None:
        try:
            try:
                data = nlp.reply(text, cues)
            except LanguageError as exc:
                data = {"error": str(exc)}
            send(f"{rid}\t{json.dumps(data)}\n".encode())
        finally:
            in_flight.release()

    try:
        send(b"ready\n")
        while True:
            try:
                request = _read_request(rfile)
            except OSError:  # reset by the other end
                break
            if request is None:
                break
            if isinstance(request, str):
                send(f"refused\t{json.dumps({'error': request})}\n".encode())
                break
            in_flight.acquire()
            threading.Thread(target=answer, args=request, daemon=True).start()
    finally:
        # answers still running write to a closed file: suppressed in ``send``
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_RD)
        for _ in range(MAX_IN_FLIGHT):  # let the last answers go out first
            in_flight.acquire()
        for f in (rfile, wfile):
            with contextlib.suppress(OSError, ValueError):
                f.close()
        conn.close()
        clients.release()


def _read_request(rfile: IO[bytes]) -> tuple[str, str, Cues | None] | str | None:
    """The next request of a connection as (id, text, cues); None at its end; a string
    saying why the request is refused."""
    header = rfile.readline(MAX_HEADER_BYTES + 1)
    if not header:
        return None
    if not header.endswith(b"\n"):
        return f"a request header is one line of at most {MAX_HEADER_BYTES:,} bytes"
    parts = header.rstrip(b"\n").split(b" ", 2)
    if len(parts) < 2 or not _ID.fullmatch(parts[0]) or not parts[1].isdigit():
        return "a request header is `ID LENGTH[ CUES]`, ID a word of at most 32 characters"
    length = int(parts[1])
    if length > MAX_TEXT_BYTES:
        return f"a text of {length:,} bytes is over the limit of {MAX_TEXT_BYTES:,}"
    try:
        cues = Cues.from_wire(parts[2].decode("utf-8")) if len(parts) == 3 else None
    except (ValueError, UnicodeDecodeError) as exc:
        return f"cues that do not parse: {exc}"
    data = rfile.read(length)
    if len(data) < length:
        return None  # the connection ended inside the text
    return parts[0].decode(), data.decode("utf-8", "replace"), cues
