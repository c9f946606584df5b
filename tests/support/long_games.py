"""Long battle files for every ruleset, built in-process (tests and bench/long_games.py).

The campaign's file is rich in rulings (the umpire's ``record_ruling``, one event each); the tactical rulesets
are played by their options, preferring orders that never end the game, so a log lasts as long as asked.
The file is the umpire's export, unsigned: a server imports it with ``allow_unverified=true``.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import msgspec

from service.domain.core import UMPIRE, RuleViolation, Viewer, find_ruleset, seat
from service.domain.core.choices import option_commands
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from service.events.portability import export_game

SCENARIOS = {"ftcampaign": "three-powers", "gsc2": "duel", "asc": "ambush", "starfinder": "duel"}
# orders that keep a tactical game going for ever (no ship moves off the table, nobody is shot)
CALM = (
    "end_phase",
    "pass",
    "force_phase",
    "ruling",
    "commit_sensors",
    "detect",
    "scan",
    "battle_stations",
    "divert",
    "encourage",
    "countermeasures",
    "choose_order",
    "all_stop",
    "repair",
    "patch",
    "start",
)


class Unsigned:
    """A keyring that signs nothing: the header's signature is removed after the export."""

    def sign(self, _message: bytes) -> dict[str, str]:
        return {}


def long_setup(ruleset: str) -> dict[str, Any]:
    """The sample scenario with its turn (round) limit lifted: a fleet action that lasts."""
    setup = copy.deepcopy(dict(find_ruleset(ruleset).scenarios()[SCENARIOS[ruleset]]))
    for limit in ("turn_limit", "round_limit"):
        if limit in setup:
            setup[limit] = None if ruleset != "asc" else 1_000_000
    if ruleset == "asc":
        setup["turn_limit"] = 1_000_000
    return setup


def _ruling(i: int) -> bytes:
    text = f"ruling {i}: the drive field holds for another week of careful travel between the marches"
    return msgspec.json.encode({"command": {"type": "ftcampaign.record_ruling", "text": text}})


async def _play_long(service: GameService, game_id: str, events: int, rng: random.Random) -> None:
    """Random legal play that avoids game-ending orders while any other order is offered."""
    stuck = 0
    while True:
        head = await service.head(game_id)
        if head.seq >= events or head.ruleset.is_over(head.state):
            return
        viewers = [Viewer("seat", s) for s in head.seats] + [Viewer("umpire")]
        choices: list[tuple[Viewer, Any]] = []
        for viewer in viewers:
            for command in option_commands(head.ruleset.options(head.state, viewer)):
                choices.append((viewer, command))
        calm = [c for c in choices if type(c[1]).__struct_config__.tag.split(".", 1)[1] in CALM]
        pool = calm or choices
        if not pool:
            return
        viewer, command = rng.choice(pool)
        actor = UMPIRE if viewer.kind == "umpire" else seat(viewer.seat or "")
        body = msgspec.json.encode({"command": msgspec.to_builtins(command)})
        try:
            await service.handle_command(game_id, actor, body)
            stuck = 0
        except RuleViolation:
            stuck += 1
            if stuck > 200:
                return


async def build_file(ruleset: str, events: int, seed: int = 1) -> tuple[bytes, int]:
    """An unsigned umpire's battle file of (at least, where the game lasts) ``events`` events."""
    service = GameService(MemoryEventStore(), snapshot_every=10**9)
    game = await service.create_game(ruleset, long_setup(ruleset))
    if ruleset == "ftcampaign":
        head = await service.head(game.game_id)
        for i in range(events - head.seq):
            await service.handle_command(game.game_id, UMPIRE, _ruling(i))
    else:
        await _play_long(service, game.game_id, events, random.Random(seed))
    data = await export_game(service, game.game_id, Viewer("umpire"), Unsigned())  # type: ignore[arg-type]
    first, rest = data.split(b"\n", 1)
    header = json.loads(first)
    header.pop("signature", None)
    return json.dumps(header).encode() + b"\n" + rest, int(header["events"])
