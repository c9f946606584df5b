"""Golden battle files (tests/golden/*.jsonl): the constants recorded from each, load one with full validation,
fold it turn by turn, and (to regenerate one) play a whole battle with a ruleset's bot.

A golden file is an umpire export of a whole game; tests/events/test_golden.py checks that today's rule code
still folds the old events to the constants recorded here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from service.domain.core import find_ruleset, seat
from service.domain.core.guards import full_view
from service.events.envelope import DiceRevealed, Envelope
from service.events.errors import InvalidRequest
from service.events.head import codec_for
from service.events.portability import state_hash, validate_battle_file
from service.events.replay import Decoded, Folder

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"


@dataclass(frozen=True)
class Golden:
    """One golden file and what was recorded from it once (``describe``), never from the code under test."""

    file: str  # in tests/golden/
    ruleset: str
    scenario: str
    state_hash: str  # of the final state
    turn_hashes: dict[int, str]  # state hash after the last event stamped with each turn (round, for Starfinder)
    events: int
    rolls: int
    revealed_turns: int  # turns whose dice the verifier checks
    result: tuple[Any, ...]  # (winner, ruleset.result(state), ruleset.clock(state).turn) at the end

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / self.file


def final_result(ruleset_name: str, state: Any) -> tuple[Any, ...]:
    ruleset = find_ruleset(ruleset_name)
    return (state.winner, ruleset.result(state), ruleset.clock(state).turn)


def describe(path: Path, revealed_turns: int) -> str:
    """A ``Golden(...)`` for the file, as Python source to paste (only when regenerating it); the revealed
    turns are the count the dice verifier prints for it."""
    header, decoded, state = load(path)
    golden = Golden(
        file=path.name,
        ruleset=header.ruleset,
        scenario=header.scenario_name,
        state_hash=state_hash(state),
        turn_hashes=hashes_by_turn(path),
        events=len(decoded),
        rolls=sum(len(d.event.rolls) for d in decoded),
        revealed_turns=revealed_turns,
        result=final_result(header.ruleset, state),
    )
    return repr(golden)


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


async def play_bots(client: Any, ruleset_name: str, scenario: str, bot_name: str = "rules") -> bytes:
    """Play a whole battle over HTTP with one of the ruleset's bots on every seat (it chooses from what each
    seat may see; the true state is folded from the umpire's event stream) and return the umpire's export."""
    ruleset = find_ruleset(ruleset_name)
    codec, folder = codec_for(ruleset), Folder(ruleset)
    r = await client.post("/v1/games", json={"ruleset": ruleset_name, "scenario": scenario})
    game = r.json()
    gid, umpire = game["game_id"], {"Authorization": f"Bearer {game['umpire_token']}"}
    state, seen, key = None, 0, 0
    bot = ruleset.bots[bot_name]
    while state is None or not state.over:
        events = (
            await client.get(f"/v1/games/{gid}/events", params={"after": seen, "limit": 10000}, headers=umpire)
        ).json()["events"]
        for env in events:
            if env["type"] == "game.created":
                state = ruleset.initial_state(ruleset.parse_setup(env["data"]["setup"]))
            else:
                event = codec.decode(
                    env["type"], env["v"], json.dumps(env["data"]).encode(), json.dumps(env.get("rolls", [])).encode()
                )
                state = folder.apply(state, event)
            seen = env["seq"]
        if state.over:
            break
        for side in ruleset.seats(None):
            viewer = seat(side)
            view = msgspec.to_builtins(full_view(ruleset, state, viewer))
            cmd = bot.choose(view, ruleset.options(state, viewer), ruleset.forms(state, viewer), side, key)
            if cmd is not None:
                key += 1
                r = await client.post(
                    f"/v1/games/{gid}/commands",
                    json={"command": msgspec.to_builtins(cmd)},
                    headers={"Authorization": f"Bearer {game['seats'][side]}"},
                )
                assert r.status_code == 201, r.text
                break
    r = await client.get(f"/v1/games/{gid}/export", headers=umpire)
    assert r.status_code == 200, r.text
    return bytes(r.content)
