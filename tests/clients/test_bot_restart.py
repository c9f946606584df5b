"""Bot seats survive a restart: the seat handed to a bot is in the game's log, and the restarted service
(the real server, killed with SIGKILL) seats the bot again and it plays on; a seat taken back stays a person's."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from service.events.bots import must_act
from tests.support.server import ServerProcess


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _new_duel(api: httpx.Client) -> dict[str, Any]:
    r = api.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"})
    assert r.status_code == 201, r.text
    return r.json()


def _events(api: httpx.Client, game: dict[str, Any]) -> list[dict[str, Any]]:
    r = api.get(f"/v1/games/{game['game_id']}/events", params={"limit": 10000}, headers=_auth(game["umpire_token"]))
    return r.json()["events"]  # type: ignore[no-any-return]


def _play_red_until_blue_moves(api: httpx.Client, game: dict[str, Any], after: int, seconds: float = 90) -> bool:
    """Red (a person: this test) plays its first option whenever it is awaited, until an event of seat
    blue appears after ``after``; False if none does in time."""
    gid, red = game["game_id"], _auth(game["seats"]["red"])
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(e["actor"] == "seat:blue" and e["seq"] > after for e in _events(api, game)):
            return True
        summary = api.get(f"/v1/games/{gid}", headers=red).json()
        if summary["over"]:
            return False
        options = api.get(f"/v1/games/{gid}/options", headers=red).json()
        if must_act(summary["state"]) and options["options"]:
            api.post(
                f"/v1/games/{gid}/commands",
                json={"command": options["options"][0]["command"]},
                headers={**red, "If-Match": str(options["version"])},
            )
        else:
            time.sleep(0.1)
    return False


def test_a_bot_seat_survives_a_kill_and_restart(tmp_path: Path) -> None:
    server = ServerProcess(
        f"sqlite:///{tmp_path}/bots.db", log_path=tmp_path / "server.log", env={"SALVO_HEARTBEAT_SECONDS": "0.5"}
    )
    with server:
        api = httpx.Client(base_url=server.url, timeout=30)
        kept, taken_back = _new_duel(api), _new_duel(api)
        for game in (kept, taken_back):
            r = api.post(
                f"/v1/games/{game['game_id']}/bots",
                json={"seat": "blue", "bot": "rules"},
                headers=_auth(game["seats"]["blue"]),
            )
            assert r.status_code == 201, r.text
        r = api.delete(f"/v1/games/{taken_back['game_id']}/bots/blue", headers=_auth(taken_back["umpire_token"]))
        assert r.status_code == 204
        seated = [e for e in _events(api, kept) if e["type"] == "bot.seated"]
        assert [(e["actor"], e["data"]["seat"], e["data"]["bot"]) for e in seated] == [("seat:blue", "blue", "rules")]
        assert [e["type"] for e in _events(api, taken_back) if e["type"].startswith("bot.")] == [
            "bot.seated",
            "bot.unseated",
        ]
        api.close()

        server.kill()  # SIGKILL: nothing is saved on the way down
        server.start()
        api = httpx.Client(base_url=server.url, timeout=30)
        listing = api.get(f"/v1/games/{kept['game_id']}/bots").json()
        assert [(b["seat"], b["bot"]) for b in listing["bots"]] == [("blue", "rules")]
        assert api.get(f"/v1/games/{taken_back['game_id']}/bots").json()["bots"] == []
        version = max(e["seq"] for e in _events(api, kept))
        assert _play_red_until_blue_moves(api, kept, version), (
            f"blue's bot did not move after the restart\n{server.tail()}"
        )
        # the seat taken back is nobody's bot after the restart either: blue never moves there
        version = max(e["seq"] for e in _events(api, taken_back))
        assert not _play_red_until_blue_moves(api, taken_back, version, seconds=5)
        api.close()
