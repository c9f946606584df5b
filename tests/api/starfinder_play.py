"""Play Starfinder games through HTTP alone: every crew seat draws its commands from its own GET /options.

Each crew member is a seat ("ship/crew"); a seat's token only ever sends what that seat's /options offered.
The umpire forces the phase on only when no seat has any option at all. Choices come from a seeded
``random.Random``; the dice come from fresh secret turn seeds, so a game is repeatable only up to the dice.

The chooser plays like a crew that wants a fight: it goes to battle stations and fires whenever it can,
rarely changes roles, seldom passes, and its pilot mostly steers toward the nearest enemy (the end hex of a
``path`` is traced here exactly as the hex map traces it: F = one hex ahead, L/R = one hexside turn).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.api.helpers import bearer, options, view

FORCE = "starfinder.force_phase"
EAGER = ("starfinder.battle_stations", "starfinder.fire")
RARE = ("starfinder.change_role",)  # taken now and then: role changes are legal but make a dull battle
PATH_MOVES = ("starfinder.move", "starfinder.evade", "starfinder.flyby")
# service/domain/core/hexgrid.py: the axial step through hexside k (0 = N, clockwise)
DIRS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


@dataclass
class Played:
    """What was sent and what came back, for assertions after the game."""

    posts: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)  # (who, command, status)
    versions: list[int] = field(default_factory=list)  # the version after each accepted command
    bodies: list[dict[str, Any]] = field(default_factory=list)  # each 201 body: {version, events}
    umpire_forces: int = 0
    foreign: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # options naming another seat


async def new_game(client: httpx.AsyncClient, scenario: Any = "duel") -> dict[str, Any]:
    r = await client.post("/v1/games", json={"ruleset": "starfinder", "scenario": scenario})
    assert r.status_code == 201, r.text
    return r.json()


async def post(
    client: httpx.AsyncClient, game: dict[str, Any], token: str | None, cmd: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        f"/v1/games/{game['game_id']}/commands", json={"command": cmd}, headers=bearer(token) if token else {}
    )


async def events(client: httpx.AsyncClient, game: dict[str, Any], token: str | None = None) -> list[dict[str, Any]]:
    r = await client.get(
        f"/v1/games/{game['game_id']}/events", params={"limit": 10000}, headers=bearer(token or game["umpire_token"])
    )
    assert r.status_code == 200, r.text
    return r.json()["events"]


def path_end(hex_: list[int], facing: int, path: str) -> tuple[tuple[int, int], int]:
    q, r = hex_
    f = facing % 6
    for step in path:
        if step == "F":
            q, r = q + DIRS[f][0], r + DIRS[f][1]
        elif step == "L":
            f = (f + 5) % 6
        elif step == "R":
            f = (f + 1) % 6
    return (q, r), f


def distance(a: tuple[int, int] | list[int], b: tuple[int, int] | list[int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _closing(state: dict[str, Any], seat: str, cmds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The path move that ends nearest the nearest enemy (the pilot's idea of a good helm phase)."""
    ships = {s["id"]: s for s in state["ships"]}
    me = ships.get(seat.split("/", 1)[0])
    if me is None:
        return None
    enemies = [s["hex"] for s in ships.values() if s["side"] != me["side"] and s["status"] != "destroyed"]
    moves = [c for c in cmds if c["type"] in PATH_MOVES]
    if not enemies or not moves:
        return None

    def score(c: dict[str, Any]) -> tuple[int, int]:
        end, _ = path_end(me["hex"], me["facing"], c["path"])
        return min(distance(end, e) for e in enemies), -len(c["path"])

    return min(moves, key=score)


def choose(
    rng: random.Random, state: dict[str, Any], choices: list[tuple[str, str, dict[str, Any]]]
) -> tuple[str, str, dict[str, Any]]:
    eager = [c for c in choices if c[2]["type"] in EAGER]
    if eager:
        return rng.choice(eager)
    acting = [c for c in choices if c[2]["type"] not in (*RARE, "starfinder.pass")]
    if acting and rng.random() < 0.9:
        who, token, cmd = rng.choice(acting)
        mine = [c for w, _t, c in acting if w == who]
        best = _closing(state, who, mine) if rng.random() < 0.75 else None  # a pilot at the helm
        if best is not None:
            return who, token, best
        return who, token, cmd
    plain = [c for c in choices if c[2]["type"] not in RARE]
    if plain and rng.random() < 0.95:
        return rng.choice(plain)
    return rng.choice(choices)


async def play(
    client: httpx.AsyncClient,
    game: dict[str, Any],
    rng: random.Random,
    *,
    until: Callable[[dict[str, Any]], bool] | None = None,
    max_commands: int = 3000,
    played: Played | None = None,
) -> Played:
    """Draw commands from each seat's /options until the game is over (or ``until(summary)`` holds after a
    command). Every POST must be 201; the caller asserts on the returned record."""
    played = played or Played()
    seats = game["seats"]
    state = (await view(client, game))["state"]
    for _ in range(max_commands):
        choices: list[tuple[str, str, dict[str, Any]]] = []
        for name, token in seats.items():
            for c in await options(client, game, token):
                if c.get("seat") != name:
                    played.foreign.append((name, c))
                choices.append((name, token, c))
        if not choices:
            umpire = await options(client, game, game["umpire_token"])
            if not umpire:  # the game is over: nobody, not even the umpire, has a command
                return played
            assert [c["type"] for c in umpire] == [FORCE], umpire
            choices = [("umpire", game["umpire_token"], umpire[0])]
            played.umpire_forces += 1
        who, token, cmd = choose(rng, state, choices)
        r = await post(client, game, token, cmd)
        played.posts.append((who, cmd, r.status_code))
        assert r.status_code == 201, (who, cmd, r.text)
        played.versions.append(r.json()["version"])
        played.bodies.append(r.json())
        summary = await view(client, game)
        state = summary["state"]
        if until is not None and until(summary):
            return played
    raise AssertionError(f"the game did not end within {max_commands} commands")
