"""Seed graphs from the traces agent builders already export: an OpenTelemetry GenAI trace, an
OpenInference trace (as Phoenix / Langfuse write it), a smolagents memory dump, and one
trace written by the real OpenTelemetry SDK and its OTLP encoder, all describing the same
agent run as one of the bundled example's logs. Each must give the same seed-graph shape as
that log (question, documents, their text, answer, steps), and a round must then have items
from them. Bad traces are counted reasons, never an abort."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.generate import make_generator
from dwqa_graph.rounds.round import new_round

from .conftest import example_run, genai_spans, openinference_spans, otlp, otlp_span


def smolagents_dump(log: dict[str, Any]) -> dict[str, Any]:
    search = "## Search Results\n\n" + "\n\n".join(
        f"[{s['title']}]({s['url']})\n{s['text'][:200]}" for s in log["sources"])
    return {"steps": [
        {"task": log["question"]},
        {"step_number": 1, "model_output": log["thinking"],
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "web_search",
                                      "arguments": {"query": log["question"]}}}],
         "observations": search},
        *[{"step_number": 2 + i, "model_output": "",
           "tool_calls": [{"id": f"v{i}", "type": "function",
                           "function": {"name": "visit_webpage",
                                        "arguments": {"url": s["url"]}}}],
           "observations": s["text"]} for i, s in enumerate(log["sources"])],
        {"output": log["answer"]}]}


def sdk_trace(log: dict[str, Any], path: Path) -> None:
    """A tiny scripted agent traced by the real OpenTelemetry SDK; its spans encoded by the
    OTLP exporter's own encoder and written as OTLP JSON lines, one export batch per line
    (as the file exporter does): the spans of one trace in two batches."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("scripted-agent")
    msgs = json.dumps([{"role": "user", "content": log["question"]}])
    with tracer.start_as_current_span("invoke_agent") as agent:
        agent.set_attribute("gen_ai.operation.name", "invoke_agent")
        agent.set_attribute("gen_ai.input.messages", msgs)
        for s in log["sources"]:
            with tracer.start_as_current_span("execute_tool visit") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "visit_webpage")
                tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"url": s["url"]}))
                tool.set_attribute("gen_ai.tool.call.result", s["text"])
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "content": log["thinking"]}]))
        agent.set_attribute("gen_ai.output.messages", json.dumps(
            [{"role": "assistant", "content": log["answer"]}]))
    provider.shutdown()
    spans = list(exporter.get_finished_spans())
    assert len(spans) == len(log["sources"]) + 2
    half = len(spans) // 2
    with path.open("w") as fh:
        for batch in (spans[half:], spans[:half]):  # the root span comes in the 2nd batch
            fh.write(json.dumps(MessageToDict(encode_spans(batch))) + "\n")


def graph_shape(store: Store, dataset: str) -> dict[str, Any]:
    [row] = store.read(
        "MATCH (q:Query {dataset: $d}) "
        "OPTIONAL MATCH (q)-[:HAS_ANSWER]->(a:Answer) "
        "RETURN q.text AS question, q.source AS format, a.text AS answer, "
        "[(q)-[:RETRIEVE]->(d) | d.url] AS urls, "
        "[(q)-[:RETRIEVE]->(d)-[:HAS_VERSION]->(v) | d.url + ' ' + v.text] AS texts, "
        "COUNT { (q)-[:HAS_STEP]->() } AS steps", {"d": dataset})
    return {**row, "urls": sorted(row["urls"]), "texts": sorted(row["texts"])}


def test_traces_ingest_into_the_same_seed_graph_as_the_log(store: Store, nlp: CoreNLP,
                                                           tmp_path: Path) -> None:
    log = example_run(0, "film_runs.jsonl")  # film pages: their facts give path items
    files = {
        "log": (tmp_path / "log.jsonl", json.dumps(log)),
        # Spans in reverse order and in two records: grouped by trace, ordered by time.
        "otel": (tmp_path / "otel.jsonl", "\n".join(
            json.dumps(otlp(batch)) for batch in (
                genai_spans(log, "aa11")[2:][::-1], genai_spans(log, "aa11")[:2]))),
        "oi": (tmp_path / "oi.json", json.dumps(otlp(openinference_spans(log, "bb22")))),
        "smol": (tmp_path / "smol.json", json.dumps(smolagents_dump(log))),
    }
    for name, (path, text) in files.items():
        path.write_text(text + "\n")
        report = ingest(store, [path], dataset=name)  # --format auto
        assert report.ingested == 1 and report.rejected == 0, (name, report.problems)
    sdk = tmp_path / "sdk.jsonl"
    sdk_trace(log, sdk)
    report = ingest(store, [sdk], dataset="sdk", fmt="otel")
    assert (report.records, report.traces, report.ingested) == (2, 1, 1), report.problems

    want = graph_shape(store, "log")
    assert want["steps"] > 3 and len(want["urls"]) == len(log["sources"])
    for name, fmt in (("otel", "otel"), ("oi", "openinference"), ("smol", "smolagents"),
                      ("sdk", "otel")):
        got = graph_shape(store, name)
        assert got["format"] == fmt
        assert got["question"] == want["question"] and got["answer"] == want["answer"], name
        assert got["urls"] == want["urls"], name
        assert got["texts"] == want["texts"], name  # the page text came with the trace
        assert got["steps"] >= 1, name
    # One page, one Document: the five runs share every document node.
    assert store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == len(want["urls"])

    # The traced runs are seed graphs like any other: a round has items from them.
    extract_claims(store)
    extract_facts(store, nlp=nlp)
    report = new_round(store, seed=3, generator=make_generator("paths"), dataset="otel")
    assert report.graphs == 1 and report.items == 1


def test_bad_traces_are_counted_reasons(store: Store, tmp_path: Path) -> None:
    log = example_run(1)
    no_docs = [s for s in genai_spans(log, "cc33") if s["name"] in ("invoke_agent", "chat")]
    no_question = [s for s in genai_spans(log, "dd44") if s["name"] != "invoke_agent"]
    for s in no_question:
        s["parentSpanId"] = ""
        s["attributes"] = [a for a in s["attributes"]
                           if a["key"] != "gen_ai.input.messages"]
    good = genai_spans(log, "ee55")
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([
        json.dumps(otlp(no_docs)), json.dumps(otlp(no_question)),
        json.dumps({"resourceSpans": "not a list"}), json.dumps(otlp(good)),
        json.dumps({"steps": [{"model_output": "thinking, no task", "tool_calls": []}]}),
        json.dumps(otlp([otlp_span("gg77", "g0", "", "r", 1, {
            "gen_ai.operation.name": "retrieval", "gen_ai.input.messages": "q?",
            "gen_ai.retrieval.documents": 42})])),  # a number where a list belongs
    ]) + "\n")
    report = ingest(store, [path])
    assert report.traces == 4 and report.ingested == 1, report.problems
    assert report.rejected_by_reason == {"invalid_span": 1, "no_documents": 2,
                                         "no_question": 2}
    lines = {p.reason: p.line for p in report.problems if p.fatal}
    assert lines["no_documents"] in (1, 6) and lines["no_question"] in (2, 5)
    assert lines["invalid_span"] == 3  # resourceSpans that is no list: counted, not dropped
