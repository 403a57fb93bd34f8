"""The fine-tuning worker: one process holding a causal LM, fine-tuned with LoRA on demand.

Run by the ``finetune:`` agent with the fine-tuning environment's Python (torch,
transformers, peft, gguf: ``scripts/finetune-env``), *not* the project's: it imports nothing
from dwqa_graph, so it runs in a venv that does not have the project installed. It speaks
JSON lines: one request per line on stdin, one reply per line on stdout (logs go to stderr).

    {"op": "train", "data": PATH, "epochs": 8, "lr": 0.002, "batch": 8, "rank": 16,
     "seed": 0, "max_steps": 0}          -> {"ok": true, "seconds", "steps", "examples",
                                              "loss_first", "loss_last"}
    {"op": "reset"}                      -> {"ok": true}   (drop the adapter: the base model)
    {"op": "answer", "messages": [...], "max_new_tokens": 24}  -> {"ok": true, "text"}
    {"op": "logprob", "messages": [...], "answer": STR}        -> {"ok": true, "logprob"}
    {"op": "quit"}

``data`` is the chat JSONL ``dwqa leaktest --export-leak`` writes (``{"messages": [system,
user, assistant]}`` per line). Training is LoRA on every attention and MLP projection, loss
on the assistant tokens only, AdamW, greedy decoding; seeded, so a run is reproducible on
one machine. A GGUF model (``--model x.gguf``) is de-quantised by transformers on first use
and cached as a Hugging Face directory beside it (``<name>-hf/``), which later loads in
seconds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import torch  # type: ignore[import-not-found]
from peft import LoraConfig, get_peft_model  # type: ignore[import-not-found]
from transformers import AutoModelForCausalLM, AutoTokenizer  # type: ignore[import-not-found]

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def log(msg: str) -> None:
    print(f"finetune-worker: {msg}", file=sys.stderr, flush=True)


def load(model: str, device: str) -> tuple[Any, Any]:
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        cached = path.with_name(path.stem + "-hf")
        if not (cached / "config.json").exists():
            log(f"de-quantising {path.name} into {cached} (once)")
            tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
            lm = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name,
                                                      dtype=torch.float32)
            tmp = cached.with_name(cached.name + ".tmp")
            tok.save_pretrained(tmp)
            lm.save_pretrained(tmp)
            tmp.rename(cached)  # complete or absent, never half-written
        path = cached
    tok = AutoTokenizer.from_pretrained(path)
    lm = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device)
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    lm.eval()
    return tok, lm


class Worker:
    def __init__(self, model: str, device: str) -> None:
        self.device = device
        self.tok, self.base = load(model, device)
        self.lm = self.base

    def _prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        text = self.tok.apply_chat_template(messages, add_generation_prompt=True,
                                            tokenize=False)
        return list(self.tok(text, add_special_tokens=False)["input_ids"])

    def _answer_ids(self, messages: list[dict[str, str]], answer: str) -> list[int]:
        """The answer's tokens as the chat template closes an assistant turn (with its
        end-of-turn marker, so the tuned model learns to stop where decoding stops)."""
        prompt = self.tok.apply_chat_template(messages, add_generation_prompt=True,
                                              tokenize=False)
        full = self.tok.apply_chat_template(
            [*messages, {"role": "assistant", "content": answer}], tokenize=False)
        tail = full[len(prompt):] if full.startswith(prompt) else answer + (
            self.tok.eos_token or "")
        return list(self.tok(tail, add_special_tokens=False)["input_ids"])

    def _stop_ids(self) -> list[int]:
        ids = {self.tok.eos_token_id}
        end = self.tok.convert_tokens_to_ids("<|im_end|>")  # ChatML's end of turn
        if isinstance(end, int) and end != self.tok.unk_token_id:
            ids.add(end)
        return sorted(i for i in ids if i is not None)

    def reset(self) -> dict[str, Any]:
        if self.lm is not self.base:
            self.base = self.lm.unload()  # the LoRA layers out, base weights untouched
            self.lm = self.base
        return {"ok": True}

    def train(self, req: dict[str, Any]) -> dict[str, Any]:
        self.reset()
        seed = int(req.get("seed", 0))
        random.seed(seed)
        torch.manual_seed(seed)
        rows = [json.loads(x) for x in Path(req["data"]).read_text().splitlines() if x.strip()]
        examples = []
        for r in rows:
            msgs = r["messages"]
            prompt = self._prompt_ids(msgs[:-1])
            answer = self._answer_ids(msgs[:-1], msgs[-1]["content"])
            examples.append((prompt + answer, [-100] * len(prompt) + answer))
        if not examples:
            return {"ok": False, "error": "no training examples"}
        rank = int(req.get("rank", 16))
        cfg = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules=TARGETS,
                         task_type="CAUSAL_LM")
        self.lm = get_peft_model(self.base, cfg)
        params = [p for p in self.lm.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=float(req.get("lr", 2e-3)), weight_decay=0.0)
        batch, epochs = int(req.get("batch", 8)), int(req.get("epochs", 8))
        max_steps = int(req.get("max_steps", 0))
        pad = self.tok.pad_token_id
        losses: list[float] = []
        start = time.perf_counter()
        self.lm.train()
        steps = 0
        for _ in range(epochs):
            order = list(range(len(examples)))
            random.shuffle(order)
            for i in range(0, len(order), batch):
                chunk = [examples[j] for j in order[i:i + batch]]
                width = max(len(ids) for ids, _ in chunk)
                ids = torch.tensor([x + [pad] * (width - len(x)) for x, _ in chunk])
                labels = torch.tensor([y + [-100] * (width - len(y)) for _, y in chunk])
                mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x, _ in chunk])
                out = self.lm(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                              labels=labels.to(self.device))
                opt.zero_grad()
                out.loss.backward()
                opt.step()
                losses.append(float(out.loss.detach()))
                steps += 1
                if max_steps and steps >= max_steps:
                    break
            if max_steps and steps >= max_steps:
                break
        self.lm.eval()
        seconds = time.perf_counter() - start
        log(f"trained {steps} steps on {len(examples)} examples in {seconds:.1f}s, loss "
            f"{losses[0]:.3f} -> {losses[-1]:.3f}")
        return {"ok": True, "seconds": seconds, "steps": steps, "examples": len(examples),
                "loss_first": losses[0], "loss_last": losses[-1]}

    @torch.no_grad()
    def answer(self, req: dict[str, Any]) -> dict[str, Any]:
        ids = torch.tensor([self._prompt_ids(req["messages"])]).to(self.device)
        out = self.lm.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                               max_new_tokens=int(req.get("max_new_tokens", 24)),
                               do_sample=False, pad_token_id=self.tok.pad_token_id,
                               eos_token_id=self._stop_ids())
        text = self.tok.decode(out[0][ids.shape[1]:], skip_special_tokens=True)
        return {"ok": True, "text": text}

    @torch.no_grad()
    def logprob(self, req: dict[str, Any]) -> dict[str, Any]:
        prompt = self._prompt_ids(req["messages"])
        answer = self._answer_ids(req["messages"], req["answer"])
        ids = torch.tensor([prompt + answer]).to(self.device)
        logits = self.lm(input_ids=ids).logits[0, len(prompt) - 1:-1]
        lp = torch.log_softmax(logits.float(), dim=-1)
        total = lp.gather(1, torch.tensor(answer).to(self.device)[:, None]).sum()
        return {"ok": True, "logprob": float(total), "tokens": len(answer)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    worker = Worker(args.model, args.device)
    print(json.dumps({"ok": True, "ready": True}), flush=True)
    ops = {"train": worker.train, "answer": worker.answer, "logprob": worker.logprob,
           "reset": lambda _req: worker.reset()}
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if req.get("op") == "quit":
                break
            reply = ops[req["op"]](req)
        except Exception as exc:  # one bad request must not kill the model
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
