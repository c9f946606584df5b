"""Golden battle files (tests/golden/*.jsonl): load one with full validation, and fold it turn by turn.

A golden file is an umpire export of a whole game; its tests check that today's rule code still folds the old
events to the recorded state hashes (see tests/events/test_golden.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from service.domain.core import find_ruleset
from service.events.envelope import DiceRevealed, Envelope
from service.events.errors import InvalidRequest
from service.events.head import codec_for
from service.events.portability import state_hash, validate_battle_file
from service.events.replay import Decoded, Folder


def load(path: Path) -> tuple[Any, list[Any], Any]:
    """(header, decoded events, final state), validated: seqs, digests, seeds against commitments, every roll."""
    try:
        return validate_battle_file(path.read_bytes())
    except InvalidRequest as exc:  # the fold no longer matches the header: rule code changed how events fold
        raise AssertionError(f"the golden log no longer validates with today's code: {exc.detail}") from None


class _Row:
    """A stored-row lookalike for one exported envelope (what the codec and the folder read)."""

    def __init__(self, env: Envelope) -> None:
        self.seq, self.type, self.v, self.turn = env.seq, env.type, env.v, env.turn
        self.data, self.rolls = msgspec.json.encode(env.data), msgspec.json.encode(env.rolls)


def hashes_by_turn(path: Path) -> dict[int, str]:
    """Fold the events one by one (without the whole-file validation, so a changed fold is still located): the
    state hash after the last event stamped with each turn."""
    lines = [ln for ln in path.read_bytes().split(b"\n") if ln.strip()]
    header = msgspec.json.decode(lines[0])
    ruleset = find_ruleset(header["ruleset"])
    codec = codec_for(ruleset)
    decoded = []
    for raw in lines[1:]:
        row = _Row(msgspec.json.decode(raw, type=Envelope))
        decoded.append(Decoded(row, codec.decode(row.type, row.v, row.data, row.rolls)))
    state = ruleset.initial_state(ruleset.parse_setup(header["setup"]))
    out: dict[int, str] = {}
    for d, after in Folder(ruleset).walk(state, decoded):
        if not isinstance(d.event, DiceRevealed):  # a reveal is stamped with the turn it opens, late
            out[int(d.row.turn)] = state_hash(after)
    return out
