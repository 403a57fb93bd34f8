"""dwqa-graph: fresh, verifiable, multi-hop QA rounds for web-QA agents, built from evidence
graphs in Neo4j, with the leakage tests that say whether a score can be trusted.

The public API is what ``__all__`` lists; everything else is internal. The pipeline, one
subpackage per stage::

    graph/       Neo4j: start/stop (server), the store, named Cypher queries
    ingest/      agent logs -> seed graphs (steps of a transcript)
    web/         fetch + extract pages as versions, search, refresh, a local web
    claims/      atomic claims with verbatim spans verified against the page text
    facts/       typed facts and resolved entities read from the claims
    language/    reading English (Stanford CoreNLP): below claims, facts, rounds, evaluation
    rounds/      fact paths -> draw -> word -> check -> store one QA item per seed graph
    evaluation/  agents, scorers, static datasets, stored runs
    leakage/     run-time, pretraining and paraphrase checks; Leak&Test
    report/      HTML + PNG + JSON report
    cli/         the ``dwqa`` command, a thin skin over this API

Names are imported on first use, so ``import dwqa_graph`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dwqa_graph._version import __version__

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # configuration, errors, registries
    "Settings": "dwqa_graph.config",
    "load_settings": "dwqa_graph.config",
    "DwqaError": "dwqa_graph.errors",
    "AGENTS": "dwqa_graph.registry",
    "GENERATORS": "dwqa_graph.registry",
    "LLM_PROVIDERS": "dwqa_graph.registry",
    "SCORERS": "dwqa_graph.registry",
    "SEARCH_CLIENTS": "dwqa_graph.registry",
    # graph
    "Store": "dwqa_graph.graph.store",
    "open_graph": "dwqa_graph.graph.server",
    # stages
    "ingest_logs": "dwqa_graph.ingest.logs",
    "FetchOptions": "dwqa_graph.web.fetch",
    "fetch": "dwqa_graph.web.fetch",
    "serve_web": "dwqa_graph.web.localweb",
    "extract_claims": "dwqa_graph.claims.extract",
    "extract_facts": "dwqa_graph.facts.stage",
    "CoreNLP": "dwqa_graph.language.corenlp",
    "SampleConfig": "dwqa_graph.rounds.sampling",
    "make_generator": "dwqa_graph.rounds.generate",
    "new_round": "dwqa_graph.rounds.round",
    "freeze_round": "dwqa_graph.rounds.round",
    "export_round": "dwqa_graph.rounds.round",
    "make_llm": "dwqa_graph.llm",
    "LLM": "dwqa_graph.llm",
    "Agent": "dwqa_graph.evaluation.agents",
    "AgentAnswer": "dwqa_graph.evaluation.agents",
    "make_agent": "dwqa_graph.evaluation.agents",
    "import_static": "dwqa_graph.evaluation.datasets",
    "static_items": "dwqa_graph.evaluation.datasets",
    "round_items": "dwqa_graph.evaluation.evaluate",
    "evaluate": "dwqa_graph.evaluation.evaluate",
    "runtime_check": "dwqa_graph.leakage.runtime",
    "guided_completion": "dwqa_graph.leakage.pretraining",
    "min_k_prob": "dwqa_graph.leakage.pretraining",
    "find_paraphrases": "dwqa_graph.leakage.paraphrase",
    "leaktest": "dwqa_graph.leakage.leaktest",
    "write_report": "dwqa_graph.report",
}
#: names whose attribute in the module differs from the public name
# (``ingest_logs``: ``dwqa_graph.ingest`` is the stage's subpackage, which Python binds on
# the package as soon as it is imported, so the function cannot share its name.)
_ALIASES = {"serve_web": "serve", "ingest_logs": "ingest"}

# Sorted, and equal to the keys of _EXPORTS plus __version__ (a test checks both).
__all__ = [
    "AGENTS",
    "Agent",
    "AgentAnswer",
    "CoreNLP",
    "DwqaError",
    "FetchOptions",
    "GENERATORS",
    "LLM",
    "LLM_PROVIDERS",
    "SCORERS",
    "SEARCH_CLIENTS",
    "SampleConfig",
    "Settings",
    "Store",
    "__version__",
    "evaluate",
    "export_round",
    "extract_claims",
    "extract_facts",
    "fetch",
    "find_paraphrases",
    "freeze_round",
    "guided_completion",
    "import_static",
    "ingest_logs",
    "leaktest",
    "load_settings",
    "make_agent",
    "make_generator",
    "make_llm",
    "min_k_prob",
    "new_round",
    "open_graph",
    "round_items",
    "runtime_check",
    "serve_web",
    "static_items",
    "write_report",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dwqa_graph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ALIASES.get(name, name))
    globals()[name] = value  # the next access skips this function
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from dwqa_graph.claims.extract import extract_claims
    from dwqa_graph.config import Settings, load_settings
    from dwqa_graph.errors import DwqaError
    from dwqa_graph.evaluation.agents import Agent, AgentAnswer, make_agent
    from dwqa_graph.evaluation.datasets import import_static, static_items
    from dwqa_graph.evaluation.evaluate import evaluate, round_items
    from dwqa_graph.facts.stage import extract_facts
    from dwqa_graph.graph.server import open_graph
    from dwqa_graph.graph.store import Store
    from dwqa_graph.ingest.logs import ingest as ingest_logs
    from dwqa_graph.language.corenlp import CoreNLP
    from dwqa_graph.leakage.leaktest import leaktest
    from dwqa_graph.leakage.paraphrase import find_paraphrases
    from dwqa_graph.leakage.pretraining import guided_completion, min_k_prob
    from dwqa_graph.leakage.runtime import runtime_check
    from dwqa_graph.llm import LLM, make_llm
    from dwqa_graph.registry import (
        AGENTS,
        GENERATORS,
        LLM_PROVIDERS,
        SCORERS,
        SEARCH_CLIENTS,
    )
    from dwqa_graph.report import write_report
    from dwqa_graph.rounds.generate import make_generator
    from dwqa_graph.rounds.round import export_round, freeze_round, new_round
    from dwqa_graph.rounds.sampling import SampleConfig
    from dwqa_graph.web.fetch import FetchOptions, fetch
    from dwqa_graph.web.localweb import serve as serve_web
