"""The user documentation: a short README that starts with the two commands, and a MkDocs
site that builds in strict mode (any warning fails) with a CLI reference generated from the
click commands themselves."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click

from dwqa_graph.cli.main import main

from .paths import REPO_ROOT


def test_readme_is_short_and_starts_with_the_two_commands() -> None:
    text = (REPO_ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 100  # two screens
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split()[0] for line in first_block.splitlines() if line.strip()
                and not line.startswith(" ")]
    assert commands == ["scripts/demo", "scripts/test"]
    # Every page the README links to exists.
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (REPO_ROOT / target).is_file(), target


def _commands(group: click.Group, prefix: str) -> list[str]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        path = f"{prefix} {name}"
        out.append(path)
        if isinstance(cmd, click.Group):
            out += _commands(cmd, path)
    return out


def test_docs_build_strict_with_every_command(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                           "-f", str(REPO_ROOT / "mkdocs.yml"), "-d", str(site)],
                          capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
    cli = (site / "cli" / "index.html").read_text()
    commands = _commands(main, "dwqa")
    assert len(commands) > 20
    missing = [c for c in commands if c not in cli]
    assert not missing, missing
    api = (site / "api" / "index.html").read_text()
    assert "extract_facts" in api and "new_round" in api  # rendered from docstrings
