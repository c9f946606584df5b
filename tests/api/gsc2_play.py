"""Play GSC2 games through HTTP alone: every command is drawn from GET /options and POSTed.

Seats act whenever any of them has an option; the umpire forces the phase on only when no seat can act
(the rules then need it). Choices come from a seeded ``random.Random``, so a game is repeatable up to the
dice (the turn seeds are secret and fresh per game).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.api.helpers import bearer, options, view

END_PHASE = "gsc2.end_phase"


@dataclass
class Played:
    """What was sent and what came back, for assertions after the game."""

    posts: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)  # (who, command, status)
    versions: list[int] = field(default_factory=list)  # the version after each accepted command
    bodies: list[dict[str, Any]] = field(default_factory=list)  # each 201 body: {version, events}
    umpire_forces: int = 0


async def new_gsc2_game(client: httpx.AsyncClient, scenario: Any = "duel") -> dict[str, Any]:
    r = await client.post("/v1/games", json={"ruleset": "gsc2", "scenario": scenario})
    assert r.status_code == 201, r.text
    return r.json()


async def post(client: httpx.AsyncClient, game: dict[str, Any], token: str, cmd: dict[str, Any]) -> httpx.Response:
    return await client.post(f"/v1/games/{game['game_id']}/commands", json={"command": cmd}, headers=bearer(token))


async def start(client: httpx.AsyncClient, game: dict[str, Any], played: Played | None = None) -> None:
    token = game["seats"][next(iter(game["seats"]))]
    r = await post(client, game, token, {"type": "gsc2.start"})
    assert r.status_code == 201, r.text
    if played is not None:
        played.posts.append(("seat", {"type": "gsc2.start"}, r.status_code))
        played.versions.append(r.json()["version"])
        played.bodies.append(r.json())


async def play(
    client: httpx.AsyncClient,
    game: dict[str, Any],
    rng: random.Random,
    *,
    until: Callable[[dict[str, Any]], bool] | None = None,
    max_commands: int = 2000,
    played: Played | None = None,
    eager: tuple[str, ...] = (),
) -> Played:
    """Draw commands from /options until the game is over (or ``until(summary)`` holds after a command).

    Seats prefer doing something over ending the phase (85%) so the ships actually fight; command types in
    ``eager`` are always taken while any is on offer. Every POST must be 201; the caller asserts on the
    returned record.
    """
    played = played or Played()
    seats = game["seats"]
    for _ in range(max_commands):
        choices: list[tuple[str, str, dict[str, Any]]] = []
        for name, token in seats.items():
            choices += [(name, token, c) for c in await options(client, game, token)]
        if not choices:
            umpire = await options(client, game, game["umpire_token"])
            if not umpire:  # the game is over: nobody, not even the umpire, has a command
                return played
            choices = [("umpire", game["umpire_token"], c) for c in umpire]
            played.umpire_forces += 1
        acting = [c for c in choices if c[2]["type"] != END_PHASE]
        keen = [c for c in choices if c[2]["type"] in eager]
        who, token, cmd = rng.choice(keen or (acting if acting and rng.random() < 0.85 else choices))
        r = await post(client, game, token, cmd)
        played.posts.append((who, cmd, r.status_code))
        assert r.status_code == 201, (who, cmd, r.text)
        played.versions.append(r.json()["version"])
        played.bodies.append(r.json())
        if until is not None and until(await view(client, game)):
            return played
    raise AssertionError(f"the game did not end within {max_commands} commands")
