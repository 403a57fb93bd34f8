"""Stage 4 — typed facts: (entity, relation, entity | date | quantity), each supported by a
verbatim span of a page version, with entities resolved across the graph.

``models.py`` is what is stored and the one relation schema; ``extractor.py`` the interface
every fact extractor implements (``extractors/corenlp.py`` reads page text with the language
layer's parses through the rules of ``extract.py``, ``extractors/llm.py`` reads the claims with
a chat model); ``resolve.py`` decides which mentions are one entity; ``stage.py`` runs an
extractor over the graph.
"""

from dwqa_graph.facts.extractor import FactExtractor, Reading, Unread, make_extractor
from dwqa_graph.facts.models import RELATIONS, SCHEMA, EntityRef, Fact
from dwqa_graph.facts.stage import FactsReport, extract_facts, run_extractor

__all__ = ["RELATIONS", "SCHEMA", "EntityRef", "Fact", "FactExtractor", "FactsReport", "Reading",
           "Unread", "extract_facts", "make_extractor", "run_extractor"]
