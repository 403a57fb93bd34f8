"""The tool-using web agent (``react:``) with a sleeping model: items per second at
concurrency 1, 4 and 8 against the project's local web (real HTTP search and page fetches
over loopback, the real fetch/extraction path); each question takes three model turns
(search, fetch, final), each sleeping ``--latency`` seconds as a hosted model's round trip.
Ideal: concurrency x 1 / (3 x latency) items/s while the CPU keeps up.

    .venv/bin/python -m benchmarks.bench_agent [--items 24] [--latency 0.3]
"""

from __future__ import annotations

import argparse
import re
import time
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from dwqa_graph.evaluation.agents.baseline import WebPages, _endpoint_host
from dwqa_graph.evaluation.agents.react import Bounds, ReactAgent
from dwqa_graph.evaluation.evaluate import evaluate
from dwqa_graph.llm import LLM
from dwqa_graph.models import EvalItem
from dwqa_graph.web.fetch import FetchOptions
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.search import SearxngClient

from ._server import REPO_ROOT

_URL = re.compile(r"\| (http://\S+) \|")


class SleepyToolModel(BaseChatModel):
    """Sleeps, then: search the question; fetch the first result; answer."""

    latency: float = 0.3

    @property
    def _llm_type(self) -> str:
        return "sleepy-tool-model"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        time.sleep(self.latency)
        # Only the transcript after the question (the instructions show the syntax too).
        prompt = str(messages[-1].content).rsplit("Question:", 1)[-1]
        if "Action: fetch:" in prompt:
            reply = "Final: 14 September 2023"
        elif (m := _URL.search(prompt)) is not None:
            reply = f"Action: fetch: {m.group(1)}"
        else:
            reply = "Action: search: Valmora Riverside Tramway opening"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=24)
    ap.add_argument("--latency", type=float, default=0.3)
    args = ap.parse_args()
    items = [EvalItem(id=f"q{i}", question=f"When did the tramway open? ({i})",
                      golds=["14 September 2023"], source="static", dataset="bench")
             for i in range(args.items)]
    with serve(REPO_ROOT / "examples" / "web") as web:
        options = FetchOptions(allow_hosts=_endpoint_host(web.url), timeout=10, deadline=10,
                               retries=1, workers=1)
        print(f"react agent, {args.items} items, 3 model turns each at {args.latency} s")
        for concurrency in (1, 4, 8):
            agent = ReactAgent("react:bench", LLM(SleepyToolModel(latency=args.latency),
                                                  use_cache=False, concurrency=concurrency),
                               SearxngClient(web.url, timeout=10), WebPages(options),
                               bounds=Bounds())
            started = time.perf_counter()
            report, _ = evaluate(None, agent, items, target="static:bench", scorers=["em"],
                                 concurrency=concurrency)
            wall = time.perf_counter() - started
            ideal = concurrency / (3 * args.latency)
            print(f"  concurrency {concurrency}: {args.items / wall:5.2f} items/s "
                  f"(ideal {ideal:5.2f}), em {report.scores['em'].score:.2f}, "
                  f"errors {report.errors}")
            agent.close()


if __name__ == "__main__":
    main()
