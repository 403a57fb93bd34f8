"""Reading log files record by record, each record parsed and checked in isolation.

Input is untrusted, so nothing in one record may cost the run: every record is cut out of
the file first (a JSONL line, or one element of a JSON array / a stream of objects found
by a lexical scan that never parses), its size and nesting depth are checked before it
is parsed, and the parse itself refuses what would hurt later: duplicate keys (two parsers
would read the record differently), integers outside int64 (Neo4j stores no more, and
Python's int() of a 5,000-digit string raises), lone surrogates (they cannot be encoded
to UTF-8). A problem is that record's problem, reported with its file and line.

Memory is bounded by ``MAX_RECORD_BYTES`` plus one read chunk: an oversized record is
skipped while it streams past, never held whole. Time is linear in the file size: line
numbers are counted incrementally, and an array is split in one pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from pydantic import BaseModel

#: One record (a JSONL line, an array element) may not be larger than this.
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: Deeper nesting than this is rejected before parsing (real logs nest about 4 deep).
MAX_DEPTH = 64
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20
# A string, or an unterminated one running to the end: it always matches where it starts,
# so a failed match is never retried from the next quote (retrying would make the scan
# quadratic on a run of escaped quotes). Possessive: no backtracking either.
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# The lexical scanner's stops, from the largest: a whole container nested at most
# _WHOLE_DEPTH deep (a typical record is one match), a whole string, or one quote or
# bracket (deeper input, or a value that runs past the buffer). Possessive quantifiers:
# no backtracking into what was matched, so each attempt is linear.
_WHOLE_DEPTH = 4
_JSTRING = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_CONTAINER = rb'[\[{](?:[^\[\]{}"]++|' + _JSTRING + rb')*+[\]}]'
for _ in range(_WHOLE_DEPTH - 1):
    _CONTAINER = rb'[\[{](?:[^\[\]{}"]++|' + _JSTRING + rb'|' + _CONTAINER + rb')*+[\]}]'
_STRUCT = re.compile(_CONTAINER + rb'|' + _JSTRING + rb'|["\[\]{}]', re.DOTALL)
_VALUE_START = re.compile(rb"[^\s,]")
_SCALAR_END = re.compile(rb"[\s,\]]")


class Problem(BaseModel):
    """Something wrong with one input record. ``fatal`` problems reject the record."""

    file: str
    line: int
    reason: str
    detail: str = ""
    fatal: bool = True

    def __str__(self) -> str:
        kind = "rejected" if self.fatal else "warning"
        return f"{self.file}:{self.line}: {kind}: {self.reason}: {self.detail}"


@dataclass
class Raw:
    file: str
    line: int
    data: Any


class RecordError(ValueError):
    """A record that cannot be read; ``reason`` is a short key."""

    def __init__(self, reason: str, detail: str, offset: int = 0, line: int = 0) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail, self.offset, self.line = reason, detail, offset, line


# -- one record ------------------------------------------------------------------------
def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise RecordError("duplicate_key", f"key {dup[:80]!r} appears more than once; which "
                          "value is meant is ambiguous")
    return obj


def _int64(text: str) -> int:
    # Checked on the digits, before int() does any work on them.
    if len(text.lstrip("-")) > 19 or not INT64_MIN <= (value := int(text)) <= INT64_MAX:
        shown = text if len(text) <= 30 else f"{text[:12]}...({len(text)} digits)"
        raise RecordError("number_out_of_range", f"integer {shown} is outside int64")
    return value


def _depth(text: str, limit: int) -> int:
    if text.count("[") + text.count("{") <= limit:
        return 0  # cannot be deeper than it has brackets: skip the scan (the usual case)
    depth = deepest = 0
    for ch in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _decode(data: bytes, file: str, first_line: int) -> tuple[str, list[Problem]]:
    """UTF-8 decode; bad bytes become U+FFFD and a warning naming the line."""
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        line = first_line + data.count(b"\n", 0, exc.start)
        detail = f"invalid UTF-8 byte {data[exc.start:exc.start + 1]!r} replaced"
        return text, [Problem(file=file, line=line, reason="non_utf8", detail=detail, fatal=False)]


def _not_json(literal: str) -> Any:
    """Python's json reads NaN / Infinity / -Infinity; JSON has no such values (a NaN id
    would silently become a content key)."""
    raise RecordError("malformed_json", f"{literal} is not a JSON value")


def decode_json(text: str, *, max_chars: int = MAX_RECORD_BYTES,
                max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON text under the record bounds. Every JSON the ingest decodes goes
    through here: a record, and a JSON string inside a trace's attribute (which the
    record's own checks saw only as a string).

    Size and nesting depth are checked before parsing (a deep value would otherwise end
    the process in a ``RecursionError``); the parse refuses duplicate keys, integers
    outside int64, NaN / Infinity and lone surrogate escapes. Raises ``RecordError`` with
    the reason, or ``json.JSONDecodeError`` (``malformed_json``) with its position."""
    if len(text) > max_chars:
        raise RecordError("too_large", f"{len(text):,} characters exceed the limit of "
                                       f"{max_chars:,}")
    deepest = _depth(text, max_depth)
    if deepest > max_depth:
        raise RecordError("too_deep", f"nested {deepest:,} deep (limit {max_depth})")
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_int=_int64,
                           parse_constant=_not_json)
    except RecursionError as exc:  # not reached given the depth check; kept as a last line
        raise RecordError("too_deep", "nesting too deep") from exc
    if _SURROGATE_ESCAPE.search(text):  # escaped pairs are fine; a lone half is not
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise RecordError("invalid_unicode", "a lone surrogate escape (\\ud800-"
                              "\\udfff without its pair) is not a character") from exc
    return value


def parse_record(data: bytes, file: str, line: int) -> list[Raw | Problem]:
    """One record's bytes -> [Raw] or [problems...]; never raises for bad input."""
    if len(data) > MAX_RECORD_BYTES:
        return [too_large(file, line, len(data))]
    text, problems = _decode(data, file, line)
    out: list[Raw | Problem] = list(problems)
    try:
        value = decode_json(text)
    except RecordError as exc:
        out.append(Problem(file=file, line=line, reason=exc.reason, detail=exc.detail))
    except json.JSONDecodeError as exc:
        at = min(exc.pos, len(text.rstrip()))  # "unexpected end" names the record's line
        out.append(Problem(file=file, line=line + text.count("\n", 0, at),
                           reason="malformed_json", detail=exc.msg))
    except ValueError as exc:  # e.g. a float literal Python refuses
        out.append(Problem(file=file, line=line, reason="malformed_json", detail=str(exc)[:200]))
    else:
        out.append(Raw(file=file, line=line, data=value))
    return out


def too_large(file: str, line: int, size: int) -> Problem:
    return Problem(file=file, line=line, reason="too_large",
                   detail=f"record of {size:,}+ bytes exceeds the limit of "
                          f"{MAX_RECORD_BYTES:,}; skipped without reading it whole")


# -- files -----------------------------------------------------------------------------
def _jsonl(fh: BinaryIO, file: str, on_bytes: Callable[[int], None]) -> Iterator[Raw | Problem]:
    lineno = 0
    while True:
        raw_line = fh.readline(MAX_RECORD_BYTES + 1)
        if not raw_line:
            return
        lineno += 1
        on_bytes(len(raw_line))
        if len(raw_line) > MAX_RECORD_BYTES and not raw_line.endswith(b"\n"):
            size = len(raw_line)
            while raw_line and not raw_line.endswith(b"\n"):  # skip the rest as it streams
                raw_line = fh.readline(_CHUNK)
                size += len(raw_line)
                on_bytes(len(raw_line))
            yield too_large(file, lineno, size)
            continue
        if raw_line.strip():
            yield from parse_record(raw_line, file, lineno)


class _Scanner:
    """Cuts a stream of JSON values (an array's elements, or concatenated objects) into
    records without parsing them: strings and brackets only, in one linear pass."""

    def __init__(self, fh: BinaryIO, file: str, on_bytes: Callable[[int], None],
                 array: bool) -> None:
        self.fh, self.file, self.on_bytes, self.array = fh, file, on_bytes, array
        self.reset(b"", fh.tell(), 1)

    def reset(self, buf: bytes, base: int, line: int) -> None:
        self.buf = buf
        self.base = base  # file offset of buf[0]
        # Lines are counted once, forward: ``line`` is the line number at buf[mark].
        self.mark, self.line = 0, line
        self.eof = False

    def line_at(self, index: int) -> int:
        self.line += self.buf.count(b"\n", self.mark, index)
        self.mark = index
        return self.line

    def _more(self, keep_from: int) -> int:
        """Read a chunk, dropping buf[:keep_from]; returns how far buf shifted."""
        chunk = self.fh.read(_CHUNK)
        self.on_bytes(len(chunk))
        if not chunk:
            self.eof = True
        if keep_from > self.mark:
            self.line_at(keep_from)
        self.mark -= keep_from
        self.base += keep_from
        self.buf = self.buf[keep_from:] + chunk
        return keep_from

    def values(self) -> Iterator[tuple[int, bytes | None, int]]:
        """(line, bytes or None when too large, size) per value; raises RecordError with
        the value's line and file offset when the input ends inside one."""
        pos = 0
        while True:
            m = _VALUE_START.search(self.buf, pos)
            while m is None and not self.eof:
                self._more(len(self.buf))  # nothing but separators so far: drop them
                pos = 0
                m = _VALUE_START.search(self.buf, pos)
            if m is None:
                return
            start = m.start()
            if self.array and self.buf[start:start + 1] == b"]":
                return
            line = self.line_at(start)
            offset = self.base + start
            start, end, skipped = self._value_end(start)
            if end < 0:
                raise RecordError("malformed_json", "the input ends inside this value",
                                  offset=offset, line=line)
            if skipped:
                yield line, None, skipped + end - start
            else:
                yield line, self.buf[start:end], end - start
            pos = end

    def _value_end(self, start: int) -> tuple[int, int, int]:
        """(start, end) in buf of the value starting at buf[start] (buf may have moved;
        end -1: the input ended inside it), and how many of its bytes were dropped
        because it outgrew MAX_RECORD_BYTES."""
        skipped = 0
        if self.buf[start:start + 1] not in (b"{", b"[", b'"'):  # a number, true, junk...
            m = _SCALAR_END.search(self.buf, start)
            while m is None and not self.eof:
                start -= self._more(start)
                m = _SCALAR_END.search(self.buf, start)
            return start, (m.start() if m else len(self.buf)), 0
        depth, pos, in_string = 0, start, False
        while True:
            if not in_string:
                m = _STRUCT.search(self.buf, pos)
                if m is not None:
                    tok = m.group()
                    pos = m.end()
                    if tok == b'"':  # a string that runs past the buffer
                        in_string = True
                    elif len(tok) > 1:  # a whole string, or a whole container
                        if depth == 0:
                            return start, pos, skipped
                    elif tok in b"[{":
                        depth += 1
                    else:
                        depth -= 1
                        if depth <= 0:
                            return start, pos, skipped
                    continue
                pos = len(self.buf)  # no quote or bracket in the rest
            else:
                # Two memchr-speed finds beat one regex character class on long strings.
                quote = self.buf.find(b'"', pos)
                slash = self.buf.find(b"\\", pos, quote if quote >= 0 else len(self.buf))
                if slash < 0 and quote >= 0:
                    pos = quote + 1
                    in_string = False
                    if depth == 0:
                        return start, pos, skipped
                    continue
                if 0 <= slash < len(self.buf) - 1:  # a backslash and the byte it escapes
                    pos = slash + 2
                    continue
                # A backslash as the last byte needs the next one; else all was plain text.
                pos = slash if slash >= 0 else len(self.buf)
            # Need more input.
            if self.eof:
                return start, -1, skipped
            if skipped or pos - start > MAX_RECORD_BYTES:
                # Too large: forget what was scanned, keep only the scanner's state.
                skipped += pos - start
                start = pos
            shift = self._more(start)
            start -= shift
            pos -= shift


def _stream(fh: BinaryIO, file: str, on_bytes: Callable[[int], None],
            array: bool) -> Iterator[Raw | Problem]:
    scanner = _Scanner(fh, file, on_bytes, array)
    while True:
        try:
            for line, data, size in scanner.values():
                if data is None:
                    yield too_large(file, line, size)
                else:
                    yield from parse_record(data, file, line)
            return
        except RecordError as exc:
            yield Problem(file=file, line=exc.line, reason=exc.reason, detail=exc.detail)
            if not _resync(scanner, exc.offset, exc.line):
                return


def _resync(scanner: _Scanner, offset: int, line: int) -> bool:
    """After a value that never ends (an unbalanced bracket or quote swallowed the rest),
    restart at the next line after its first that opens an object."""
    fh = scanner.fh
    fh.seek(offset)
    while True:
        pos = fh.tell()
        text = fh.readline(_CHUNK)
        if not text:
            return False
        if pos != offset and text.lstrip().startswith(b"{"):
            fh.seek(pos)
            scanner.reset(b"", pos, line)
            return True
        if text.endswith(b"\n"):
            line += 1


def read_records(path: Any, on_bytes: Callable[[int], None] = lambda n: None,
                 ) -> Iterator[Raw | Problem]:
    """Yield raw records (or problems) from one file, with 1-based line numbers.

    JSON lines; a JSON array (HotpotQA ships one); or concatenated / pretty-printed
    objects. A UTF-8 byte-order mark is skipped."""
    file = str(path)
    with open(path, "rb") as fh:
        head = fh.read(4096)
        skip = len(BOM) if head.startswith(BOM) else 0
        fh.seek(skip)
        on_bytes(skip)
        first = head[skip:].lstrip()
        if first.startswith(b"["):
            fh.seek(skip + head[skip:].index(b"[") + 1)
            on_bytes(fh.tell() - skip)
            yield from _stream(fh, file, on_bytes, array=True)
            return
        first_line = first.split(b"\n", 1)[0].strip()
        if first_line == b"{":  # a pretty-printed object (or several)
            yield from _stream(fh, file, on_bytes, array=False)
            return
        yield from _jsonl(fh, file, on_bytes)
