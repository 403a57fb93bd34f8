"""CoreNLP's fine-grained NER gazetteers, rewritten so that the library's matcher can index
every entry.

The fine-grained step of ``ner`` (``ner.applyFineGrained``: job titles, nationalities,
countries, states and cities told from generic names) is a TokensRegexNER pass over two
gazetteers of the models jar, ~587,000 entries. Its matcher finds an entry's candidates
through a hash of the entry's literal tokens; an entry none of whose tokens is a literal
string (``Calif\\.?``, ``u\\.s\\.``, ``Gen\\.``: a dot makes a token a regular expression) has
no key and is tried at every token of every sentence. About a thousand such entries made
the step half of the whole pipeline's time (``benchmarks/bench_facts_profile.py``).

``compile_gazetteer`` keeps every entry with a literal token as it is and merges the
single-token unindexable entries that share type, overwritable types and priority into one
alternation (``(?:Ala\\.?|Ariz\\.?|...)``): a token matches the alternation exactly when it
matches one of them, with the same type, so the tags are the library's own
(``tests/test_gazetteer.py`` compares them token by token with the library's defaults).
The few unindexable entries of several tokens stay as they are. What remains unindexed
is ~60 patterns instead of ~1,000.

The compiled files are written once per models jar into the cache (``DWQA_CACHE``).
"""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

from dwqa_graph.errors import LanguageError

#: The library's own fine-grained mapping (CoreNLP 4.5.7's ``ner.fine.regexner.mapping``
#: default): per-file options, then the file in the models jar.
FINE_MAPPING: tuple[tuple[str, str], ...] = (
    ("ignorecase=true,validpospattern=(NN|JJ|ADD).*",
     "edu/stanford/nlp/models/kbp/english/gazetteers/regexner_caseless.tab"),
    ("", "edu/stanford/nlp/models/kbp/english/gazetteers/regexner_cased.tab"),
)
#: Keys the compiled files in the cache: a change to ``compile_gazetteer`` needs a new one.
GAZETTEER_VERSION = 1
MODELS_JAR = re.compile(r"stanford-corenlp-[^/]*-models\.jar$")
#: A token the library matches as a literal string (its
#: ``ComplexNodePattern.LITERAL_PATTERN``); any other is a regular expression.
_LITERAL = re.compile(r"[^\[\]?.\\^$()*+{}|]*")


def indexable(pattern: str) -> bool:
    """Whether the matcher can find this entry by a literal token of it."""
    return any(_LITERAL.fullmatch(tok) for tok in pattern.split(" "))


def compile_gazetteer(lines: Iterable[str]) -> list[str]:
    """The gazetteer's lines (tab-separated: pattern, type, overwritable types, priority)
    with its single-token unindexable entries merged per (type, overwritable, priority)
    into one alternation each, placed where the first of them was."""
    out: list[str] = []
    merged: dict[tuple[str, ...], list[str]] = {}
    slot: dict[tuple[str, ...], int] = {}
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        pattern, *rest = line.split("\t")
        if indexable(pattern) or " " in pattern:
            out.append(line)
            continue
        key = tuple(rest)
        if key not in merged:
            merged[key] = []
            slot[key] = len(out)
            out.append("")  # filled below
        merged[key].append(pattern)
    for key, patterns in merged.items():
        alternation = patterns[0] if len(patterns) == 1 else \
            "(?:" + "|".join(patterns) + ")"
        out[slot[key]] = "\t".join((alternation, *key))
    return out


def models_jar(classpath: str) -> Path:
    for entry in classpath.split(os.pathsep):
        if MODELS_JAR.search(entry):
            return Path(entry)
    raise LanguageError("the CoreNLP classpath has no English models jar "
                        "(stanford-corenlp-*-models.jar)")


def fine_mapping(classpath: str, cache: Path) -> str:
    """The value of ``ner.fine.regexner.mapping`` for the compiled gazetteers (written into
    ``cache`` on first use, atomically)."""
    jar = models_jar(classpath)
    stat = jar.stat()
    digest = hashlib.sha256(f"{jar.name}:{stat.st_size}:{GAZETTEER_VERSION}".encode()
                            ).hexdigest()[:16]
    parts = []
    for options, member in FINE_MAPPING:
        target = cache / f"gazetteer-{digest}-{Path(member).name}"
        if not target.exists():  # the jar (~500 MB) is opened only the first time
            with zipfile.ZipFile(jar) as z:
                text = z.read(member).decode("utf-8")
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text("\n".join(compile_gazetteer(text.splitlines())) + "\n",
                           encoding="utf-8")
            tmp.replace(target)
        if any(c in str(target) for c in ",;"):
            raise LanguageError(f"the cache directory {cache} holds ',' or ';', which "
                                "CoreNLP's mapping list cannot carry: set DWQA_CACHE")
        parts.append(f"{options},{target}" if options else str(target))
    return ";".join(parts)
