"""Stage 3 — claims: atomic claims with verified verbatim spans, per DocumentVersion.

Two extractors, one output model (``Claim``):
- ``rule`` (no model): sentence segmentation; keep self-contained declarative sentences,
  drop fragments, boilerplate, questions and sentences that open with an unresolved
  pronoun. The span is the sentence itself.
- ``llm``: the seed's claim-extraction prompt over chunks of the page; every span the
  model quotes must be found in the page (``spans.locate``) or the claim is rejected.

Every stored claim satisfies ``substring(v.text, c.start, c.end - c.start) = c.span``.
Rejections are counted per document and reason and kept as ``ClaimRejection`` nodes (never
as ``Claim``), so they can be inspected in Browser.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph._pool import process_pool
from dwqa_graph._progress import progress
from dwqa_graph.claims.spans import SpanRejected, locate, normalise
from dwqa_graph.errors import UsageError
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.language.sentences import sentence_spans
from dwqa_graph.llm import LLM, LLMFailure, LLMStats, load_prompt
from dwqa_graph.models import stable_id

EXTRACTORS = ("rule", "llm")
#: A page yields at most this many claims; more is a runaway model (counted, truncated).
MAX_CLAIMS_PER_PAGE = 60
#: Characters of page text per LLM call (small local models have 2k-token contexts).
LLM_CHUNK_CHARS = 2500


class Candidate(BaseModel):
    """A claim before verification: what an extractor proposes."""

    text: str
    span: str


class Claim(BaseModel):
    """A stored claim: its text and the verified span it was read from."""

    id: str
    version_id: str
    document_id: str
    text: str
    span: str
    start: int
    end: int
    match: str = Field(description="exact | normalised | fuzzy (how the span was located)")
    extractor: str
    prompt_hash: str | None = None


class Rejection(BaseModel):
    id: str
    version_id: str
    document_id: str
    extractor: str
    reason: str
    detail: str
    claim: str
    span: str
    score: float | None = None


class ClaimsReport(BaseModel):
    extractor: str
    versions: int = 0
    versions_with_claims: int = 0
    claims: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    failed_versions: int = 0
    seconds: float = 0.0
    documents_per_s: float = 0.0
    claims_per_s: float = 0.0
    llm: LLMStats | None = None


# -- the rule extractor ---------------------------------------------------------------------
_PRONOUN_OPENING = re.compile(
    r"^(it|its|this|that|these|those|they|them|their|he|she|his|her|hers|we|our|us|i|you|"
    r"your|my|such|both|another|but|and|or|so)\b", re.I)
_BOILERPLATE = re.compile(
    r"cookie|subscribe|newsletter|sign up|sign in|log in|click|all rights reserved|copyright|"
    r"©|privacy policy|terms of (use|service)|javascript|advertisement|share this|read more|"
    r"follow us|download the app", re.I)
_LABEL = re.compile(r"^[A-Z]{1,3}:")


def keep_sentence(s: str) -> bool:
    """Self-contained, declarative, content: the rule extractor's filter."""
    words = s.split()
    if not 6 <= len(words) <= 60:
        return False  # fragments, headings, run-ons
    if not re.search(r"[.!][\"'”’)]*$", s) or "?" in s:
        return False  # no sentence end, or a question
    if not s[0].isupper() and not s[0].isdigit():
        return False
    if _PRONOUN_OPENING.match(s) or _LABEL.match(s) or _BOILERPLATE.search(s):
        return False
    letters = sum(ch.isalpha() for ch in s)
    return letters >= 0.6 * len(s.replace(" ", ""))  # tables, number lists


def rule_candidates(text: str) -> list[tuple[int, int]]:
    out = []
    for a, b in sentence_spans(text):
        while a < b and text[a].isspace():
            a += 1
        if a < b and keep_sentence(text[a:b]):
            out.append((a, b))
    return out[:MAX_CLAIMS_PER_PAGE * 5]


def _claim(version: dict[str, Any], text: str, start: int, end: int, match: str,
           extractor: str, prompt_hash: str | None) -> dict[str, Any]:
    return Claim(
        id=stable_id(version["id"], extractor, start, end, text),
        version_id=version["id"], document_id=version["document_id"], text=text,
        span=version["text"][start:end], start=start, end=end, match=match,
        extractor=extractor, prompt_hash=prompt_hash,
    ).model_dump()


def rule_extract(versions: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Claims for a batch of versions (runs in worker processes)."""
    return [[_claim(v, v["text"][a:b], a, b, "exact", "rule", None)
             for a, b in rule_candidates(v["text"])] for v in versions]


# -- the LLM extractor --------------------------------------------------------------------
def chunks(text: str, size: int = LLM_CHUNK_CHARS) -> list[str]:
    """Paragraph-aligned windows of at most ~``size`` characters."""
    out, cur = [], ""
    for para in text.split("\n"):
        while len(para) > size:
            out.append(para[:size])
            para = para[size:]
        if cur and len(cur) + len(para) + 1 > size:
            out.append(cur)
            cur = ""
        cur = f"{cur}\n{para}" if cur else para
    if cur.strip():
        out.append(cur)
    return out


def parse_claims(data: Any) -> list[Candidate]:
    """The seed's flat format {"claim1", "supporting_text_span1", ...}; a list of
    {"claim", "supporting_text_span"} objects is accepted too."""
    if isinstance(data, list):
        items = [d for d in data if isinstance(d, dict)]
        out = [Candidate(text=str(d.get("claim", "")), span=str(d.get("supporting_text_span",
               d.get("span", "")))) for d in items]
    elif isinstance(data, dict):
        nums = sorted({int(m.group(1)) for k in data if (m := re.fullmatch(r"claim(\d+)", k))})
        out = [Candidate(text=str(data[f"claim{n}"]),
                         span=str(data.get(f"supporting_text_span{n}", ""))) for n in nums]
    else:
        raise ValueError("expected a JSON object with keys claim1, supporting_text_span1, ...")
    if not out and data:
        raise ValueError("no keys claim1, supporting_text_span1, ... in the object")
    return [c for c in out if c.text.strip()]


class Extraction(BaseModel):
    claims: list[dict[str, Any]] = []
    rejections: list[Rejection] = []
    failed: bool = False


async def llm_extract(llm: LLM, version: dict[str, Any]) -> Extraction:
    prompt = load_prompt("claims")
    text = version["text"]
    norm = normalise(text)
    result = Extraction()
    seen: set[tuple[int, int]] = set()
    candidates: list[Candidate] = []
    parts = chunks(text)
    replies = await asyncio.gather(*(llm.astructured(
        prompt.render(text=part, max_claims=20), parse_claims) for part in parts),
        return_exceptions=True)
    for reply in replies:
        if isinstance(reply, LLMFailure):
            result.failed = True
        elif isinstance(reply, BaseException):
            raise reply
        else:
            candidates += reply

    def reject(c: Candidate, reason: str, detail: str, score: float | None = None) -> None:
        result.rejections.append(Rejection(
            id=stable_id(version["id"], llm.id, "rejected", c.text, c.span),
            version_id=version["id"], document_id=version["document_id"], extractor="llm",
            reason=reason, detail=detail[:300], claim=c.text[:1000], span=c.span[:1000],
            score=score))

    for i, c in enumerate(candidates):
        if i >= MAX_CLAIMS_PER_PAGE:
            reject(c, "too_many_claims", f"page limit is {MAX_CLAIMS_PER_PAGE}")
            continue
        try:
            loc = locate(text, c.span, normalised=norm)
        except SpanRejected as exc:
            reject(c, exc.reason, exc.detail, exc.score)
            continue
        if (loc.start, loc.end) in seen:
            reject(c, "duplicate_span", "another claim already uses this span")
            continue
        seen.add((loc.start, loc.end))
        result.claims.append(_claim(version, " ".join(c.text.split()), loc.start, loc.end,
                                    loc.method, f"llm:{llm.id}", prompt.hash))
    return result


# -- the stage -------------------------------------------------------------------------------
WRITE_ORDER = ("claims/write", "claims/rejections", "claims/mark")



def pending_versions(store: Store, extractor: str, page: int = 500,
                     ) -> Iterator[list[dict[str, Any]]]:
    """Versions this extractor has not processed, in pages (texts can be large)."""
    after = ""
    while True:
        rows = store.query("claims/pending", extractor=extractor, after=after, limit=page)
        if not rows:
            return
        yield rows
        after = rows[-1]["id"]


#: Kept off the node: the HAS_CLAIM edge already says which version (and so document).
_EDGE_KEYS = ("version_id", "document_id")


def claim_row(claim: dict[str, Any]) -> dict[str, Any]:
    """Write row: absent values (no prompt hash) are left out."""
    props = {k: v for k, v in claim.items() if k not in _EDGE_KEYS and v is not None}
    return {"version_id": claim["version_id"], "props": props}


def _plan(claims: list[dict[str, Any]], rejections: list[Rejection],
          marks: list[dict[str, Any]]) -> WritePlan:
    plan = WritePlan(WRITE_ORDER)
    plan.add("claims/write", [claim_row(c) for c in claims])
    plan.add("claims/rejections", [r.model_dump() for r in rejections])
    plan.add("claims/mark", marks)
    return plan


def extract_claims(store: Store, *, extractor: str = "rule", llm: LLM | None = None,
                   workers: int | None = None) -> ClaimsReport:
    """Extract claims for every DocumentVersion the extractor has not seen yet."""
    if extractor not in EXTRACTORS:
        raise UsageError(f"unknown extractor {extractor!r}; choose rule or llm")
    if extractor == "llm" and llm is None:
        raise UsageError("the llm extractor needs --llm SPEC")
    key = "rule" if extractor == "rule" else f"llm:{llm.id}"  # type: ignore[union-attr]
    started = time.perf_counter()
    report = ClaimsReport(extractor=key)
    reasons: Counter[str] = Counter()
    [total] = store.query("claims/count_pending", extractor=key)

    def account(n_claims: int, rejections: list[Rejection]) -> None:
        report.claims += n_claims
        report.versions_with_claims += n_claims > 0
        for r in rejections:
            reasons[r.reason] += 1

    with progress(f"claims ({key})", total["n"]) as advance:
        if extractor == "rule":
            workers = workers or os.cpu_count() or 1
            with process_pool(workers) as pool:
                # Pipelined: the workers extract page n+1 while page n is written.
                pages = pending_versions(store, key)

                def submit(page: list[dict[str, Any]] | None) -> Any:
                    if page is None:
                        return None
                    batches = [page[i:i + 50] for i in range(0, len(page), 50)]
                    return page, batches, [pool.submit(rule_extract, b) for b in batches]

                nxt = submit(next(pages, None))
                while nxt is not None:
                    page, batches, futures = nxt
                    nxt = submit(next(pages, None))
                    claims: list[dict[str, Any]] = []
                    marks = []
                    for batch, future in zip(batches, futures, strict=True):
                        for v, cl in zip(batch, future.result(), strict=True):
                            claims += cl
                            account(len(cl), [])
                            marks.append({"id": v["id"], "extractor": key, "claims": len(cl),
                                          "rejected": 0})
                    store.write_plan(_plan(claims, [], marks))
                    report.versions += len(page)
                    advance(len(page))
        else:
            assert llm is not None

            async def run() -> None:
                for page in pending_versions(store, key, page=50):
                    results = await asyncio.gather(*(llm_extract(llm, v) for v in page))
                    claims, rejections, marks = [], [], []
                    for v, res in zip(page, results, strict=True):
                        account(len(res.claims), res.rejections)
                        claims += res.claims
                        rejections += res.rejections
                        if res.failed and not res.claims:
                            report.failed_versions += 1
                            continue  # left pending: another model or run may do better
                        marks.append({"id": v["id"], "extractor": key,
                                      "claims": len(res.claims),
                                      "rejected": len(res.rejections)})
                    store.write_plan(_plan(claims, rejections, marks))
                    report.versions += len(page)
                    advance(len(page))
                    if not marks:
                        return  # nothing advanced: stop instead of re-reading the same page

            asyncio.run(run())
            report.llm = llm.stats
    report.rejected = sum(reasons.values())
    report.rejected_by_reason = dict(sorted(reasons.items()))
    wall = time.perf_counter() - started
    report.seconds = round(wall, 3)
    report.documents_per_s = round(report.versions / wall, 1) if wall else 0.0
    report.claims_per_s = round(report.claims / wall, 1) if wall else 0.0
    return report
