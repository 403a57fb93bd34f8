"""Reading English: one stage below claims, facts, rounds and evaluation.

Tokens, sentences, part of speech, named entities with normalised dates and quantities, and
dependency parses come from Stanford CoreNLP (a maintained library, run by the project as one
long-lived local process per command: ``corenlp.py``), not from hand-written patterns.
``doc.py`` is the parsed text as Python sees it; ``values.py`` turns the library's normalised
values into dates with a precision and numbers with a unit.

Nothing in this package imports from claims, facts, rounds or evaluation: they import it.
"""

from dwqa_graph.language.corenlp import CoreNLP, corenlp_classpath
from dwqa_graph.language.doc import Doc, Mention, Sentence, Token, parse_doc
from dwqa_graph.language.values import DateValue, Quantity, date_value, quantity_value

__all__ = ["CoreNLP", "DateValue", "Doc", "Mention", "Quantity", "Sentence", "Token",
           "corenlp_classpath", "date_value", "parse_doc", "quantity_value"]
