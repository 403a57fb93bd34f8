"""The package's import structure: no module imports itself through a cycle, and the stages
keep the pipeline's order (``[tool.importlinter]`` in pyproject.toml, which scripts/test also
runs as ``lint-imports``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from tests.paths import REPO_ROOT


def import_cycles(package: str) -> list[list[str]]:
    """The file-level import cycles of ``package``: each strongly connected set of two or more
    modules of its direct-import graph (Tarjan's algorithm, iterative)."""
    graph = grimp.build_graph(package)
    adj = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(adj):
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(adj.get(child, []))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    part.append(m)
                    if m == node:
                        break
                if len(part) > 1:
                    cycles.append(sorted(part))
    return cycles


def test_no_module_imports_itself_through_a_cycle() -> None:
    assert import_cycles("dwqa_graph") == []


def test_a_cycle_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # positive control: the same check on a package with a two-module cycle
    pkg = tmp_path / "cyclic_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyclic_pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from cyclic_pkg import a\n    return a\n")
    (pkg / "c.py").write_text("from cyclic_pkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclic_pkg") == [["cyclic_pkg.a", "cyclic_pkg.b"]]


def test_import_contract_holds() -> None:
    proc = subprocess.run([str(Path(sys.executable).parent / "lint-imports")], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _loaded_after(statement: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running ``statement``."""
    code = (f"{statement}; import sys; "
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO_ROOT).stdout
    return set(out.split())


@pytest.mark.parametrize("command", ["db", "ingest", "fetch", "claims", "facts", "round",
                                     "report"])
def test_a_command_that_calls_no_model_does_not_import_langchain(command: str) -> None:
    """``dwqa`` imports a command's module only when it runs (``cli/main.py``), and the LLM
    layer imports LangChain only to build or call a model: a pipeline script makes dozens of
    ``dwqa`` calls, and LangChain's import alone costs about a second each."""
    loaded = _loaded_after("from dwqa_graph.cli.main import main; "
                           f"main.get_command(None, {command!r})")
    assert "dwqa_graph" in loaded and "click" in loaded
    assert "langchain_core" not in loaded, command


def test_building_a_model_imports_langchain() -> None:
    """The positive control of the test above: the probe sees LangChain where it is used."""
    assert "langchain_core" in _loaded_after(
        "from dwqa_graph.llm import make_llm; make_llm('http://127.0.0.1:1/v1')")
