"""Real answers of every operation match the OpenAPI document: the status is documented for the
operation and the body validates against its schema, made strict (no undocumented keys)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs

from tests.clients.exercise import exercise

DOC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


def strict(node: Any) -> Any:
    """Every object schema listing properties, without a word on others, refuses others."""
    if isinstance(node, dict):
        out = {k: strict(v) for k, v in node.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [strict(v) for v in node]
    return node


def operations() -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for methods in DOC["paths"].values() for op in methods.values()}


def validator(schema: dict[str, Any]) -> Any:
    root = {"components": strict(copy.deepcopy(DOC["components"])), **schema}
    return jsonschema_rs.Draft202012Validator(root)


async def test_every_operation_answers_as_documented(api: httpx.AsyncClient) -> None:
    samples = await exercise(api)
    ops = operations()
    assert {s.operation for s in samples} == set(ops), "every operation is exercised"
    for s in samples:
        documented = ops[s.operation]["responses"].get(str(s.status))
        assert documented is not None, f"{s.operation} answered {s.status}, not documented"
        if s.body is None:
            assert "content" not in documented
            continue
        assert s.media in documented["content"], (s.operation, s.status, s.media)
        errors = [e.message for e in validator(documented["content"][s.media]["schema"]).iter_errors(s.body)]
        assert not errors, f"{s.operation} {s.status}: {errors[:3]}"
    statuses = {(s.operation, s.status) for s in samples}
    assert {("post_command", code) for code in (201, 403, 409, 422)} <= statuses


async def test_a_rate_limited_command_answers_as_documented(sqlite_url: str) -> None:
    from service.api.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=sqlite_url, rate_commands_per_token="1/minute"))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            game = (await client.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"})).json()
            url = f"/v1/games/{game['game_id']}/commands"
            headers = {"Authorization": f"Bearer {game['seats']['red']}"}
            first = await client.post(url, json={"command": {"type": "gsc2.start"}}, headers=headers)
            limited = await client.post(url, json={"command": {"type": "gsc2.start"}}, headers=headers)
    assert first.status_code == 201 and limited.status_code == 429
    documented = operations()["post_command"]["responses"]["429"]
    assert "Retry-After" in documented["headers"] and int(limited.headers["retry-after"]) >= 1
    schema = documented["content"]["application/problem+json"]["schema"]
    assert list(validator(schema).iter_errors(limited.json())) == []


def test_a_linked_battle_answers_as_documented(sqlite_url: str, monkeypatch) -> None:
    """Created (201), already linked (200), and a player who may not start it (403)."""
    from starlette.testclient import TestClient

    from tests.api import test_linked_battles as linked
    from tests.api.linked_battle_play import start_linked_battle
    from tests.support.seeded import SeededSecrets

    monkeypatch.setattr(linked.ids, "secrets", SeededSecrets(f"linked-{linked.SEED}"))
    with TestClient(linked._app(sqlite_url)) as client:
        game, battle, started = start_linked_battle(client, linked.SEED)
        url = f"/v1/games/{game['game_id']}/battles/{battle['id']}/tactical"
        again = client.post(url, headers={"Authorization": f"Bearer {game['umpire_token']}"})
        player = next(iter(game["seats"].values()))
        refused = client.post(url, headers={"Authorization": f"Bearer {player}"})
        link = client.get(f"/v1/games/{started['tactical_game_id']}/link")
    assert link.status_code == 200
    link_schema = operations()["get_link"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert list(validator(link_schema).iter_errors(link.json())) == []
    responses = operations()["post_linked_battle"]["responses"]
    for status, body in ((201, started), (200, again.json()), (403, refused.json())):
        content = responses[str(status)]["content"]
        (schema,) = (c["schema"] for c in content.values())
        assert list(validator(schema).iter_errors(body)) == [], (status, body)
    assert again.status_code == 200 and refused.status_code == 403
