"""The library's normalised values as dates with a precision and numbers with a unit.

CoreNLP's SUTime writes TIMEX3 values ("1987-08-25", "2003-07", "1997", "XXXX-07",
"PRESENT_REF", "2010-SU", "199X", "P3Y") and its quantity normaliser writes numbers
("449.0", "~18500.0", ">1000.0"), money ("$8.15E10", "€1000.0") and percentages ("%50.0").
Only values that name one calendar date (a year, a month or a day) or one exact number
become facts; the rest (durations, seasons, decades, relative dates, approximations) are
``None`` or marked approximate, because an answer computed from them would be undefined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Precision = Literal["year", "month", "day"]

# A TIMEX3 calendar value (ISO 8601 date at year, month or day precision).
_TIMEX_DATE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_NUMBER = re.compile(r"([~<>]=?)?([$€£¥₹]|%)?(-?\d+(?:\.\d+)?(?:E-?\d+)?)")
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}


@dataclass(frozen=True, slots=True)
class DateValue:
    year: int
    month: int | None
    day: int | None

    @property
    def precision(self) -> Precision:
        return "day" if self.day else "month" if self.month else "year"

    @property
    def iso(self) -> str:
        return "-".join([f"{self.year:04d}"] + [f"{v:02d}" for v in (self.month, self.day) if v])


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float
    #: ISO currency code, "percent", or None (a count; the noun it counts is the fact's unit)
    unit: str | None
    approximate: bool


def date_value(norm: str | None) -> DateValue | None:
    """A calendar date from a TIMEX3 value, or None for anything that is not one date."""
    if not norm:
        return None
    m = _TIMEX_DATE.fullmatch(norm.strip())
    if not m:
        return None
    year = int(m.group(1))
    month = int(m.group(2)) if m.group(2) else None
    day = int(m.group(3)) if m.group(3) else None
    if not 1 <= year <= 2100 or (month and not 1 <= month <= 12) or (day and not 1 <= day <= 31):
        return None
    return DateValue(year, month, day)


def quantity_value(norm: str | None) -> Quantity | None:
    """A number from a NUMBER / MONEY / PERCENT value, or None."""
    if not norm:
        return None
    m = _NUMBER.fullmatch(norm.strip())
    if not m:
        return None  # ranges ("1000.0-2000.0") and lists are not one number
    try:
        value = float(m.group(3))
    except ValueError:
        return None
    sign = m.group(2)
    unit = "percent" if sign == "%" else _CURRENCY.get(sign or "")
    return Quantity(value, unit, approximate=bool(m.group(1)))
