"""Synthetic agent logs at paper scale (500 questions x 15 sources x 10 steps).

Used by the ingest benchmark and by tests that need volume (kill-and-resume). Deterministic
for a given seed, in the ``dwqa`` log format.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_STEP_TEMPLATES = (
    "Source {n} reports that item {i} grew by {v} percent in {y} [{n}].",
    "The figure for item {i} is higher than the one given elsewhere [{n}].",
    "It might be that item {i} was revised after {y} [{n}].",
    "Item {i} was first recorded in {y} [{n}].",
)


def synthetic_log(i: int, *, sources: int = 15, steps: int = 10, seed: int = 0,
                  shared: float = 0.1) -> dict[str, Any]:
    rng = random.Random(f"{seed}:{i}")
    srcs = [
        {
            "id": n,
            "title": f"Report {i}-{n}",
            # Some URLs are shared between questions, as real search results are.
            "url": (f"https://example.org/shared/{rng.randrange(200)}" if rng.random() < shared
                    else f"https://example.org/q{i}/doc{n}"),
            "snippet": f"Snippet {n} of question {i}.",
        }
        for n in range(1, sources + 1)
    ]
    bullets = []
    for k in range(steps - 1):
        tpl = _STEP_TEMPLATES[k % len(_STEP_TEMPLATES)]
        bullets.append("- " + tpl.format(n=rng.randint(1, sources), i=i, v=rng.randint(1, 99),
                                         y=rng.randint(1990, 2025)))
    bullets.append(f"- Therefore the answer for question {i} is value {rng.randint(1, 999)}.")
    return {
        "id": f"synthetic-{seed}-{i}",
        "question": f"What is the value of item {i}?",
        "answer": f"value {i}",
        "thinking": "\n".join(bullets),
        "sources": srcs,
    }


def write_logs(path: Path, n: int, **kwargs: Any) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(synthetic_log(i, **kwargs)) + "\n")
    return path
