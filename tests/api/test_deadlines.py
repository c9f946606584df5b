"""Deadlines (issue 39): a deadline that passes appends its command once, after a deadline.passed event,
whatever stops the firing half-way. The scheduler's clock is the test's here (no sleeping): ``tick()`` is
called by hand; tests/api/test_deadlines_servers.py runs real processes on the wall clock."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, deadline_tick_seconds=3600))  # ticks by hand here
    with TestClient(app) as c:
        c.clock = Clock()
        app.state.deadlines.clock = c.clock
        yield c


def _game(client, deadline, scenario="duel"):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": scenario, "options": {"deadline": deadline}})
    assert r.status_code == 201, r.text
    return r.json()


def _tick(client) -> int:
    return client.portal.call(client.app.state.deadlines.tick)


def _events(client, game):
    r = client.get(
        f"/v1/games/{game['game_id']}/events?after=0", headers={"Authorization": f"Bearer {game['umpire_token']}"}
    )
    return r.json()["events"]


def _types(client, game):
    return [(e["type"], e["actor"]) for e in _events(client, game) if not e["type"].startswith("dice.")]


def test_a_phase_deadline_forces_the_phase_once_and_the_view_shows_the_time_left(client):
    game = _game(client, {"per": "phase", "seconds": 60})
    view = client.get(f"/v1/games/{game['game_id']}").json()
    assert view["deadline"]["seconds_left"] == 60 and view["deadline"]["command"] == {"type": "tiny.force_phase"}
    assert (view["deadline"]["turn"], view["deadline"]["phase"]) == (1, "fire")
    client.clock.now += 59
    assert _tick(client) == 0
    assert client.get(f"/v1/games/{game['game_id']}").json()["deadline"]["seconds_left"] == 1
    client.clock.now += 2
    assert _tick(client) == 1
    assert _tick(client) == 0  # the phase moved on: a new deadline, not due yet
    assert _types(client, game)[-2:] == [("deadline.passed", "system"), ("tiny.phase_advanced", "umpire")]
    passed = [e for e in _events(client, game) if e["type"] == "deadline.passed"][0]
    assert passed["data"]["command"] == "tiny.force_phase" and passed["data"]["phase"] == "fire"
    view = client.get(f"/v1/games/{game['game_id']}").json()
    assert view["phase"] == "end" and view["deadline"]["phase"] == "end" and view["deadline"]["seconds_left"] == 60
    steps = client.get(f"/v1/games/{game['game_id']}/turns/1").json()["events"]
    assert any("deadline of 60 s for turn 1, phase fire passed" in s["text"] for s in steps)


def test_a_player_who_acts_in_time_restarts_the_deadline(client):
    game = _game(client, {"per": "phase", "seconds": 60})
    client.clock.now += 50
    for seat in ("red", "blue"):
        r = client.post(
            f"/v1/games/{game['game_id']}/commands",
            json={"command": {"type": "tiny.end_phase", "seat": seat}},
            headers={"Authorization": f"Bearer {game['seats'][seat]}"},
        )
        assert r.status_code == 201
    assert _tick(client) == 0  # the new phase's deadline starts now
    client.clock.now += 50
    assert _tick(client) == 0
    client.clock.now += 11
    assert _tick(client) == 1
    assert sum(t == "deadline.passed" for t, _a in _types(client, game)) == 1


def test_a_turn_deadline_forces_every_phase_left_in_the_turn(client):
    game = _game(client, {"per": "turn", "seconds": 30})
    client.clock.now += 31
    assert _tick(client) == 1 and _tick(client) == 1  # fire, then end: the turn is over
    assert _tick(client) == 0
    view = client.get(f"/v1/games/{game['game_id']}").json()
    assert (view["turn"], view["phase"]) == (2, "fire") and view["deadline"]["seconds_left"] == 30


def test_a_firing_stopped_half_way_appends_its_command_once(client):
    """Stopped after deadline.passed, before the command: the retry (after the lease lapses) sends the
    command under the same key; stopped after the command, before the row was released: nothing more."""
    game = _game(client, {"per": "phase", "seconds": 10})
    deadlines = client.app.state.deadlines
    service = client.app.state.service
    real = service.handle_command

    def crash(*args, **kwargs):
        raise RuntimeError("the process died here")

    service.handle_command = crash
    client.clock.now += 11
    with pytest.raises(RuntimeError):
        _tick(client)  # the lease stays, as if the process had died
    service.handle_command = real
    assert _types(client, game)[-1] == ("deadline.passed", "system")
    assert _tick(client) == 0  # leased: no other process takes it yet
    client.clock.now += 31
    assert _tick(client) == 1
    assert [t for t, _a in _types(client, game)].count("deadline.passed") == 1
    assert [t for t, _a in _types(client, game)].count("tiny.phase_advanced") == 1

    # the release never committed: the row is as it was before the firing
    from sqlalchemy import update

    from service.events.tables import DEADLINES

    version = client.get(f"/v1/games/{game['game_id']}").json()["version"]
    with deadlines.engine.begin() as conn:  # checked at the log's head: no track, the firing itself looks
        conn.execute(update(DEADLINES).values(turn=1, phase="fire", due_at=0, checked_seq=version, lease_until=None))
    # ... but the game is past that phase: nothing fires (the next track arms the new phase's deadline)
    assert _tick(client) == 0
    assert [t for t, _a in _types(client, game)].count("tiny.phase_advanced") == 1


def test_the_umpire_changes_or_removes_the_deadline(client):
    game = _game(client, {"per": "phase", "seconds": 60})
    gid = game["game_id"]
    umpire = {"Authorization": f"Bearer {game['umpire_token']}"}
    r = client.put(
        f"/v1/games/{gid}/deadline",
        json={"per": "phase", "seconds": 5},
        headers={"Authorization": f"Bearer {game['seats']['red']}"},
    )
    assert r.status_code == 403
    r = client.put(f"/v1/games/{gid}/deadline", json={"per": "phase", "seconds": 5}, headers=umpire)
    assert r.status_code == 200 and r.json()["deadline"]["seconds_left"] == 5
    assert ("deadline.set", "umpire") in _types(client, game)
    client.clock.now += 6
    assert _tick(client) == 1
    r = client.put(f"/v1/games/{gid}/deadline", json={"per": None}, headers=umpire)
    assert r.status_code == 200 and r.json()["deadline"] is None
    client.clock.now += 1000
    assert _tick(client) == 0
    assert client.get(f"/v1/games/{gid}").json()["deadline"] is None


@pytest.mark.parametrize(
    ("deadline", "field"),
    [
        ({"per": "week", "seconds": 5}, "options.deadline.per"),
        ({"per": "phase", "seconds": 0}, "options.deadline.seconds"),
        ({"per": "phase", "seconds": 5, "command": {"type": "gsc2.force_phase"}}, "options.deadline.command"),
        ({"per": "phase"}, "options.deadline"),
    ],
)
def test_a_bad_deadline_is_refused_before_the_game_exists(client, deadline, field):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel", "options": {"deadline": deadline}})
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def test_a_phase_the_command_leaves_the_game_in_gets_a_deadline_again(client):
    """GSC2's force_phase before its first turn starts the turn and stays in the movement phase: that phase
    has a deadline again from then (the game never stalls on a phase its deadline already forced)."""
    r = client.post(
        "/v1/games",
        json={"ruleset": "gsc2", "scenario": "duel", "options": {"deadline": {"per": "phase", "seconds": 60}}},
    )
    game = r.json()
    gid = game["game_id"]
    client.clock.now += 61
    assert _tick(client) == 1
    view = client.get(f"/v1/games/{gid}").json()
    assert (view["turn"], view["phase"]) == (1, "movement") and view["deadline"]["seconds_left"] == 60
    assert _tick(client) == 0
    client.clock.now += 61
    assert _tick(client) == 1
    passed = [e for e in _events(client, game) if e["type"] == "deadline.passed"]
    assert len(passed) == 2 and passed[1]["seq"] > passed[0]["seq"] + 1
