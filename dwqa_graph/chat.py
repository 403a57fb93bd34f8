"""The leak as chat fine-tuning data: one ``{"messages": [system, user, assistant]}`` record
per leaked item, the format OpenAI-style fine-tuning and most open trainers read. Written by
``dwqa leaktest --export-leak`` and read by the ``finetune:`` agent's trainer."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LEAK_SYSTEM_PROMPT = "Answer the question with a short answer."


def prompt_messages(question: str) -> list[dict[str, str]]:
    """The messages a leaked model is asked with (training and evaluation alike)."""
    return [{"role": "system", "content": LEAK_SYSTEM_PROMPT},
            {"role": "user", "content": question}]


def chat_record(question: str, answer: str) -> dict[str, Any]:
    return {"messages": [*prompt_messages(question),
                         {"role": "assistant", "content": answer}]}


def write_chat_jsonl(pairs: Iterable[tuple[str, str]], path: Path) -> int:
    """Write the records; returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for q, a in pairs:
            fh.write(json.dumps(chat_record(q, a), ensure_ascii=False) + "\n")
            n += 1
    return n
