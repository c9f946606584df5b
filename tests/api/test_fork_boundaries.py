"""Forks and rewinds asked at a seq inside a command land at that command's end (issue 38): the fork of a
GSC2 duel taken between the last ship's move and the phase change the same command appended can be played
on (its seat to act has options, one of them is accepted), and the answer says where it landed."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings
from tests.api.watched_game import auth


def options(client: TestClient, gid: str, token: str) -> list[dict[str, Any]]:
    r = client.get(f"/v1/games/{gid}/options", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()["options"]


def play_one(client: TestClient, gid: str, seats: dict[str, str]) -> dict[str, Any]:
    """Send the first option of the first seat offered any (moves and shots before ending a phase)."""
    for token in seats.values():
        offered = [o for o in options(client, gid, token) if o.get("group") != "phase"] or options(client, gid, token)
        if offered:
            r = client.post(f"/v1/games/{gid}/commands", json={"command": offered[0]["command"]}, headers=auth(token))
            assert r.status_code == 201, r.text
            return r.json()
    raise AssertionError("nobody may act")


def test_a_fork_inside_a_command_goes_on_from_its_end_and_can_be_played(sqlite_url):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as client:
        game = client.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"}).json()
        gid, seats, umpire = game["game_id"], game["seats"], game["umpire_token"]
        inside = None
        for _ in range(40):  # until a command appends more than one event (a move that ends the phase)
            result = play_one(client, gid, seats)
            events = [e for e in result["events"] if not e["type"].startswith("dice.")]
            if len(events) >= 2:
                inside = (events[0]["seq"], result["events"][-1]["seq"])
                break
        assert inside is not None, "no command of several events in 40 commands"
        asked, end = inside

        r = client.post(f"/v1/games/{gid}/fork", params={"at": asked}, headers=auth(umpire))
        assert r.status_code == 201, r.text
        fork = r.json()
        assert fork["forked_at"] == end and fork["requested_at"] == asked
        fid = fork["game_id"]
        created = client.get(f"/v1/games/{fid}/events", params={"limit": 1}, headers=auth(fork["umpire_token"]))
        assert created.json()["events"][0]["data"]["forked_at"] == end

        acting = {who: options(client, fid, token) for who, token in fork["seats"].items()}
        assert any(acting.values()), "the fork's seats are offered nothing"
        who, offered = next((w, o) for w, o in acting.items() if o)
        r = client.post(
            f"/v1/games/{fid}/commands", json={"command": offered[0]["command"]}, headers=auth(fork["seats"][who])
        )
        assert r.status_code == 201, r.text

        # at a command's end, nothing moves: no requested_at
        r = client.post(f"/v1/games/{gid}/fork", params={"at": end}, headers=auth(umpire))
        assert r.json()["forked_at"] == end and "requested_at" not in r.json()

        # a rewind asked inside that command lands at its end too
        play_one(client, gid, seats)
        r = client.post(f"/v1/games/{gid}/rewind", json={"to_seq": asked}, headers=auth(umpire))
        assert r.status_code == 201, r.text
        assert r.json()["rewound_to"] == end and r.json()["requested_to"] == asked
        assert any(options(client, gid, token) for token in seats.values())
