"""What the facts stage stores: resolved entities and typed facts with their evidence.

A fact is (subject entity, relation, object) where the object is an entity, a calendar date
with its precision, or a quantity with its unit; its evidence is one sentence of a
DocumentVersion (``start``/``end``: offsets in the version text), and the claim whose span
holds that sentence, when the claims stage kept it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ObjectKind = Literal["entity", "date", "quantity"]
#: Coarse entity types: the library's fine-grained NER tags folded to what resolution needs.
EntityType = Literal["PERSON", "ORG", "PLACE", "MISC"]
_ANY: frozenset[str] = frozenset({"PERSON", "ORG", "PLACE", "MISC"})


@dataclass(frozen=True)
class RelationSpec:
    """One relation of the schema: what it means (the words the facts prompt shows a model)
    and what its subject and entity object may be. Every extractor's facts are held to it
    (``allows``): "Dolenz was released" from a contract is no release date of a work, and
    "born in Kansas" needs a place."""

    meaning: str
    subjects: frozenset[str] = _ANY
    objects: frozenset[str] = _ANY


def _types(*names: str) -> frozenset[str]:
    return frozenset(names)


_WORK = _types("MISC")
_MAKER = _types("PERSON", "ORG")
_BUILT = _types("ORG", "MISC", "PLACE")
_PERSON = _types("PERSON")
_PLACE = _types("PLACE")

#: The relation schema: the one list of relations the extractors read, the facts prompt
#: shows and the question forms name.
SCHEMA: dict[str, RelationSpec] = {
    "born": RelationSpec("date of birth (date)", _PERSON),
    "born_in": RelationSpec("place of birth (entity)", _PERSON, _PLACE),
    "died": RelationSpec("date of death (date)", _PERSON),
    "died_in": RelationSpec("place of death (entity)", _PERSON, _PLACE),
    "founded": RelationSpec("date an organisation or place was founded, formed or "
                            "established (date)", _BUILT),
    "founded_by": RelationSpec("who founded it (entity)", _BUILT, _MAKER),
    "released": RelationSpec("date a work was released, published or premiered (date)",
                             _types("MISC", "ORG")),
    "directed_by": RelationSpec("director of a work (entity)", _WORK, _PERSON),
    "written_by": RelationSpec("writer of a work (entity)", _WORK, _PERSON),
    "produced_by": RelationSpec("producer of a work (entity)", _WORK, _MAKER),
    "created_by": RelationSpec("creator, designer, developer or inventor of a work or "
                               "product (entity)", _WORK, _MAKER),
    "hosted_by": RelationSpec("host of a show or programme (entity)", _WORK, _PERSON),
    "opened": RelationSpec("date a building, line or venue opened (date)", _BUILT),
    "located_in": RelationSpec("where it is (entity)", objects=_types("PLACE", "ORG", "MISC")),
    "member_of": RelationSpec("a group, band, team or party it joined or belongs to (entity; "
                              "date if stated)"),
    "won": RelationSpec("an award, title or contest it won (entity; date if stated)"),
    "married": RelationSpec("spouse (entity; date if stated)", _PERSON, _PERSON),
    "population": RelationSpec("number of inhabitants (quantity, with the census year if "
                               "stated)"),
    "quantity": RelationSpec("a counted or measured amount the subject has (quantity; unit = "
                             "what is counted)"),
    "event": RelationSpec("any other dated event of the subject: the verb's lemma says "
                          "which, its phrase words it (date)"),
}
#: Each relation with its meaning: the vocabulary the facts prompt shows a model.
RELATIONS: dict[str, str] = {name: spec.meaning for name, spec in SCHEMA.items()}
Relation = Literal["born", "born_in", "died", "died_in", "founded", "founded_by", "released",
                   "directed_by", "written_by", "produced_by", "created_by", "hosted_by",
                   "opened", "located_in",
                   "member_of", "won", "married", "population", "quantity", "event"]


def allows(relation: str, subject_type: str, object_type: str | None) -> bool:
    """Whether the schema allows this relation between these types (an object type of None:
    a date or quantity object)."""
    spec = SCHEMA.get(relation)
    return spec is not None and subject_type in spec.subjects and (
        object_type is None or object_type in spec.objects)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EntityRef(_Model):
    """A resolved entity: one node per real entity across the graph."""

    id: str = Field(description="Key: hash of (type, normalised canonical name).")
    name: str = Field(description="Canonical (longest, or the page title's) name.")
    type: EntityType
    generic: bool = Field(False, description="Nationality, country as an attribute, job "
                          "title, ideology: never connects facts.")


class Fact(_Model):
    id: str
    relation: Relation
    verb: str = Field(description="Lemma of the verb (or noun) the fact was read from.")
    subject: EntityRef
    object_kind: ObjectKind
    object: EntityRef | None = None
    date: str | None = Field(None, description="ISO date at its precision: 1987, 1987-08, "
                             "1987-08-25.")
    year: int | None = None
    precision: Literal["year", "month", "day"] | None = None
    value: float | None = None
    unit: str | None = Field(None, description="Currency code, 'percent', or the noun "
                             "counted ('residents', 'employees').")
    approximate: bool = False
    when: str | None = Field(None, description="A date stated for an entity or quantity fact "
                             "('won the award in 2016', 'population in 2010').")
    phrase: str | None = Field(None, description="An event's predicate as its sentence "
                               "words it, without subject and date ('signed for Real Madrid'); "
                               "None when it does not name the event by itself.")
    short_phrase: str | None = Field(None, description="The phrase's core where it is "
                                     "shorter: the phrase without its prepositional phrases "
                                     "of place and circumstance once it names something "
                                     "('fought at the Battle of Sobraon' for 'fought at the "
                                     "Battle of Sobraon during the First Anglo-Sikh War').")
    uncertain: bool = Field(False, description="The reader is unsure of it: its subject is "
                            "a pronoun whose page subject the paragraph has not named (or "
                            "whose sentence before was about another person), its date may "
                            "be another event's, or its subject's type was guessed. Stored, "
                            "but no chain uses it (`coalesce(f.uncertain, false)`).")
    shared: bool = Field(False, description="A credit its sentence shares with an agent the "
                         "reader has no entity for ('written by Ostrem and the playwright "
                         "Jon Sedlak', 'by Ostrem and others'): true, but 'the writer of X' "
                         "would name one of two, and the graph's uniqueness check cannot "
                         "count the other. No bridge or chain walks it as a hop.")
    claim_id: str | None = Field(None, description="The claim whose span holds the evidence "
                                 "(None: a sentence the claims stage left out, e.g. one "
                                 "opening with a pronoun the page's subject resolves).")
    version_id: str
    start: int = Field(description="Evidence span in the DocumentVersion text.")
    end: int
    evidence: str = Field(description="The evidence span's text, verbatim.")
    extractor: str = Field(description="corenlp-4.5.7/facts-N or llm:<model>/facts-N")


def _ymd(date: str | None, precision: str | None) -> tuple[int, int, int | None] | None:
    """(year, month, day or None) of a date known at least to the month, else None."""
    if precision not in ("month", "day") or not date:
        return None
    parts = date.split("-")
    try:
        y, m = int(parts[0]), int(parts[1])
        d = int(parts[2]) if precision == "day" and len(parts) == 3 else None
    except (ValueError, IndexError):
        return None
    return (y, m, d) if 1 <= m <= 12 else None


def whole_years(first: tuple[str | None, str | None],
                second: tuple[str | None, str | None]) -> int | None:
    """The whole years from one (date, precision) to another -- an age, "how old" -- where
    the dates decide it: both to the month in different months, or both to the day. None
    where a date is known by its year only, or the same month leaves the anniversary open."""
    a, b = _ymd(*first), _ymd(*second)
    if a is None or b is None:
        return None
    if a[1] != b[1]:
        return b[0] - a[0] - (b[1] < a[1])
    if a[2] is None or b[2] is None:
        return None
    return b[0] - a[0] - (b[2] < a[2])
