"""Every secret and unique id the service draws, in one place (tests make them reproducible here)."""

from __future__ import annotations

import secrets


def game_id() -> str:
    return "g_" + secrets.token_hex(8)


def command_id() -> str:
    return "c_" + secrets.token_hex(8)


def token() -> str:
    return secrets.token_urlsafe(24)


def dice_seed() -> bytes:
    return secrets.token_bytes(32)
