"""The fact-extractor interface: what the facts stage needs from a reader of text.

An extractor reads a page of pending DocumentVersions and says, for each, the facts it read
(with the pronoun the page uses for its subject, and the tokens it read) or why it could not
read it. The stage (``stage.py``) does the rest the same way for every extractor: which
versions are pending, the write plan, the transaction that stores a version's facts with the
mark of the extractor that read them, the report. The built-in extractors live in
``facts/extractors/`` and are registered in ``FACT_EXTRACTORS`` like agents, so a plugin
package adds one through the entry-point group ``dwqa_graph.fact_extractors``::

    @FACT_EXTRACTORS.register("mine", summary="...")
    def mine(*, nlp=None, llm=None) -> FactExtractor: ...

Every extractor's facts are held to the one relation schema (``models.SCHEMA``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from types import TracebackType
from typing import Any, NamedTuple

from dwqa_graph.facts.models import Fact
from dwqa_graph.registry import FACT_EXTRACTORS

#: Characters of a version an extractor is given: a whole encyclopedia page but for the
#: longest few (a page's later sections hold as many of its subject's dated events as its
#: lead, and as precise ones), and a bound on what one page costs to read (~22k tokens).
#: The CoreNLP extractor's key carries it: a run with another cap reads every version again.
MAX_VERSION_CHARS = 120_000


class Reading(NamedTuple):
    """What an extractor read from one version."""

    facts: list[Fact]
    #: The pronoun the page's text uses for its subject ("he", "she"; None when its text
    #: does not say): a question names a person once and then by it.
    pronoun: str | None = None
    #: Tokens the extractor read (its throughput's numerator; 0 where it does not count).
    tokens: int = 0


class Unread(NamedTuple):
    """A version the extractor could not read, and why (it stays pending)."""

    reason: str
    #: True: the reader broke (its worker died, the model is unreachable), not the text; the
    #: run is incomplete and ``dwqa facts`` exits non-zero.
    broken: bool = False


class FactExtractor:
    """Base of the fact extractors. A subclass sets the class attributes and ``key``, and
    implements ``read``; ``close`` releases what it holds (a worker process, an event loop)."""

    #: Facts of one family replace each other on a re-read (the stage clears the family's
    #: earlier facts of a version before writing the new ones).
    family: str = ""
    #: True: reads the claims stage's spans (only versions with claims are pending for it);
    #: False: reads the version's text.
    claims_only: bool = False
    #: Versions per pending page (and per write transaction).
    page_size: int = 50

    def __init__(self) -> None:
        #: Facts the extractor read and refused, by reason (the report shows them).
        self.rejected: Counter[str] = Counter()

    @property
    def key(self) -> str:
        """The versioned id stored on every fact it reads and on the versions it read: a new
        version of the extractor reads every version again."""
        raise NotImplementedError

    def read(self, versions: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                        Reading | Unread]]:
        """Each version (rows of ``facts/pending``: id, document_id, title, text, claims)
        with what was read from it, in input order, each as soon as it is read (the stage
        writes it with the next batch: a stall or a kill loses only the versions in flight
        and the batch not yet written)."""
        raise NotImplementedError

    @property
    def broken(self) -> str | None:
        """Why no version can be read any more (the reader cannot be restarted); None while
        it can read."""
        return None

    def counts(self) -> dict[str, int]:
        """The extractor's own counters for the report (e.g. restarts of a worker)."""
        return {}

    def close(self) -> None:
        """Release what the extractor holds."""

    def __enter__(self) -> FactExtractor:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def make_extractor(name: str, *, nlp: Any = None, llm: Any = None) -> FactExtractor:
    """The registered extractor ``name`` (``corenlp``, ``llm`` or a plugin's)."""
    extractor: FactExtractor = FACT_EXTRACTORS.get(name).factory(nlp=nlp, llm=llm)
    return extractor
