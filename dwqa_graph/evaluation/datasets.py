"""Static benchmarks: import HotpotQA JSON or FreshQA CSV as a named, fixed question set.

A static set is what the paper contrasts with dynamic rounds: the same items every time, so
they can leak. ``dwqa eval --dataset NAME`` scores agents on it exactly as on a round, and
Leak&Test's ``--static NAME`` leaks it whole.

Graph: ``(:StaticSet {name})-[:CONTAINS]->(:StaticItem {id, question, answers, ...})``.
Items are keyed by (set name, the record's own id), so re-importing the same file changes
nothing and a corrected file updates items in place.

Bad records are reported as ``file:line: reason`` and skipped; the rest are imported.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from dwqa_graph.errors import InputError, NotFoundError, UsageError
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.ingest.logs import Problem, read_records
from dwqa_graph.models import EvalItem, stable_id

StaticFormat = Literal["auto", "hotpotqa", "freshqa"]
STATIC_FORMATS = ("auto", "hotpotqa", "freshqa")
FRESHQA_ANSWERS = 10  # answer_0 .. answer_9
FRESHQA_REQUIRED = ("question", "answer_0")


class StaticImportReport(BaseModel):
    name: str
    format: str
    file: str
    records: int = 0
    imported: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)


def _detect(path: Path) -> str:
    return "freshqa" if path.suffix.lower() in (".csv", ".tsv") else "hotpotqa"


#: Item properties a static record may set besides its question and answers; each is a
#: plain StaticItem property (queryable in Cypher), None where the format has no such field.
ITEM_FIELDS = ("split", "false_premise", "effective_year", "next_review", "fact_type",
               "level", "type")
SPLITS = ("dev", "test")


def _item(name: str, key: str, question: str, answers: list[str], pattern: str | None,
          hops: int | None, file: str, line: int, meta: dict[str, Any],
          **fields: Any) -> dict[str, Any]:
    unknown = set(fields) - set(ITEM_FIELDS)
    assert not unknown, unknown
    return {"id": stable_id("static", name, key), "key": key, "question": question.strip(),
            "answers": answers, "pattern": pattern, "hops": hops, "source_file": file,
            "source_line": line, "meta": json.dumps(meta, sort_keys=True, ensure_ascii=False),
            **{f: fields.get(f) for f in ITEM_FIELDS}}


def _bool(value: str) -> bool | None:
    """FreshQA's TRUE / FALSE cells (any case); blank or anything else is unknown."""
    v = value.strip().lower()
    return True if v in ("true", "yes", "1") else False if v in ("false", "no", "0") else None


def _split(value: str) -> str | None:
    v = value.strip().lower()
    return v if v in SPLITS else None


def _hotpotqa(path: Path, name: str, problems: list[Problem]) -> list[dict[str, Any]]:
    rows = []
    for raw in read_records(path):
        if isinstance(raw, Problem):
            problems.append(raw)
            continue
        d = raw.data if isinstance(raw.data, dict) else {}
        question, answer = d.get("question"), d.get("answer")
        if not isinstance(question, str) or not question.strip():
            problems.append(Problem(file=raw.file, line=raw.line, reason="no_question"))
            continue
        if not isinstance(answer, str) or not answer.strip():
            problems.append(Problem(file=raw.file, line=raw.line, reason="no_answer",
                                    detail=question[:80]))
            continue
        key = str(d.get("_id") or d.get("id") or stable_id(question, answer))
        # Every HotpotQA question needs two paragraphs by construction, hence hops = 2.
        level, kind = d.get("level"), d.get("type")
        rows.append(_item(name, key, question, [answer.strip()], kind, 2, raw.file,
                          raw.line, {"level": level, "type": kind},
                          level=level if isinstance(level, str) else None,
                          type=kind if isinstance(kind, str) else None))
    return rows


def _freshqa_hops(value: str) -> int | None:
    v = value.strip().lower()
    return 1 if v.startswith("one") else 2 if v.startswith("multi") else None


def _freshqa(path: Path, name: str, problems: list[Problem]) -> list[dict[str, Any]]:
    """FreshQA's CSV: two preamble rows (a title and a note) come before the header row.

    The header is found rather than assumed at row 3, so a copy with the preamble removed
    imports too. ``csv`` tracks physical lines, so quoted multi-line cells keep the reported
    line numbers right (a record is reported at the line it starts on).
    """
    file = str(path)
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    # A .tsv copy (a spreadsheet's "download as TSV") has tabs; a CSV renamed .tsv has not.
    first = "\t" if path.suffix.lower() == ".tsv" else ","
    for delimiter in (first, "," if first == "\t" else "\t"):
        attempt: list[Problem] = []
        rows = _freshqa_rows(text, file, name, delimiter, attempt)
        if rows or not any(p.reason == "no_header" for p in attempt):
            problems.extend(attempt)
            return rows
    problems.extend(attempt)
    return rows


def _freshqa_rows(text: str, file: str, name: str, delimiter: str,
                  problems: list[Problem]) -> list[dict[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header: list[str] | None = None
    rows: list[dict[str, Any]] = []
    end = 0
    for record in reader:
        # Report the line a record starts on; line_num is where it ended.
        line, end = end + 1, reader.line_num
        if header is None:
            cells = [c.strip().lower() for c in record]
            if all(col in cells for col in FRESHQA_REQUIRED):
                header = cells
            elif line >= 10:
                problems.append(Problem(file=file, line=line, reason="no_header",
                                        detail="no row with question and answer_0 columns"))
                break
            continue
        if not any(c.strip() for c in record):
            continue
        d = dict(zip(header, record, strict=False))
        question = (d.get("question") or "").strip()
        answers = [a.strip() for i in range(FRESHQA_ANSWERS)
                   if (a := d.get(f"answer_{i}") or "").strip()]
        if not question:
            problems.append(Problem(file=file, line=line, reason="no_question"))
            continue
        if not answers:
            problems.append(Problem(file=file, line=line, reason="no_answer",
                                    detail=question[:80]))
            continue
        key = (d.get("id") or "").strip() or stable_id(question)
        meta = {k: d.get(k, "") for k in ("split", "effective_year", "next_review",
                                         "false_premise", "num_hops", "fact_type", "source")}
        fact_type = (d.get("fact_type") or "").strip() or None
        rows.append(_item(name, key, question, answers, fact_type,
                          _freshqa_hops(d.get("num_hops") or ""), file, line, meta,
                          split=_split(d.get("split") or ""),
                          false_premise=_bool(d.get("false_premise") or ""),
                          effective_year=(d.get("effective_year") or "").strip() or None,
                          next_review=(d.get("next_review") or "").strip() or None,
                          fact_type=fact_type))
    if header is None and not problems:
        problems.append(Problem(file=file, line=1, reason="no_header",
                                detail="no row with question and answer_0 columns"))
    return rows


def import_static(store: Store, path: Path, name: str, fmt: str = "auto",
                  on_problem: Callable[[Problem], None] = lambda p: None) -> StaticImportReport:
    """Import one file as static benchmark ``name`` (items merged by their own id)."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    fmt = _detect(path) if fmt == "auto" else fmt
    problems: list[Problem] = []
    rows = (_freshqa if fmt == "freshqa" else _hotpotqa)(path, name, problems)
    # Two records with one id would silently become one item: keep the first, report the rest.
    seen: dict[str, int] = {}
    unique: list[dict[str, Any]] = []
    for row in rows:
        if row["id"] in seen:
            problems.append(Problem(file=row["source_file"], line=row["source_line"],
                                    reason="duplicate_id",
                                    detail=f"{row['key']} (first at line {seen[row['id']]})"))
            continue
        seen[row["id"]] = row["source_line"]
        # File order; line numbers alone do not give it (HotpotQA ships one long line).
        unique.append(row | {"position": len(unique)})
    for p in problems:
        on_problem(p)
    if not unique:
        # An empty set would evaluate as an error much later (or, worse, shadow a good one):
        # say now what was wrong, and write nothing.
        reasons = Counter(p.reason for p in problems)
        detail = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "no records"
        hint = ("" if fmt == "freshqa" else
                "; a FreshQA CSV/TSV needs --format freshqa or a .csv/.tsv name")
        raise InputError(f"{path}: no importable {fmt} records ({detail}); nothing was "
                         f"imported{hint}")
    plan = WritePlan(["static/set", "static/items"])
    plan.add("static/set", [{"name": name, "format": fmt, "file": str(path)}])
    plan.add("static/items", [row | {"set": name} for row in unique])
    store.write_plan(plan)
    reasons = Counter(p.reason for p in problems)
    return StaticImportReport(name=name, format=fmt, file=str(path),
                              records=len(rows) + sum(reasons.values()) - reasons["duplicate_id"],
                              imported=len(unique), rejected=len(problems),
                              rejected_by_reason=dict(reasons), problems=problems)


def list_static(store: Store) -> list[dict[str, Any]]:
    return store.query("static/list")


def static_items(store: Store, name: str, split: str | None = None) -> list[EvalItem]:
    """The set's items in a stable order, only ``split``'s (FreshQA ``dev`` / ``test``)
    when given; an unknown name or an empty split is an error, not an empty set."""
    if split is not None and split not in SPLITS:
        raise UsageError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    rows = store.query("static/items_of", set_name=name, split=None)
    if not rows:
        known = ", ".join(r["name"] for r in list_static(store)) or "none"
        raise NotFoundError(f"no static dataset named {name!r} (imported: {known}); "
                         "import one with `dwqa dataset import FILE --name NAME`")
    if split is not None:
        have = Counter(r["split"] for r in rows)
        rows = [r for r in rows if r["split"] == split]
        if not rows:
            found = ", ".join(f"{k} {v}" for k, v in sorted(have.items(), key=str)
                              if k) or "none"
            raise NotFoundError(f"dataset {name!r} has no {split!r} items (splits: {found})")
    return [EvalItem(id=r["id"], question=r["question"], golds=r["answers"],
                     pattern=r["pattern"], hops=r["hops"], source="static", dataset=name,
                     false_premise=r["false_premise"])
            for r in rows]
