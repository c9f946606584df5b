"""check_json's quick pass only clears bytes its full scans (inputs._scan) pass anyway
(ASCII, few brackets, no long digit run): check_json fails exactly as the scans alone, error for error."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.events.errors import AppError, InvalidRequest
from service.events.inputs import MAX_DEPTH, _scan, check_json


def _scans_alone(raw: bytes) -> None:
    _scan(raw, InvalidRequest, MAX_DEPTH)


def _outcome(check, raw: bytes) -> tuple[str, str, str | None] | None:
    try:
        check(raw)
    except AppError as exc:
        return type(exc).__name__, exc.detail, exc.field
    return None


def _same(raw: bytes) -> None:
    assert _outcome(check_json, raw) == _outcome(_scans_alone, raw), raw


# the bytes check_json looks at (digits, brackets, strings, escapes, numbers' signs and exponents), UTF-8
# beyond ASCII, a lone continuation byte and a truncated sequence
PIECES = [
    b"0",
    b"1",
    b"9",
    b"12345",
    b"9999999999",
    b"[",
    b"]",
    b"{",
    b"}",
    b'"',
    b"\\",
    b"-",
    b".",
    b"e",
    b"E",
    b"+",
    b",",
    b":",
    b" ",
    b"a",
    b"null",
    b"\xc3\xa9",
    b"\xe2\x82\xac",
    b"\x80",
    b"\xe2\x82",
    b"\xff",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60))
def test_check_json_fails_exactly_as_its_scans_alone(pieces: list[bytes]) -> None:
    _same(b"".join(pieces))


def test_the_edges_of_the_quick_pass() -> None:
    shoot = b'{"kind":"command","ref":"r1","command":{"type":"tiny.shoot","shooter":"red","target":"blue"}}'
    nested = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    cases = [
        shoot,
        b"",
        b"{}",
        nested,
        b"[" + nested + b"]",
        b"{" * (MAX_DEPTH + 1),
        b'{"a":' + b"9" * 18 + b"}",
        b'{"a":' + b"9" * 19 + b"}",
        b'{"a":' + b"9" * 20 + b"}",
        b'{"a":-' + b"9" * 19 + b"}",
        b'{"a":1' + b"0" * 18 + b".5}",
        b'{"a":"' + b"9" * 40 + b'"}',
        b'{"a":[' + b"1234567890," * 4 + b"1]}",  # many digits, no long run
        b'{"k":"' + b"\\u00e9" * 10 + b'"}',
        '{"k":"é"}'.encode(),
        b'{"k":"\xff"}',
        b'{"k":"\xc3"}',
        '{"k":"é","n":'.encode() + b"9" * 20 + b"}",
        b"[" * 40 + b'"\xff"',
    ]
    for raw in cases:
        _same(raw)
    assert _outcome(check_json, shoot) is None
    assert _outcome(check_json, b'{"a":' + b"9" * 20 + b"}") is not None
    assert _outcome(check_json, b"[" + nested + b"]") is not None
    assert _outcome(check_json, b'{"k":"\xff"}') is not None
