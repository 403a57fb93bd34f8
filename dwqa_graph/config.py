"""Settings: where Neo4j is and where the project keeps its data.

Everything comes from environment variables with defaults that work for the local server
that ``dwqa db up`` starts, so a fresh clone needs no configuration at all.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from dwqa_graph.errors import UsageError


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


#: Password assumed for a server the user names with NEO4J_URI and no NEO4J_PASSWORD (as before).
EXTERNAL_DEFAULT_PASSWORD = "dwqa-local"
#: File under ``Settings.home`` holding the password of the Neo4j that dwqa starts itself.
PASSWORD_FILE = "neo4j-password"


def installation_password(path: Path) -> str:
    """The per-installation Neo4j password kept in ``path`` (mode 0600), created on first use.

    Created under a temporary name and hard-linked into place, so concurrent first uses agree
    on one password and no reader ever sees a half-written file.
    """
    try:
        return _read_password(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_urlsafe(24) + "\n")  # 192 random bits
        with contextlib.suppress(FileExistsError):  # another process won the race: use its
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return _read_password(path)


def _read_password(path: Path) -> str:
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)  # e.g. copied with a umask that let others read it
    password = path.read_text(encoding="ascii").strip()
    if len(password) < 8:

        raise UsageError(f"{path} holds no usable Neo4j password: delete it and run `dwqa db up`")
    return password


@dataclass(frozen=True)
class Settings:
    """Connection and data-directory settings.

    ``uri_explicit`` records whether the user pointed us at a server (``NEO4J_URI``); only
    then do we refrain from starting one ourselves.
    """

    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    #: NEO4J_PASSWORD when set; otherwise see ``password``.
    password_env: str | None = field(default=None, repr=False)
    database: str = "neo4j"
    uri_explicit: bool = False
    #: Project data directory: Neo4j store, logs, caches. Never inside a user's Neo4j.
    home: Path = Path(".dwqa")
    bolt_port: int = 7687
    http_port: int = 7474
    #: Seconds to wait for a starting server to answer on Bolt.
    start_timeout: float = 180.0
    #: The local server's JVM heap and page cache (Neo4j size strings, "3g", "512m"): from
    #: DWQA_NEO4J_HEAP / DWQA_NEO4J_PAGECACHE, else sized from this machine's memory
    #: (``memory_defaults``). Transaction memory is 70% of the heap.
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"

    @property
    def neo4j_home(self) -> Path:
        return self.home / "neo4j"

    @property
    def password_file(self) -> Path:
        return self.home / PASSWORD_FILE

    @property
    def password(self) -> str:
        """NEO4J_PASSWORD if set; for an external server (NEO4J_URI) the historical default;
        for the server dwqa starts, the installation's generated password (read from
        ``home``, so a ``replace(settings, home=...)`` gets that home's password)."""
        if self.password_env is not None:
            return self.password_env
        if self.uri_explicit:
            return EXTERNAL_DEFAULT_PASSWORD
        return installation_password(self.password_file)

    @property
    def browser_url(self) -> str:
        """Neo4j Browser with the connection filled in (Browser URL parameters ``dbms``,
        ``db`` and ``preselectAuthMethod``): open it, type the password, press Connect. The
        password is never put in the URL (it would end up in history and logs)."""
        bolt = (f"neo4j://{self.user}@127.0.0.1:{self.bolt_port}" if not self.uri_explicit
                else self.uri.replace("://", f"://{self.user}@", 1))
        return (f"http://127.0.0.1:{self.http_port}/browser/?dbms={quote(bolt, safe=':/@')}"
                f"&db={quote(self.database)}&preselectAuthMethod=NATIVE")

    @property
    def browser_login(self) -> str:
        """How to log in to the Browser, one line (where the password is, never the password)."""
        where = ("NEO4J_PASSWORD" if self.uri_explicit or self.password_env is not None
                 else str(self.password_file))
        return (f"log in as {self.user!r} with the password in {where} "
                "(Authentication type: Username / Password is preselected)")

    def with_ports(self, bolt_port: int, http_port: int) -> Settings:
        return replace(
            self, bolt_port=bolt_port, http_port=http_port, uri=f"bolt://127.0.0.1:{bolt_port}"
        )


_SIZE = re.compile(r"^[1-9][0-9]{0,6}[kmg]$")


def memory_defaults(total_bytes: int | None = None) -> tuple[str, str]:
    """(heap, page cache) for the local server: an eighth of the machine's memory each,
    heap between 1 and 8 GiB, page cache between 512 MiB and 4 GiB (24 GiB: 3g and 3g).
    The heap bounds transaction memory (70% of it), which large rounds need."""
    if total_bytes is None:
        try:
            total_bytes = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            total_bytes = 8 << 30
    mib = total_bytes // (8 << 20)
    return f"{min(max(mib, 1024), 8192)}m", f"{min(max(mib, 512), 4096)}m"


def _port(env: dict[str, str], name: str, default: int) -> int:
    raw = env.get(name, str(default))
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise UsageError(f"{name}={raw!r} is not a port number (1-65535)")
    return int(raw)


def _size(env: dict[str, str], name: str, default: str) -> str:
    raw = env.get(name, default).strip().lower()
    if not _SIZE.match(raw):
        raise UsageError(f"{name}={raw!r} is not a memory size such as 3g or 512m")
    return raw


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """Read settings from ``env`` (default: ``os.environ``)."""
    env = dict(os.environ if env is None else env)
    bolt_port = _port(env, "DWQA_BOLT_PORT", 7687)
    http_port = _port(env, "DWQA_HTTP_PORT", 7474)
    heap, pagecache = memory_defaults()
    uri = env.get("NEO4J_URI")
    return Settings(
        uri=uri or f"bolt://127.0.0.1:{bolt_port}",
        user=env.get("NEO4J_USER", "neo4j"),
        password_env=env.get("NEO4J_PASSWORD"),
        database=env.get("NEO4J_DATABASE", "neo4j"),
        uri_explicit=bool(uri),
        home=default_home(env),
        bolt_port=bolt_port,
        http_port=http_port,
        start_timeout=float(env.get("DWQA_START_TIMEOUT", "180")),
        neo4j_heap=_size(env, "DWQA_NEO4J_HEAP", heap),
        neo4j_pagecache=_size(env, "DWQA_NEO4J_PAGECACHE", pagecache),
    )
