"""Run-time leakage: did the agent find the test item itself while answering?

A prediction is flagged when one of the documents it retrieved

* contains the test question (normalised, fuzzy: rapidfuzz ``partial_ratio`` ≥ threshold,
  so a copy with changed punctuation or a word of context still counts) **together with** a
  gold answer (normalised, as a whole-token run) — the page hands the agent the answer key; or
* comes from a dataset host (``huggingface.co/datasets``, ``github.com``, ``kaggle.com`` ...),
  where benchmark files live, whatever the page text.

The question alone is not enough (forum posts quote questions without answers) and the
answer alone is not either (a correct answer is supposed to be on the web). Flags are stored
on the Prediction (``runtime_leak``, ``leak_urls``) and the summary on the EvalRun, so the
report counts them per dataset as the paper's retrieval-contamination figure does.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from dwqa_graph.evaluation.evaluate import Prediction, load_run
from dwqa_graph.evaluation.scoring import contains_gold
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id
from dwqa_graph.text import normalize_answer

DEFAULT_DATASET_HOSTS = (
    "huggingface.co/datasets", "github.com", "raw.githubusercontent.com",
    "gist.github.com", "kaggle.com", "paperswithcode.com", "hotpotqa.github.io",
)
DEFAULT_QUESTION_THRESHOLD = 90.0
# Very short questions match by chance inside long pages; below this many normalised tokens
# the question must appear exactly.
MIN_FUZZY_TOKENS = 6


class LeakFlag(BaseModel):
    url: str
    reason: str  # "question_and_answer" | "dataset_host"
    question_score: float | None = None


class RuntimeReport(BaseModel):
    """``dwqa contamination runtime --json``."""

    run_id: str
    agent: str
    dataset: str
    predictions: int
    flagged: int
    flagged_rate: float
    by_reason: dict[str, int] = Field(default_factory=dict)
    em_flagged: float | None = Field(None, description="Mean EM on flagged predictions.")
    em_clean: float | None = Field(None, description="Mean EM on the others.")
    threshold: float
    hosts: list[str]
    flagged_items: list[dict[str, object]] = Field(default_factory=list)


def host_matches(url: str, hosts: Sequence[str]) -> str | None:
    """The configured entry ``url`` falls under: a host (and its subdomains) with an optional
    path prefix, e.g. ``huggingface.co/datasets``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path or "/"
    for entry in hosts:
        h, _, prefix = entry.lower().partition("/")
        if (host == h or host.endswith("." + h)) and path.startswith("/" + prefix):
            return entry
    return None


def question_score(question: str, text: str) -> float:
    """How well the page contains the question: 100 for a verbatim (normalised) copy."""
    q, t = normalize_answer(question), normalize_answer(text)
    if not q or not t:
        return 0.0
    if q in t:
        return 100.0
    if len(q.split()) < MIN_FUZZY_TOKENS:
        return 0.0
    return float(fuzz.partial_ratio(q, t))


def check_prediction(p: Prediction, hosts: Sequence[str],
                     threshold: float = DEFAULT_QUESTION_THRESHOLD) -> list[LeakFlag]:
    flags = []
    for doc in p.retrieved:
        if host_matches(doc.url, hosts):
            flags.append(LeakFlag(url=doc.url, reason="dataset_host"))
            continue
        text = f"{doc.title}\n{doc.text}"
        score = question_score(p.question, text)
        if score >= threshold and contains_gold(text, p.golds):
            flags.append(LeakFlag(url=doc.url, reason="question_and_answer",
                                  question_score=round(score, 1)))
    return flags


def runtime_check(store: Store, run_id: str, *, hosts: Sequence[str] = DEFAULT_DATASET_HOSTS,
                  threshold: float = DEFAULT_QUESTION_THRESHOLD) -> RuntimeReport:
    """Check every prediction of a stored run; store the flags; return the counts."""
    report, preds = load_run(store, run_id)
    by_reason: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    flagged_items: list[dict[str, object]] = []
    em_flagged: list[float] = []
    em_clean: list[float] = []
    for p in preds:
        flags = check_prediction(p, hosts, threshold)
        reasons = sorted({f.reason for f in flags})
        by_reason.update(reasons)
        rows.append({"id": p.id, "reasons": reasons, "urls": sorted({f.url for f in flags})})
        (em_flagged if flags else em_clean).append(p.scores["em"])
        if flags:
            flagged_items.append({"item_id": p.item_id, "question": p.question,
                                  "answer": p.answer, "em": p.scores["em"],
                                  "flags": [f.model_dump() for f in flags]})
    n, k = len(preds), len(flagged_items)
    out = RuntimeReport(
        run_id=run_id, agent=report.agent, dataset=report.target, predictions=n, flagged=k,
        flagged_rate=k / n if n else 0.0, by_reason=dict(sorted(by_reason.items())),
        em_flagged=sum(em_flagged) / len(em_flagged) if em_flagged else None,
        em_clean=sum(em_clean) / len(em_clean) if em_clean else None,
        threshold=threshold, hosts=list(hosts), flagged_items=flagged_items)
    store.run_write("eval/runtime_flags", run_id=run_id, rows=rows,
                    summary=json.dumps(out.model_dump(exclude={"flagged_items"})))
    record_check(store, "runtime", report.target, report.agent, flagged=k, total=n,
                 by_reason=dict(by_reason), report=out.model_dump())
    return out


def record_check(store: Store, kind: str, dataset: str, subject: str, *, flagged: int,
                 total: int, by_reason: dict[str, int], report: dict[str, Any]) -> str:
    """Store one check's counts (the report plots the newest per kind/dataset/subject)."""
    created = datetime.now(UTC).isoformat(timespec="microseconds")
    check_id = stable_id("check", kind, dataset, subject, created)
    store.run_write("eval/contamination_store", id=check_id, kind=kind, dataset=dataset,
                    subject=subject, created_at=created, flagged=flagged, total=total,
                    by_reason=json.dumps(by_reason, sort_keys=True),
                    report=json.dumps(report, default=str))
    return check_id


def latest_checks(store: Store) -> list[dict[str, Any]]:
    return [r | {"by_reason": json.loads(r["by_reason"] or "{}")}
            for r in store.query("eval/contamination_latest")]
