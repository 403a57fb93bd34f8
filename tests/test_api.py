"""The public Python API: its surface, the docs' walk-through, and the package as a user gets
it (a wheel installed into a fresh virtualenv, used from outside the checkout)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import dwqa_graph
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import corenlp_classpath
from dwqa_graph.maven import user_cache_dir
from dwqa_graph.web.localweb import serve
from tests.paths import EXAMPLES, REPO_ROOT

PACKAGE_DATA = (
    "dwqa_graph/cypher/rounds/export.cypher", "dwqa_graph/cypher/explore/seed_graphs.cypher",
    "dwqa_graph/prompts/path_wording.md", "dwqa_graph/neo4j/DwqaNeo4j.java",
    "dwqa_graph/neo4j/pom.xml", "dwqa_graph/neo4j/jvm.args", "dwqa_graph/py.typed",
)


def readme_snippet() -> str:
    """The walk-through on the docs' Python API page (the README links to it)."""
    page = (REPO_ROOT / "docs" / "python-api.md").read_text()
    return page.split("```python\n", 1)[1].split("```", 1)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def example_copy(dest: Path, port: int) -> Path:
    """The bundled example under ``dest/examples``, its logs citing the web on ``port``."""
    out = dest / "examples"
    shutil.copytree(EXAMPLES, out)
    for log in (out / "logs").glob("*.jsonl"):
        log.write_text(log.read_text().replace("127.0.0.1:8765", f"127.0.0.1:{port}"))
    return out


def test_public_api_is_sorted_complete_and_resolves() -> None:
    names = dwqa_graph.__all__
    assert names == sorted(names)
    assert set(names) == set(dwqa_graph._EXPORTS) | {"__version__"}
    for name in names:
        assert getattr(dwqa_graph, name) is not None, name
    assert set(dir(dwqa_graph)) == set(names)
    with pytest.raises(AttributeError, match="no_such_name"):
        dwqa_graph.no_such_name  # noqa: B018


def test_readme_snippet_runs(store: Store, env: dict[str, str], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    example_copy(tmp_path, port)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    code = readme_snippet().replace("8765", str(port))
    exec(compile(code, "docs/python-api.md", "exec"), {"__name__": "__main__"})  # noqa: S102 - our own docs
    items = (tmp_path / "out/api/round.jsonl").read_text().splitlines()
    assert items and all(json.loads(line)["question"] for line in items)
    assert (tmp_path / "out/api/report/index.html").stat().st_size > 1000
    assert store.counts().get("LeakTest") == 1


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as a user gets it: a wheel built from the checkout, installed (at the
    locked versions) into a fresh virtualenv."""
    root = tmp_path_factory.mktemp("wheel")
    # Build from a copy of what the wheel is made of: setuptools builds in-tree (build/), and
    # a stale build/ could smuggle deleted modules into the wheel.
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, src / name)
    shutil.copytree(REPO_ROOT / "dwqa_graph", src / "dwqa_graph",
                    ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                    str(root / "dist"), str(src)], check=True, capture_output=True)
    wheel = next((root / "dist").glob("dwqa_graph-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        missing = set(PACKAGE_DATA) - set(z.namelist())
    assert not missing, f"package data missing from the wheel: {missing}"
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    pip = [str(root / "venv/bin/python"), "-m", "pip", "install", "-q",
           "--disable-pip-version-check"]
    subprocess.run([*pip, "-c", str(REPO_ROOT / "requirements.lock"), str(wheel)], check=True,
                   capture_output=True)
    return root / "venv"


def test_wheel_works_outside_the_checkout(wheel_venv: Path, store: Store, env: dict[str, str],
                                          tmp_path: Path) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    home = tmp_path / "user-home"
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("DWQA_", "NEO4J_"))}
    base_env |= {"HOME": str(home), "PATH": f"{wheel_venv / 'bin'}:{base_env['PATH']}"}
    base_env.pop("XDG_DATA_HOME", None)

    def run(*args: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), cwd=work, env=base_env | (extra or {}), text=True,
                              capture_output=True, timeout=600)

    # The installed package is the wheel's, not the checkout's.
    where = run("python", "-c", "import dwqa_graph; print(dwqa_graph.__file__)")
    assert where.stdout.startswith(str(wheel_venv)), where
    # With no DWQA_HOME, data goes to the per-user data directory, never site-packages.
    home_dir = run("python", "-c", "from dwqa_graph.config import load_settings; "
                   "print(load_settings().home)")
    assert home_dir.stdout.strip() == str(home / ".local/share/dwqa"), home_dir

    listing = run("dwqa", "query", "--list", "--json")
    assert listing.returncode == 0 and "seed_graphs" in json.loads(listing.stdout), listing
    status = run("dwqa", "db", "status", "--json", extra=env)
    assert status.returncode == 0 and json.loads(status.stdout)["running"], status

    # Facts are read with CoreNLP: the jars this machine already resolved (the user's cache,
    # not the test's empty home, where Maven would fetch 500 MB again).
    corenlp_classpath()
    cache = {"DWQA_CACHE": str(user_cache_dir())}
    port = free_port()
    examples = example_copy(work, port)
    with serve(examples / "web", port=port):
        # the film runs: their pages' facts give every graph paths (the three agent runs
        # give a round few; whether any depends on the draws, which the port's URLs seed)
        steps = [("ingest", str(examples / "logs/film_runs.jsonl"), "--dataset", "example"),
                 ("fetch", "--allow-private"), ("claims",), ("facts",),
                 ("round", "new", "--seed", "3")]
        out = {}
        for step in steps:
            proc = run("dwqa", *step, "--json", extra=env | cache)
            assert proc.returncode == 0, (step, proc.stderr[-2000:])
            out[step[0]] = json.loads(proc.stdout)
    assert out["ingest"]["ingested"] == 10 and out["fetch"]["ok"] > 0
    assert out["claims"]["claims"] > 0 and out["round"]["items"] >= 5, out["round"]
    t = str(out["round"]["round"])
    ev = run("dwqa", "eval", "--round", t, "--agent", "baseline", "--json", extra=env)
    assert ev.returncode == 0 and json.loads(ev.stdout)["n"] == out["round"]["items"], ev

    # The docs' snippet, in the installed package, from outside the checkout.
    snippet = work / "snippet.py"
    snippet.write_text(readme_snippet().replace("8765", str(port)).replace(
        "examples/", f"{examples}/"))
    proc = run("python", str(snippet), extra=env | cache)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (work / "out/api/report/index.html").exists()
