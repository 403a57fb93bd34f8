"""Settings: where Neo4j is and where the project keeps its data.

Everything comes from environment variables with defaults that work for the local server
that ``dwqa db up`` starts, so a fresh clone needs no configuration at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

#: Repository root (the package is used from a checkout: ``cypher/`` and ``prompts/`` live here).
REPO_ROOT = Path(__file__).resolve().parent.parent
CYPHER_DIR = Path(os.environ.get("DWQA_CYPHER_DIR", REPO_ROOT / "cypher"))
PROMPTS_DIR = Path(os.environ.get("DWQA_PROMPTS_DIR", REPO_ROOT / "prompts"))


@dataclass(frozen=True)
class Settings:
    """Connection and data-directory settings.

    ``uri_explicit`` records whether the user pointed us at a server (``NEO4J_URI``); only
    then do we refrain from starting one ourselves.
    """

    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    password: str = "dwqa-local"
    database: str = "neo4j"
    uri_explicit: bool = False
    #: Project data directory: Neo4j store, logs, caches. Never inside a user's Neo4j.
    home: Path = REPO_ROOT / ".dwqa"
    bolt_port: int = 7687
    http_port: int = 7474
    #: Seconds to wait for a starting server to answer on Bolt.
    start_timeout: float = 180.0

    @property
    def neo4j_home(self) -> Path:
        return self.home / "neo4j"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/browser/"

    def with_ports(self, bolt_port: int, http_port: int) -> Settings:
        return replace(
            self, bolt_port=bolt_port, http_port=http_port, uri=f"bolt://127.0.0.1:{bolt_port}"
        )


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """Read settings from ``env`` (default: ``os.environ``)."""
    env = dict(os.environ if env is None else env)
    bolt_port = int(env.get("DWQA_BOLT_PORT", "7687"))
    http_port = int(env.get("DWQA_HTTP_PORT", "7474"))
    uri = env.get("NEO4J_URI")
    return Settings(
        uri=uri or f"bolt://127.0.0.1:{bolt_port}",
        user=env.get("NEO4J_USER", "neo4j"),
        password=env.get("NEO4J_PASSWORD", "dwqa-local"),
        database=env.get("NEO4J_DATABASE", "neo4j"),
        uri_explicit=bool(uri),
        home=Path(env.get("DWQA_HOME", REPO_ROOT / ".dwqa")),
        bolt_port=bolt_port,
        http_port=http_port,
        start_timeout=float(env.get("DWQA_START_TIMEOUT", "180")),
    )
