"""The seal of a battle file: a hash chain over its event lines and a signature over header + chain head.

``digests[k]`` is sha256(digests[k-1] || line k) in hex, starting from sha256("salvo-battle/2"), so each
line's hash covers every line before it: an edited, removed, reordered or duplicated line breaks the
chain at that line. The signature covers the header's canonical form (every field but ``signature``:
sorted keys, no spaces, UTF-8, as Python's json module writes it, so a standard-library verifier can
rebuild the same bytes) and the chain head. clients/verify_dice.py re-implements both; keep them equal.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

FORMAT = "salvo-battle/2"
LEGACY_FORMAT = "salvo-battle/1"  # unsigned, with independent 16-hex digests per line
CHAIN_START = hashlib.sha256(FORMAT.encode()).hexdigest()


def chain(lines: list[bytes]) -> list[str]:
    """The running hash after each line (whitespace around a line is not part of it)."""
    out: list[str] = []
    previous = CHAIN_START
    for line in lines:
        previous = hashlib.sha256(previous.encode() + b"\n" + line.strip()).hexdigest()
        out.append(previous)
    return out


def first_break(lines: list[bytes], digests: list[str]) -> int | None:
    """Index of the first line whose chain value differs from the header's (or that the header lacks)."""
    for index, value in enumerate(chain(lines)):
        if index >= len(digests) or digests[index] != value:
            return index
    return len(lines) if len(digests) > len(lines) else None


def canonical(header: dict[str, Any]) -> bytes:
    unsigned = {k: v for k, v in header.items() if k != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signed_message(header: dict[str, Any]) -> bytes:
    digests = header.get("digests") or []
    head = digests[-1] if digests else CHAIN_START
    return FORMAT.encode() + b"\n" + canonical(header) + b"\n" + str(head).encode()


def legacy_digest(line: bytes) -> str:
    return hashlib.sha256(line.strip()).hexdigest()[:16]
