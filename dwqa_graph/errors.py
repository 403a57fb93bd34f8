"""The one error tree. Every failure a user can cause or fix is a :class:`DwqaError`;
anything else is a bug and keeps its traceback (the CLI catches only ``DwqaError``).

::

    DwqaError
    ├── UsageError (ValueError)      a bad argument, option or spec: names the value and the fix
    │   └── AgentError               an agent spec that cannot be set up
    ├── InputError (ValueError)      a file that yields nothing usable (a bad record is a
    │                                per-record Problem instead, and the run goes on)
    ├── NotFoundError (LookupError)  a file, round, run, dataset or named query that is not there
    │   └── UnknownQueryError
    ├── ConflictError                the graph's state forbids the write
    │   └── RoundFrozenError         a frozen round is immutable
    ├── GraphError                   Neo4j
    │   ├── ServerError              could not be started or reached
    │   └── StoreError               refused or failed a request
    └── ServiceError                 an outside service
        ├── SearchError              the search endpoint
        ├── LLMError                 a chat model that cannot be set up
        └── LanguageError            the NLP library (Stanford CoreNLP) could not start or read
            └── WorkerError          its worker process died: the reader broke, not the text

``UsageError`` and ``InputError`` are also ``ValueError`` and ``NotFoundError`` a
``LookupError``, so code written against the built-in types keeps working.
"""

from __future__ import annotations


class DwqaError(Exception):
    """Base of every error the user can act on; the message says what and how to fix it."""


class UsageError(DwqaError, ValueError):
    """A bad argument, option or spec."""


class AgentError(UsageError):
    """A bad agent spec or an agent that cannot be set up; the message says which and how."""


class InputError(DwqaError, ValueError):
    """An input file that yields nothing usable."""


class NotFoundError(DwqaError, LookupError):
    """A named thing (file, round, run, dataset, query) that is not there."""

    def __str__(self) -> str:  # LookupError would repr() a single argument, quotes and all
        return str(self.args[0]) if self.args else ""


class UnknownQueryError(NotFoundError):
    """A named query that has no file under ``cypher/``."""


class ConflictError(DwqaError):
    """The graph's current state forbids the requested write."""


class RoundFrozenError(ConflictError):
    """A frozen round cannot be regenerated or changed."""


class GraphError(DwqaError):
    """Neo4j could not do what was asked."""


class ServerError(GraphError):
    """Neo4j could not be started or reached; the message names what is missing."""


class StoreError(GraphError):
    """Neo4j is unreachable or refused a request; the message says what to do."""


class ServiceError(DwqaError):
    """An outside service (search engine, model) failed or is misconfigured."""


class SearchError(ServiceError):
    """The search service failed; the message says which and how."""


class RunFailedError(ServiceError):
    """An evaluation whose agent failed on every item or on more than ``--max-errors`` of
    them: stored as failed (for inspection), never reported as a score."""


class LLMError(ServiceError):
    """An LLM could not be set up (unknown spec, missing extra)."""


class LanguageError(ServiceError):
    """Stanford CoreNLP could not be fetched or started, or failed on a text."""


class WorkerError(LanguageError):
    """The CoreNLP worker died while reading a text and could not be restarted, or died
    again with the text in flight: the text may be fine, a re-run reads it."""
