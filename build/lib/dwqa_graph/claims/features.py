"""Claim features that sampling needs: dates, numbers with units, causal cues, entities.

Deterministic regexes, no model: the same claim always gets the same features, so the
same round seed always samples the same candidates.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

MONTHS = ("january february march april may june july august september october november "
          "december").split()
MONTH_PATTERN = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|" \
    r"Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
_YEAR = r"(1[5-9]\d\d|20\d\d)"
_DATE_PATTERNS = [
    # 21 March 2019 / 21 Mar. 2019
    (re.compile(rf"\b(\d{{1,2}})\s+({MONTH_PATTERN})\.?,?\s+{_YEAR}\b"), "dmy"),
    # March 21, 2019
    (re.compile(rf"\b({MONTH_PATTERN})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b"), "mdy"),
    # 2019-03-21
    (re.compile(rf"\b{_YEAR}-(\d\d)-(\d\d)\b"), "iso"),
    # March 2019
    (re.compile(rf"\b({MONTH_PATTERN})\.?\s+{_YEAR}\b"), "my"),
]
# A bare year: not part of a larger number, not a quantity ("1500 tonnes").
_BARE_YEAR = re.compile(rf"(?<![\d,.$€£])\b{_YEAR}\b(?![.,]\d)(?!\s*(?:%|percent|km|tonnes|"
                        r"people|passengers|metres|meters|euros|dollars|MW|GWh|kWh|mm))")
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9,
          "m": 1e6, "k": 1e3}
_UNITS = (r"%|percent|per cent|km/h|km|kilometres|kilometers|miles|metres|meters|m|mm|cm|"
          r"square feet|sq ft|square metres|hectares|ha|kg|tonnes|tons|t|MW|GW|GWh|MWh|kWh|"
          r"°C|°F|degrees|euros|euro|dollars|pounds|EUR|USD|GBP|passengers|people|residents|"
          r"employees|workers|homes|households|stops|votes|years|months|weeks|days|hours|"
          r"minutes|seconds|cells|vehicles|trams|buses|cars|units|times")
_NUMBER = re.compile(
    r"(?P<cur>[$€£])?\s?(?P<num>(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn)\b)?"
    rf"(?:\s?(?P<unit>{_UNITS})(?![A-Za-z]))?")
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "euros": "EUR", "euro": "EUR", "EUR": "EUR",
             "dollars": "USD", "USD": "USD", "pounds": "GBP", "GBP": "GBP"}
CAUSE_CUES = re.compile(
    r"\b(caus(?:e|es|ed|ing)|lead(?:s)? to|led to|result(?:s|ed)? in|as a result|because|"
    r"due to|owing to|therefore|consequently|triggered|forced|prompted|so that)\b", re.I)
_ENTITY = re.compile(r"\b[A-Z][\w'’.&-]*[A-Za-z0-9](?:\s+(?:of|the|de|da|di|van|von|del|la|"
                     r"le|and|&|for)?\s*[A-Z][\w'’&-]*[A-Za-z0-9])*")
_NOT_ENTITY = frozenset("""the a an in on at by for from to of and or but if as it its this that
these those there their they he she his her we our you your i after before during when while
since until with without about over under between after also however meanwhile according
monday tuesday wednesday thursday friday saturday sunday""".split()) | frozenset(MONTHS)


class Number(BaseModel):
    value: float
    unit: str | None
    raw: str


class Features(BaseModel):
    has_date: bool
    dates: list[str]  # ISO: YYYY-MM-DD, YYYY-MM or YYYY
    years: list[int]
    has_number: bool
    numbers: list[Number]
    has_cause: bool
    cause_cues: list[str]
    entities: list[str]


def _month(name: str) -> int:
    return MONTHS.index(next(m for m in MONTHS if m.startswith(name.lower()[:3]))) + 1


def find_dates(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """ISO dates, most specific first in text order, and the character ranges they cover."""
    found: list[tuple[int, str]] = []
    covered: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in covered)

    for rx, kind in _DATE_PATTERNS:
        for m in rx.finditer(text):
            if not free(*m.span()):
                continue
            g = m.groups()
            try:
                if kind == "dmy":
                    iso = f"{g[2]}-{_month(g[1]):02d}-{int(g[0]):02d}"
                elif kind == "mdy":
                    iso = f"{g[2]}-{_month(g[0]):02d}-{int(g[1]):02d}"
                elif kind == "iso":
                    iso = f"{g[0]}-{g[1]}-{g[2]}"
                else:
                    iso = f"{g[1]}-{_month(g[0]):02d}"
            except StopIteration:
                continue
            covered.append(m.span())
            found.append((m.start(), iso))
    for m in _BARE_YEAR.finditer(text):
        if free(*m.span()):
            covered.append(m.span())
            found.append((m.start(), m.group(1)))
    found.sort()
    return [iso for _, iso in found], covered


def find_numbers(text: str, skip: list[tuple[int, int]]) -> list[Number]:
    out = []
    for m in _NUMBER.finditer(text):
        a, b = m.span("num")
        if any(not (b <= s or a >= e) for s, e in skip):
            continue  # a year or a date, already counted as time
        value = float(m.group("num").replace(",", ""))
        scale = m.group("scale")
        if scale:
            value *= _SCALE[scale]
        unit = m.group("unit")
        cur = m.group("cur")
        if cur or (unit in _CURRENCY):
            unit = _CURRENCY[cur or unit]  # type: ignore[index]
        elif unit in ("per cent", "percent"):
            unit = "%"
        out.append(Number(value=value, unit=unit, raw=m.group(0).strip()))
    return out


def find_entities(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for m in _ENTITY.finditer(text):
        words = m.group(0).split()
        while words and words[0].lower() in _NOT_ENTITY:
            words = words[1:]  # sentence-initial "The", "In" ...
        while words and words[-1].lower() in _NOT_ENTITY:
            words = words[:-1]
        name = " ".join(words).rstrip(".")
        if name and name.lower() not in _NOT_ENTITY and not name.isdigit():
            seen.setdefault(name, None)
    return list(seen)


def features(text: str) -> Features:
    dates, covered = find_dates(text)
    numbers = find_numbers(text, covered)
    cues = list(dict.fromkeys(m.group(0).lower() for m in CAUSE_CUES.finditer(text)))
    years = sorted({int(d[:4]) for d in dates})
    return Features(has_date=bool(dates), dates=dates, years=years, has_number=bool(numbers),
                    numbers=numbers, has_cause=bool(cues), cause_cues=cues,
                    entities=find_entities(text))
