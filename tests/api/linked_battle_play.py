"""Drive a campaign over HTTP to a battle ready to be fought, and play a GSC2 game to its end (test support).

Players are the aggressive random players of the campaign leak tests (``ftcampaign_play.pick``); the
umpire acts only when it must (the map) or when nobody else can. Deterministic for a seed: the service's
ids and dice seeds come from a seeded stand-in for ``secrets`` (the caller patches it).
"""

from __future__ import annotations

import math
import random
from typing import Any

import httpx

from tests.api.ftcampaign_play import QUIET, compose_orders, pick
from tests.api.watched_game import auth


def get(client: httpx.Client, gid: str, path: str, token: str | None, **params: Any) -> Any:
    r = client.get(f"/v1/games/{gid}{path}", headers=auth(token), params=params)
    assert r.status_code == 200, (path, r.status_code, r.text)
    return r.json()


def command(client: httpx.Client, gid: str, token: str | None, cmd: dict[str, Any]) -> Any:
    r = client.post(f"/v1/games/{gid}/commands", json={"command": cmd}, headers=auth(token))
    assert r.status_code == 201, (cmd, r.text)
    return r.json()


def choices(
    client: httpx.Client, gid: str, token: str | None, view: dict[str, Any], me: str, rng: random.Random
) -> list[dict[str, Any]]:
    body = get(client, gid, "/options", token)
    return [o["command"] for o in body["options"]] + [compose_orders(rng, view, me, f) for f in body["forms"]]


def ready_battle(state: dict[str, Any]) -> dict[str, Any] | None:
    """A two-force battle whose formations are all recorded (umpire's view)."""
    for b in state.get("battles", []):
        if len(b["forces"]) == 2 and len(b["formations"]) == 2 and not b.get("tactical_game_id"):
            return b
    return None


def _battle(state: dict[str, Any], battle_id: str) -> dict[str, Any]:
    return next(b for b in state.get("battles", []) if b["id"] == battle_id)


def campaign_to_battle(client: httpx.Client, game: dict[str, Any], seed: int, max_steps: int = 700) -> dict[str, Any]:
    rng = random.Random(seed)
    gid, umpire = game["game_id"], game["umpire_token"]
    seats: dict[str, str] = game["seats"]
    for _ in range(max_steps):
        state = get(client, gid, "", umpire)["state"]
        battle = ready_battle(state)
        if battle is not None:
            return battle
        assert not get(client, gid, "", umpire)["over"], "the campaign ended before a battle"
        acting = {}
        for player, token in seats.items():
            view = get(client, gid, "", token)["state"]
            opts = choices(client, gid, token, view, player, rng)
            if opts:
                acting[player] = (view, opts)
        offered = [
            o["command"] for o in get(client, gid, "/options", umpire)["options"] if o["command"]["type"] not in QUIET
        ]
        duties = [c for c in offered if c["type"] != "ftcampaign.record_battle"]
        must = [d for d in duties if d["type"] == "ftcampaign.generate_map"]
        if must or not acting:
            # a battle of three forces is not fought as a linked game (GSC2 is two-sided): with nothing
            # else to do, the umpire enters its result by hand and the campaign goes on to the next one
            by_hand = [
                c
                for c in offered
                if c["type"] == "ftcampaign.record_battle" and len(_battle(state, c["battle"])["forces"]) != 2
            ]
            step = must or duties or by_hand
            assert step, "nobody can move the campaign on"
            command(client, gid, umpire, step[0])
            continue
        player = rng.choice(sorted(acting))
        view, opts = acting[player]
        command(client, gid, seats[player], pick(rng, view, player, opts))
    raise AssertionError("no battle within the step budget")


def start_linked_battle(client: httpx.Client, seed: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A three-powers campaign driven to a ready battle, whose linked GSC2 game the umpire has started.

    Returns the campaign game (ids, tokens), the battle (umpire's view) and the start answer.
    """
    r = client.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "three-powers"})
    assert r.status_code == 201, r.text
    game = r.json()
    battle = campaign_to_battle(client, game, seed)
    r = client.post(f"/v1/games/{game['game_id']}/battles/{battle['id']}/tactical", headers=auth(game["umpire_token"]))
    assert r.status_code == 201, r.text
    return game, battle, r.json()


def battle_records(client: httpx.Client, game: dict[str, Any], tactical: str | None = None) -> list[dict[str, Any]]:
    """The campaign's ``battle_recorded`` events (umpire's log); with ``tactical``, only those of that linked
    game (an unseeded campaign may have had a three-force battle entered by hand before it)."""
    events = get(client, game["game_id"], "/events", game["umpire_token"], limit=10000)["events"]
    return [
        e
        for e in events
        if e["type"] == "ftcampaign.battle_recorded"
        and (tactical is None or e["data"].get("tactical_game_id") == tactical)
    ]


def play_gsc2(
    client: httpx.Client, gid: str, tokens: dict[str, str], seed: int, max_steps: int = 3000
) -> dict[str, Any]:
    """Random legal GSC2 play from each seat's /options (with the given tokens) until the game is over."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        summary = get(client, gid, "", None)
        if summary["over"]:
            return summary
        offered = [
            (side, o["command"])
            for side, token in tokens.items()
            for o in get(client, gid, "/options", token)["options"]
        ]
        assert offered, f"nobody can act in the tactical game: {summary['state']['draw']['status']}"
        ends = [c for c in offered if c[1]["type"] == "gsc2.end_phase"]
        side, cmd = rng.choice(ends) if ends and rng.random() < 0.3 else rng.choice(offered)
        command(client, gid, tokens[side], cmd)
    raise AssertionError("the tactical game did not end")


def _run_to_edge(ship: dict[str, Any], legs: list[dict[str, Any]], table: dict[str, Any]) -> float:
    """Inches still to go, after ``legs``, before the ship runs off the table straight ahead (GSC2's plane:
    heading 0 is +y, clockwise)."""
    x, y, h = float(ship["x"]), float(ship["y"]), float(ship["heading"])
    for leg in legs:
        h += float(leg.get("turn", 0))
        x += float(leg.get("distance", 0)) * math.sin(math.radians(h))
        y += float(leg.get("distance", 0)) * math.cos(math.radians(h))
    dx, dy = math.sin(math.radians(h)), math.cos(math.radians(h))
    runs = [
        ((table["width"] if dx > 0 else 0) - x) / dx if abs(dx) > 1e-9 else math.inf,
        ((table["height"] if dy > 0 else 0) - y) / dy if abs(dy) > 1e-9 else math.inf,
    ]
    return max(0.0, min(runs))


def pick_leaver(client: httpx.Client, gid: str, sides: list[str]) -> str:
    """The side that can disengage (GSC2-R-20): each of its ships is compared with the slowest enemy ship, so
    the side whose slowest ship is the faster one never meets a refusal (ties: the second side)."""
    ships = get(client, gid, "", None)["state"]["ships"]
    slowest = {side: min(int(s["speed"]) for s in ships if s["side"] == side) for side in sides}
    return sides[0] if slowest[sides[0]] > slowest[sides[1]] else sides[1]


def sail_off(client: httpx.Client, gid: str, tokens: dict[str, str], leaver: str, max_steps: int = 3000) -> None:
    """Play a GSC2 game so that ``leaver``'s ships disengage (a linked table has no edge: GSC2-R-20,
    FTC-ARR-11), heading for the nearest drawn edge while they are not yet allowed to, and nobody fires: the
    other side stays put and ends its phases. ``client`` is a TestClient or an httpx.Client on a real server."""

    def rank(side: str, option: dict[str, Any], view: dict[str, Any]) -> float:
        cmd = option["command"]
        if cmd["type"] == "gsc2.disengage":
            return -2 if side == leaver else 10
        if cmd["type"] == "gsc2.move":
            legs = cmd.get("legs", ())
            if side != leaver:
                return 0 if not any(leg.get("distance") for leg in legs) else 8
            if "leaves the table" in option["label"]:
                return -1  # before a move that ends on the very edge (it stays on the table)
            ship = next(s for s in view["ships"] if s["id"] == cmd["ship"])
            return 1 - 1 / (1 + _run_to_edge(ship, list(legs), view["table"]))
        return {"gsc2.choose_order": 2, "gsc2.pass": 3, "gsc2.end_phase": 4}.get(cmd["type"], 9)

    for _ in range(max_steps):
        summary = get(client, gid, "", None)
        if summary["over"]:
            return
        offered = [
            (rank(side, o, summary["state"]), side, o["command"])
            for side, token in tokens.items()
            for o in get(client, gid, "/options", token)["options"]
        ]
        assert offered, "nobody can act in the tactical game"
        _, side, cmd = min(offered, key=lambda x: x[0])
        command(client, gid, tokens[side], cmd)
    raise AssertionError("the tactical game did not end")
