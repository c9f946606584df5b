"""Every secret and unique id the service draws, in one place (tests make them reproducible here)."""

from __future__ import annotations

import itertools
import os
import secrets


def game_id() -> str:
    return "g_" + secrets.token_hex(8)


class _CommandIds:
    """Command ids name a command, they guard nothing: a random per-process prefix and a counter, so a
    command costs no os.urandom call. The prefix is drawn again after a fork (two workers never share a
    sequence) and whenever ``secrets`` is replaced (tests seed it to make runs reproducible)."""

    def __init__(self) -> None:
        self._source: object = None
        self._prefix = ""
        self._counter = itertools.count(1)

    def reset(self) -> None:
        self._source = None

    def next(self) -> str:
        if self._source is not secrets:
            self._redraw()
        return f"{self._prefix}{next(self._counter):04x}"

    def _redraw(self) -> None:
        self._source = secrets
        self._prefix = "c_" + secrets.token_hex(6)
        self._counter = itertools.count(1)


_command_ids = _CommandIds()
os.register_at_fork(after_in_child=_command_ids.reset)


def command_id(_ids: _CommandIds = _command_ids) -> str:
    """``_CommandIds.next``, one call level fewer (once per command)."""
    if _ids._source is not secrets:
        _ids._redraw()
    return f"{_ids._prefix}{next(_ids._counter):04x}"


def token() -> str:
    """A seat or umpire token; never starting with "-" or "_", so ``salvo join GAME TOKEN`` (and any
    command line) does not read it as an option."""
    while True:
        value = secrets.token_urlsafe(24)
        if value[0].isalnum():
            return value


def dice_seed() -> bytes:
    return secrets.token_bytes(32)


_SECRETS = secrets


def spare_dice_seed() -> bytes | None:
    """A turn seed drawn ahead of its turn (dice_book's spares), or None while ``secrets`` is replaced
    (tests seed it): a reproducible source must give each seed at its turn change, in the order the log
    asks for them, so nothing is drawn ahead of time then."""
    return _SECRETS.token_bytes(32) if secrets is _SECRETS else None
