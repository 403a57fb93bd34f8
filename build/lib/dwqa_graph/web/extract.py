"""Main text, title and date of an HTML page, with trafilatura.

One function, used by ``fetch`` (in a process pool) and by the local web's search index,
so a page is read the same way everywhere.
"""

from __future__ import annotations

import re
from importlib.metadata import version

import trafilatura
from pydantic import BaseModel

EXTRACTOR = f"trafilatura/{version('trafilatura')}"
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class Extracted(BaseModel):
    text: str
    title: str = ""
    date: str | None = None
    extractor: str = EXTRACTOR


def extract(html: str, url: str | None = None, content_type: str = "text/html") -> Extracted:
    """Extract the main text; plain-text bodies pass through unchanged. Never raises on
    odd markup: an empty ``text`` means "nothing usable" and callers record that."""
    if content_type.startswith("text/plain"):
        return Extracted(text=html.strip(), extractor="plain")
    try:
        doc = trafilatura.bare_extraction(
            html, url=url, include_comments=False, include_tables=True, favor_precision=True,
            with_metadata=True,
        )
    except Exception:  # trafilatura/lxml raise many types on hostile markup
        doc = None
    if doc is None:
        m = _TITLE.search(html)
        return Extracted(text="", title=" ".join(m.group(1).split()) if m else "")
    # bare_extraction returns a Document (or a dict with as_dict=True): read both alike.
    get = doc.get if isinstance(doc, dict) else lambda k: getattr(doc, k, None)
    return Extracted(text=(get("text") or "").strip(), title=get("title") or "",
                     date=get("date"))
