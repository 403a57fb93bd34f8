"""A loopback OpenAI-compatible chat server that replays recorded replies by prompt hash.

Key: sha256 of the request's ``messages`` (JSON, keys sorted). A prompt with no recorded
reply is kept in ``missing`` (and answered with ``[]``, i.e. "no item"), so the same server
records the prompts a generator sends: run once, write the replies, run again to replay.
Used by tests/test_path_wording.py and tests/test_react_agent.py, and to record their
fixtures.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def prompt_hash(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False)
                          .encode()).hexdigest()


class ReplayServer:
    """``replies``: prompt hash -> reply text. ``sequence``: replies served in order whatever
    the prompt (a scripted model); an entry that is a dict is the whole assistant message,
    e.g. with ``tool_calls`` as the chat API sends them. Every request body is kept in
    ``requests``."""

    def __init__(self, replies: dict[str, str],
                 sequence: list[str | dict[str, Any]] | None = None) -> None:
        self.replies = replies
        self.sequence = list(sequence or [])
        self.missing: dict[str, list[dict[str, Any]]] = {}
        self.requests: list[dict[str, Any]] = []
        self.served = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                key = prompt_hash(body["messages"])
                reply: str | dict[str, Any] | None = (
                    server.sequence.pop(0) if server.sequence else server.replies.get(key))
                if reply is None:
                    server.missing[key] = body["messages"]
                    reply = "[]"
                server.served += 1
                message = reply if isinstance(reply, dict) else {"role": "assistant",
                                                                 "content": reply}
                out = json.dumps({"choices": [{"message": message,
                                               "finish_reason": "stop"}],
                                  "usage": {"prompt_tokens": 0, "completion_tokens": 0,
                                            "total_tokens": 0}}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@contextmanager
def replay(replies: dict[str, str],
           sequence: list[str | dict[str, Any]] | None = None) -> Iterator[ReplayServer]:
    srv = ReplayServer(replies, sequence)
    thread = threading.Thread(target=srv.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
