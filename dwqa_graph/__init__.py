"""dwqa-graph: fresh, verifiable, multi-hop QA rounds for web-QA agents, from Neo4j graphs.

The library is the product; the ``dwqa`` CLI (``dwqa_graph.cli.main``) is a thin skin over it.
Stages (one module each): ``ingest`` (agent logs -> seed graphs), ``steps`` (transcript ->
typed steps). Infrastructure: ``config`` (settings), ``server`` (start/stop Neo4j),
``store`` (the only module that talks to the driver), ``queries`` (named Cypher files).
"""

__version__ = "0.1.0"
