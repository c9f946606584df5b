"""Small helpers for API tests."""

from __future__ import annotations

from typing import Any

import httpx


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def new_game(client: httpx.AsyncClient, ruleset: str = "tiny", scenario: Any = "duel") -> dict[str, Any]:
    r = await client.post("/v1/games", json={"ruleset": ruleset, "scenario": scenario})
    assert r.status_code == 201, r.text
    return r.json()


async def command(
    client: httpx.AsyncClient, game: dict[str, Any], token: str | None, cmd: dict[str, Any], **headers: str
) -> httpx.Response:
    hdrs = bearer(token) if token else {}
    hdrs.update({k.replace("_", "-"): v for k, v in headers.items()})
    return await client.post(f"/v1/games/{game['game_id']}/commands", json={"command": cmd}, headers=hdrs)


async def seqs(client: httpx.AsyncClient, game: dict[str, Any]) -> list[int]:
    r = await client.get(f"/v1/games/{game['game_id']}/events", headers=bearer(game["umpire_token"]))
    return [e["seq"] for e in r.json()["events"]]


SHOOT_RED = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


async def view(
    client: httpx.AsyncClient, game: dict[str, Any], token: str | None = None, at: int | None = None
) -> dict[str, Any]:
    params = {"at": at} if at is not None else {}
    r = await client.get(f"/v1/games/{game['game_id']}", headers=bearer(token) if token else {}, params=params)
    assert r.status_code == 200, r.text
    return r.json()


async def version(client: httpx.AsyncClient, game: dict[str, Any]) -> int:
    return (await view(client, game))["version"]


async def options(client: httpx.AsyncClient, game: dict[str, Any], token: str) -> list[dict[str, Any]]:
    r = await client.get(f"/v1/games/{game['game_id']}/options", headers=bearer(token))
    assert r.status_code == 200, r.text
    return [o["command"] for o in r.json()["options"]]
