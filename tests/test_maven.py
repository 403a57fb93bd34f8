"""The per-user cache of a pom's classpath: used while every jar it lists exists, never when
it lists a missing jar or nothing at all (a truncated file), which must go back to Maven."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dwqa_graph import maven
from dwqa_graph.errors import ServerError

POM = "<project><modelVersion>4.0.0</modelVersion></project>\n"


@pytest.fixture
def pom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DWQA_CACHE", str(tmp_path / "cache"))
    # No mvn on PATH: a call that goes back to Maven says so instead of resolving.
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    path = tmp_path / "pom.xml"
    path.write_text(POM)
    return path


def write_cache(pom: Path, text: str) -> None:
    path = maven.classpath_cache(pom, "demo")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_cache_whose_jars_exist_is_used(pom: Path, tmp_path: Path) -> None:
    jars = [tmp_path / "a.jar", tmp_path / "b.jar"]
    for jar in jars:
        jar.write_bytes(b"PK")
    listed = os.pathsep.join(str(j) for j in jars)
    write_cache(pom, listed + "\n")
    assert maven.classpath(pom, "demo", ServerError) == listed


@pytest.mark.parametrize("text", ["", "\n", "{missing}", "{jar}{sep}{missing}"],
                         ids=["empty", "blank", "missing-jar", "one-jar-missing"])
def test_a_cache_that_lists_a_missing_jar_or_nothing_goes_back_to_maven(
        pom: Path, tmp_path: Path, text: str) -> None:
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"PK")
    write_cache(pom, text.format(jar=jar, sep=os.pathsep, missing=tmp_path / "gone.jar"))
    with pytest.raises(ServerError, match=r"Maven \(mvn\) is needed"):
        maven.classpath(pom, "demo", ServerError)
