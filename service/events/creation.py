"""Game creation: scenario resolution, tokens, the first turn's dice commitment and inherited events
(forks and imported battle files), written as one batch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from service.domain.core import Event, InvalidScenario, find_ruleset
from service.domain.core.registry import UnknownRuleset

from . import ids
from .dice_book import DiceBook
from .envelope import DiceMaterial, GameCreated
from .errors import InvalidRequest
from .event_store import EventStore, WriteBatch
from .head import codec_for
from .rows import event_row, now_iso
from .tokens import TokenBook

_material_decoder = msgspec.json.Decoder(DiceMaterial)


@dataclass
class Lineage:
    """Where a fork or an imported game comes from, and the effective events it inherits."""

    source_game: str
    source_seq: int
    events: list[tuple[Any, Event]]  # (stored row, decoded event), ruleset events only, in order

    def inherit(self, game_id: str, codec: Any, first_seq: int) -> list[tuple[dict[str, Any], Event]]:
        out = []
        for offset, (row, event) in enumerate(self.events):
            material = _material_decoder.decode(row.dice) if row.dice else None
            if material is not None and material.origin is None:
                material = msgspec.structs.replace(material, origin=self.source_game)
            new = event_row(
                codec,
                game_id,
                first_seq + offset,
                event,
                int(row.turn),
                row.phase,
                row.actor,
                row.command_id,
                row.recorded_at,
                material,
            )
            out.append((new, event))
        return out


@dataclass
class CreatedGame:
    game_id: str
    ruleset: str
    ruleset_version: str
    seat_tokens: dict[str, str]
    umpire_token: str
    commitment: str
    version: int
    forked_at: int | None = None  # a fork: the seq it went on from (the end of the command it was asked inside)


async def create_game(
    store: EventStore,
    ruleset_name: str,
    scenario: str | dict[str, Any],
    options: dict[str, Any] | None = None,
    lineage: Lineage | None = None,
    snapshot_every: int | None = None,
) -> CreatedGame:
    """``snapshot_every``: with a lineage, a snapshot at the first command boundary every that many inherited
    events (the fold below passes through those states anyway), so the game's first load is short."""
    try:
        ruleset = find_ruleset(ruleset_name)
    except UnknownRuleset:
        raise InvalidRequest(f"unknown ruleset {ruleset_name!r}", field="ruleset") from None
    scenario_name: str | None = None
    if isinstance(scenario, str):
        scenario_name = scenario
        samples = ruleset.scenarios()
        if scenario not in samples:
            raise InvalidRequest(f"ruleset {ruleset_name} has no scenario {scenario!r}", field="scenario")
        raw_setup = samples[scenario]
    else:
        raw_setup = scenario
    try:
        setup = ruleset.parse_setup(raw_setup)
    except InvalidScenario as exc:
        raise InvalidRequest(exc.detail, field=f"scenario.{exc.path}") from None
    game_id = ids.game_id()
    seat_tokens, umpire_token, seat_rows = TokenBook.issue(game_id, ruleset.seats(setup))
    state = ruleset.initial_state(setup)
    start = ruleset.clock(state)
    codec = codec_for(ruleset)
    inherited = lineage.inherit(game_id, codec, first_seq=2) if lineage else []
    snapshots: list[dict[str, Any]] = []
    last_snapshot = 0
    for i, (row_dict, event) in enumerate(inherited):
        state = ruleset.evolve(state, event)
        seq = row_dict["seq"]
        if (
            snapshot_every
            and seq - last_snapshot >= snapshot_every
            and (i + 1 == len(inherited) or inherited[i + 1][0]["command_id"] != row_dict["command_id"])
        ):
            snapshots.append({"game_id": game_id, "seq": seq, "state": msgspec.json.encode(state)})
            last_snapshot = seq
    clock = ruleset.clock(state)
    seed_row, committed = DiceBook.open_game(game_id, clock.turn, ruleset.hidden_information)
    created = GameCreated(
        ruleset=ruleset.name,
        ruleset_version=ruleset.version,
        scenario_name=scenario_name,
        setup=msgspec.to_builtins(raw_setup),
        options=options or {},
        forked_from=lineage.source_game if lineage else None,
        forked_at=lineage.source_seq if lineage else None,
    )
    recorded_at = now_iso()
    rows = [
        event_row(codec, game_id, 1, created, start.turn, start.phase, "system", None, recorded_at, None),
        *(row for row, _event in inherited),
    ]
    rows.append(
        event_row(codec, game_id, len(rows) + 1, committed, clock.turn, clock.phase, "system", None, recorded_at, None)
    )
    batch = WriteBatch(
        game_id=game_id,
        game={
            "id": game_id,
            "ruleset": ruleset.name,
            "ruleset_version": ruleset.version,
            "scenario_name": scenario_name,
            "setup": msgspec.json.encode(raw_setup).decode(),
            "created_at": recorded_at,
        },
        seats=seat_rows,
        seeds=[seed_row],
        events=rows,
        snapshots=snapshots,
    )
    await store.write(batch)
    return CreatedGame(
        game_id, ruleset.name, ruleset.version, seat_tokens, umpire_token, committed.commitment, len(rows)
    )
