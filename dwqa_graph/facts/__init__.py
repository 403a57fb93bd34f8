"""Stage 4 — typed facts: (entity, relation, entity | date | quantity), each supported by a
claim's verbatim span, with entities resolved across the graph.

``extract.py`` reads facts from the language layer's parses (offline), ``llm.py`` with a
chat model; ``resolve.py`` decides which mentions are one entity; ``stage.py`` runs it over
the graph; ``models.py`` is what is stored.
"""

from dwqa_graph.facts.models import RELATIONS, EntityRef, Fact
from dwqa_graph.facts.stage import FactsReport, extract_facts

__all__ = ["RELATIONS", "EntityRef", "Fact", "FactsReport", "extract_facts"]
