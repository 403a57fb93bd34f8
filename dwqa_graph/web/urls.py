"""Document identity: one canonical form of a URL and the id a Document node is keyed by.

Ingest (a log's sources), refresh (search hits) and evaluation (an agent's retrieved pages)
must agree on which pages are the same document, so the one definition lives here, below
all three.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from dwqa_graph.models import stable_id


def normalise_url(url: str) -> str:
    """Canonical URL for document identity: case-folded scheme/host, no fragment,
    no default port, no trailing slash on a non-root path. A URL that cannot be split
    (port 99999, a broken IPv6 literal) is its own identity: the fetch stage records it
    as ``invalid_url``; it must not stop the ingest."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/")
    return urlunsplit((scheme, host, path, parts.query, ""))


def document_id(url: str) -> str:
    return stable_id("url", normalise_url(url))
