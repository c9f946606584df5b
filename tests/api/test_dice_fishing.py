"""Rewinds cannot fish for dice: a re-decided position of the log gets the faces of its first use,
whatever the salt and whoever sends it (docs/dice.md, "A position keeps its first faces")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import SHOOT_RED, bearer, new_game

pytestmark = pytest.mark.asyncio


async def shoot(api: httpx.AsyncClient, game: dict[str, Any], token: str, salt: str) -> dict[str, Any]:
    r = await api.post(
        f"/v1/games/{game['game_id']}/commands", headers=bearer(token), json={"command": SHOOT_RED, "salt": salt}
    )
    assert r.status_code == 201, r.text
    [shot] = [e for e in r.json()["events"] if e["type"] == "tiny.shot"]
    return shot


async def rewind(api: httpx.AsyncClient, game: dict[str, Any], to_seq: int) -> None:
    r = await api.post(
        f"/v1/games/{game['game_id']}/rewind",
        json={"to_seq": to_seq, "reason": "fishing?"},
        headers=bearer(game["umpire_token"]),
    )
    assert r.status_code == 201, r.text


async def test_twenty_rewinds_with_twenty_salts_give_one_set_of_faces(api):
    game = await new_game(api, scenario="long")
    red, umpire = game["seats"]["red"], game["umpire_token"]
    point = (await api.get(f"/v1/games/{game['game_id']}")).json()["version"]
    first = [await shoot(api, game, red, "s0") for _ in range(3)]  # three positions, salt s0
    faces = {tuple(tuple(r["value"] for r in shot["rolls"]) for shot in first)}
    slots = [shot["dice"]["slot"] for shot in first]
    for attempt in range(1, 21):
        await rewind(api, game, point)
        sender = umpire if attempt == 20 else red  # once the umpire re-sends it instead of the seat
        again = [await shoot(api, game, sender, f"s{attempt}-{k}") for k in range(3)]
        assert [shot["dice"]["slot"] for shot in again] == slots
        assert all(shot["dice"]["salts"] == ["s0"] for shot in again)  # the first use's salt, recorded
        faces.add(tuple(tuple(r["value"] for r in shot["rolls"]) for shot in again))
    assert len(faces) == 1, faces
    # a position never used before still takes the salt it is sent (the salt is not ignored altogether)
    fourth = await shoot(api, game, red, "fresh")
    assert (
        fourth["dice"]["slot"] == slots[-1] + 1 and fourth["dice"]["salt"] == "fresh" and "salts" not in fourth["dice"]
    )


async def test_rewinding_before_an_other_command_keeps_the_slot_faces(api):
    """A different command order after the rewind still meets the pinned faces slot by slot."""
    game = await new_game(api, scenario="long")
    red, blue = game["seats"]["red"], game["seats"]["blue"]
    point = (await api.get(f"/v1/games/{game['game_id']}")).json()["version"]
    red_shot = await shoot(api, game, red, "a")
    await rewind(api, game, point)
    r = await api.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=bearer(blue),
        json={"command": {"type": "tiny.shoot", "shooter": "blue", "target": "red"}, "salt": "b"},
    )
    [blue_shot] = [e for e in r.json()["events"] if e["type"] == "tiny.shot"]
    assert blue_shot["dice"]["slot"] == red_shot["dice"]["slot"]
    assert [x["value"] for x in blue_shot["rolls"]] == [x["value"] for x in red_shot["rolls"]]


async def test_fishing_is_refused_after_a_restart_too(tmp_path):
    """The pinned salts come from the log, not from memory: a fresh process keeps them."""
    from service.api.app import create_app
    from service.settings import Settings

    url = f"sqlite:///{tmp_path}/fish.db"
    faces = set()
    game: dict[str, Any] = {}
    point = 0
    for attempt in range(3):
        app = create_app(Settings(database_url=url))
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://s") as api:
                if not game:
                    game = await new_game(api, scenario="long")
                    point = (await api.get(f"/v1/games/{game['game_id']}")).json()["version"]
                else:
                    await rewind(api, game, point)
                shot = await shoot(api, game, game["seats"]["red"], f"salt-{attempt}")
                faces.add(tuple(r["value"] for r in shot["rolls"]))
    assert len(faces) == 1
