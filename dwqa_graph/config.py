"""Settings: where Neo4j is and where the project keeps its data.

Everything comes from environment variables with defaults that work for the local server
that ``dwqa db up`` starts, so a fresh clone needs no configuration at all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from urllib.parse import quote


def package_data(name: str) -> Path:
    """A folder shipped inside the package (``cypher``, ``prompts``, ``neo4j``).

    Read through ``importlib.resources`` so it is found wherever the package is installed
    (a checkout, a wheel in site-packages); pip always installs packages as plain files, so
    the folder is a real path that subprocesses (java, mvn) can use too.
    """
    return Path(str(resources.files("dwqa_graph").joinpath(name)))


CYPHER_DIR = package_data("cypher")
PROMPTS_DIR = package_data("prompts")
LAUNCHER_DIR = package_data("neo4j")


def _checkout_root() -> Path | None:
    """The source checkout the package is imported from (an editable install), if any."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / ".git").exists() else None


def default_home(env: dict[str, str] | None = None) -> Path:
    """Where the project keeps its data (Neo4j store, password, caches).

    ``DWQA_HOME`` wins; a source checkout keeps using its own ``.dwqa/`` (as the scripts and
    tests expect); an installed package uses the per-user data directory
    (``$XDG_DATA_HOME/dwqa``, by default ``~/.local/share/dwqa``) -- never site-packages.
    """
    env = dict(os.environ if env is None else env)
    if env.get("DWQA_HOME"):
        return Path(env["DWQA_HOME"]).expanduser()
    checkout = _checkout_root()
    if checkout is not None:
        return checkout / ".dwqa"
    data = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "dwqa"


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
    home: Path = Path(".dwqa")
    bolt_port: int = 7687
    http_port: int = 7474
    #: Seconds to wait for a starting server to answer on Bolt.
    start_timeout: float = 180.0

    @property
    def neo4j_home(self) -> Path:
        return self.home / "neo4j"

    @property
    def auth_required(self) -> bool:
        """Whether Neo4j asks for a password: the server ``dwqa db up`` launches runs
        without auth (neo4j/DwqaNeo4j.java); a server named by NEO4J_URI is assumed to."""
        return self.uri_explicit

    @property
    def browser_url(self) -> str:
        """Neo4j Browser with the connection filled in (Browser URL parameters ``dbms``,
        ``db`` and ``preselectAuthMethod``): open it and press Connect."""
        bolt = (f"neo4j://{self.user}@127.0.0.1:{self.bolt_port}" if not self.uri_explicit
                else self.uri.replace("://", f"://{self.user}@", 1))
        method = "NATIVE" if self.auth_required else "NO_AUTH"
        return (f"http://127.0.0.1:{self.http_port}/browser/?dbms={quote(bolt, safe=':/@')}"
                f"&db={quote(self.database)}&preselectAuthMethod={method}")

    @property
    def browser_login(self) -> str:
        """How to log in to the Browser, one line."""
        if self.auth_required:
            return (f"log in as {self.user!r} with the password in NEO4J_PASSWORD "
                    "(Authentication type: Username / Password is preselected)")
        return "no password: this server runs without authentication; press Connect"

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
        home=default_home(env),
        bolt_port=bolt_port,
        http_port=http_port,
        start_timeout=float(env.get("DWQA_START_TIMEOUT", "180")),
    )
