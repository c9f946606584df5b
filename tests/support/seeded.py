"""A seeded stand-in for ``secrets`` inside service.events.ids: reproducible seeds, ids and tokens.

Tests that must replay the same game (same dice seeds, same ids) patch it in:
``monkeypatch.setattr(ids, "secrets", SeededSecrets("name-1"))``.
"""

from __future__ import annotations

import random
import secrets


class SeededSecrets:
    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def token_bytes(self, n: int = 32) -> bytes:
        return self._rng.randbytes(n)

    def token_hex(self, n: int = 32) -> str:
        return self._rng.randbytes(n).hex()

    @staticmethod
    def token_urlsafe(n: int = 32) -> str:
        return secrets.token_urlsafe(n)
