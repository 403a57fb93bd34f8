"""The jars of the Java parts (the Neo4j launcher, Stanford CoreNLP), resolved by Maven.

Maven downloads them into ~/.m2 once; the resolved classpath is cached per user, keyed by
the pom's hash, so that a fresh checkout or a new project directory does not start Maven
again (a resolution with every jar present still costs Maven ten seconds or more).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from dwqa_graph.errors import DwqaError


def user_cache_dir() -> Path:
    """Caches shared by the user's projects: ``DWQA_CACHE``, else ``$XDG_CACHE_HOME/dwqa``
    (``~/.cache/dwqa``)."""
    root = os.environ.get("DWQA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "dwqa")
    return Path(root)


def classpath_cache(pom: Path, name: str) -> Path:
    """Where ``classpath`` keeps ``pom``'s classpath: per user, keyed by the pom's hash."""
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:16]
    return user_cache_dir() / f"{name}-classpath-{digest}.txt"


def classpath(pom: Path, name: str, error: type[DwqaError]) -> str:
    """The classpath of ``pom``'s dependencies (``name`` says whose, in errors, which are
    ``error``). The cache is used only while every jar it lists is still there."""
    cache = classpath_cache(pom, name)
    if cache.exists():
        cached = cache.read_text().strip()
        if cached and all(Path(p).exists() for p in cached.split(os.pathsep)):
            return cached
    if not shutil.which("mvn"):
        raise error(f"Maven (mvn) is needed to fetch the {name} jars: install maven.")
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")  # two first runs at once each write their own
    proc = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(pom), "dependency:build-classpath",
         f"-Dmdep.outputFile={tmp}"], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not tmp.exists():
        raise error(f"Maven could not resolve the {name} jars:\n"
                    f"{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    tmp.replace(cache)
    return cache.read_text().strip()


def main_class(source: Path, classpath: str, error: type[DwqaError]) -> list[str]:
    """The java arguments that run the single-file program ``source`` on ``classpath``:
    ``-cp CLASSPATH:DIR Name`` with the program compiled once per user into DIR (keyed by
    the source's and the classpath's hash), or, without javac, ``-cp CLASSPATH source``
    (Java's source launcher, which compiles it again at every start: two seconds and three
    CPU-seconds each time a server or a reader starts)."""
    javac = shutil.which("javac")
    if javac is None:
        return ["-cp", classpath, str(source)]
    digest = hashlib.sha256(source.read_bytes() + classpath.encode()).hexdigest()[:16]
    out = user_cache_dir() / f"classes-{source.stem}-{digest}"
    if not (out / f"{source.stem}.class").exists():
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        proc = subprocess.run([javac, "-nowarn", "-cp", classpath, "-d", str(tmp), str(source)],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            raise error(f"javac could not compile {source.name}:\n{proc.stderr[-3000:]}")
        try:
            tmp.rename(out)
        except OSError:  # another run compiled it first
            shutil.rmtree(tmp, ignore_errors=True)
    return ["-cp", f"{classpath}{os.pathsep}{out}", source.stem]
