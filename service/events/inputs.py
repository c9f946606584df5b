"""Untrusted JSON in, bounded: UTF-8 only, nesting depth, 64-bit integers, then typed decoding.

Every input path (HTTP bodies, websocket messages, commands, battle files) goes through ``check_json``
or ``decode_json``, so no input reaches a RecursionError, a UnicodeDecodeError or a database integer
overflow; each failure is an InvalidRequest naming the field (problem+json, nothing appended).
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

import msgspec

from .errors import AppError, InvalidRequest, field_of

MAX_DEPTH = 32  # deepest legitimate body (a GSC2 order with legs) is under 8
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_INT_DIGITS = 19  # len(str(INT64_MAX)): longer integers never fit the store's BIGINT

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_LONG_DIGITS = re.compile(rb"\d{%d}" % MAX_INT_DIGITS)
# a JSON token for the integer walk: a whole string, a number, or a structural character
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[\[\]{}:,]')
_PAIRS = bytes.maketrans(b"{}", b"[]")
# check_json's quick pass: a digit becomes "0", an opening bracket "[", anything else "."
_QUICK = bytes(0x30 if 0x30 <= b <= 0x39 else 0x5B if b in b"[{" else 0x2E for b in range(256))
_LONG_RUN = b"0" * MAX_INT_DIGITS

T = TypeVar("T")


def check_json(
    raw: bytes, error: type[AppError] = InvalidRequest, max_depth: int = MAX_DEPTH, integers: bool = True
) -> None:
    """Refuse bytes that are not UTF-8, nest deeper than ``max_depth`` or (``integers``) hold an integer
    outside 64 bits. Cheap for ordinary bodies: one pass over ASCII bytes clears what surely passes (at most
    ``max_depth`` opening brackets and no MAX_INT_DIGITS digits in a row: the digit regex alone costs more
    than this pass); the scans run only for the rest, and every error is theirs. A socket leaves
    ``integers`` out: its message is decodable, so an integer out of range is answered (``check_integers``
    in ``socket_message``), not a reason to close."""
    if raw.isascii():  # (inline, not a helper's call: every command goes through here)
        scan = raw.translate(_QUICK)
        if scan.count(b"[") <= max_depth and (
            not integers or scan.count(b"0") < MAX_INT_DIGITS or _LONG_RUN not in scan
        ):
            return
    _scan(raw, error, max_depth, integers)


def check_integers(raw: bytes, error: type[AppError] = InvalidRequest) -> None:
    """Refuse an integer literal outside 64 bits, naming its field, before anything decodes it: counted in
    digits, never converted (Python refuses to convert more than 4,300 digits: that was a 500)."""
    if _LONG_DIGITS.search(raw) is not None:
        _refuse_long_integers(raw, error)


def _scan(raw: bytes, error: type[AppError], max_depth: int, integers: bool = True) -> None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"the body is not UTF-8 (invalid byte at offset {exc.start})", field="$") from None
    deep = raw.count(b"[") + raw.count(b"{") > max_depth
    long = integers and _LONG_DIGITS.search(raw) is not None
    if not (deep or long):
        return
    if deep and _too_deep(_STRING.sub(b'""', raw), max_depth):  # brackets inside strings do not count
        raise error(f"the body nests deeper than {max_depth} levels (or its brackets do not balance)", field="$")
    if long:
        _refuse_long_integers(raw, error)


def _refuse_long_integers(raw: bytes, error: type[AppError]) -> None:
    """Walk the JSON's tokens (strings skipped whole), keeping the path to where it is, and refuse the first
    integer that does not fit in 64 bits with that path as its field (``$.command.n``, msgspec's form)."""
    path: list[str | int] = []  # one entry per open container: its current key or index
    expecting_key = False
    for match in _TOKEN.finditer(raw):
        token = match.group()
        first = token[0]
        if first == 0x22:  # '"': a key when an object waits for one, else a string value
            if expecting_key:
                path[-1] = _key(token)
                expecting_key = False
        elif first in _STRUCTURAL:
            expecting_key = _follow(path, first)
        elif not any(c in token for c in b".eE"):  # a float is msgspec's to bound (1e999 is out of range)
            _check_integer(token, path, error)


_STRUCTURAL = b"{}[],:"


def _follow(path: list[str | int], first: int) -> bool:
    """Move ``path`` past one structural character; returns whether an object key comes next."""
    if first == 0x7B:  # '{'
        path.append("")
        return True
    if first == 0x5B:  # '['
        path.append(0)
        return False
    if first in b"]}":
        if path:
            path.pop()
        return False
    if first == 0x2C:  # ','
        if path and isinstance(path[-1], int):
            path[-1] += 1
            return False
        return bool(path)
    return False  # ':'


def _check_integer(token: bytes, path: list[str | int], error: type[AppError]) -> None:
    digits = token.lstrip(b"-").lstrip(b"0")
    if len(digits) > MAX_INT_DIGITS or (len(digits) == MAX_INT_DIGITS and not INT64_MIN <= int(token) <= INT64_MAX):
        field = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        raise error(
            f"the integer {token[:24].decode()}… ({len(digits)} digits) at {field} does not fit in 64 bits",
            field=field,
        )


def _key(token: bytes) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        key = token[1:-1].decode("utf-8", "replace")
    return str(key)[:64]


def _too_deep(bare: bytes, max_depth: int) -> bool:
    # each pass removes the innermost level of every branch; anything left after max_depth passes nests
    # deeper (or does not balance, which no valid JSON does either: refusing it spares the decoder's stack)
    brackets = bare.translate(_PAIRS, _NOT_BRACKETS)
    for _ in range(max_depth):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def decode_json(raw: bytes, type_: type[T], error: type[AppError] = InvalidRequest) -> T:
    """``check_json`` then msgspec, with errors naming the offending field."""
    check_json(raw, error)
    try:
        return msgspec.json.decode(raw, type=type_)
    except msgspec.ValidationError as exc:
        raise error(str(exc), field=field_of(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise error(f"the body is not valid JSON: {exc}", field="$") from None


def check_lines(raw: bytes, error: type[AppError] = InvalidRequest) -> None:
    """``check_json`` for JSON lines (battle files), line by line: each line is short."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        try:
            check_json(line, error)
        except AppError as exc:
            raise error(f"line {number}: {exc.detail}", field=f"line {number}") from None


def text_bytes(text: str, error: type[AppError] = InvalidRequest) -> bytes:
    """A websocket text message as bytes (a lone surrogate cannot be encoded: refused, not raised)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise error("the message is not valid UTF-8 text", field="$") from None


__all__ = ["INT64_MAX", "MAX_DEPTH", "check_integers", "check_json", "check_lines", "decode_json", "text_bytes"]
