"""Chess-style clocks (issue 39): the arithmetic of the time banks (no clock read: ``now`` is given), then
the service on a test clock: a bank consumed only while its seat is awaited, the increment, the umpire's
changes, and a run-out that appends clock.ran_out and its command once, whatever stops the firing."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.events import clocks as c
from service.settings import Settings

# --- the arithmetic -------------------------------------------------------------------------------------


def test_a_bank_runs_only_while_its_seat_is_awaited():
    banks = c.start(["red", "blue"], 60, ["red"], now=1_000)
    assert c.due_at(banks) == 61_000
    banks = c.advance(banks, 21_000, ["blue"], increment=0)  # red moved after 20 s: blue's turn
    assert banks.left == {"red": 40_000, "blue": 60_000} and banks.running == ("blue",)
    assert c.seconds_left(banks, 31_000) == {"red": 40.0, "blue": 50.0}
    assert c.due_at(banks) == 81_000 and c.ran_out(banks, 80_999) == ()
    assert c.ran_out(banks, 81_000) == ("blue",)
    assert c.settle(banks, 200_000).left == {"red": 40_000, "blue": 0}  # never below empty


def test_the_increment_comes_back_when_a_seat_stops_being_awaited():
    banks = c.start(["red", "blue"], 10, ["red", "blue"], now=0)  # a simultaneous phase: both run
    banks = c.advance(banks, 4_000, ["blue"], increment=5)  # red sealed after 4 s
    assert banks.left == {"red": 11_000, "blue": 6_000} and banks.running == ("blue",)
    banks = c.advance(banks, 5_000, ["blue"], increment=5)  # blue still awaited: no increment yet
    assert banks.left == {"red": 11_000, "blue": 5_000}
    banks = c.advance(banks, 6_000, [], increment=5)
    assert banks.left == {"red": 11_000, "blue": 9_000} and c.due_at(banks) is None


def test_an_empty_bank_waits_for_the_seats_with_time_then_is_due_at_once():
    banks = c.Banks({"red": 0, "blue": 5_000}, (), 100)
    both = c.advance(banks, 200, ["red", "blue"], increment=0)
    assert c.due_at(both) == 5_200 and c.ran_out(both, 5_199) == ()
    assert c.ran_out(both, 5_200) == ("red", "blue")
    alone = c.advance(banks, 200, ["red"], increment=0)
    assert c.due_at(alone) == 200 and c.ran_out(alone, 200) == ("red",)


# --- the service on a test clock ------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, deadline_tick_seconds=3600))  # ticks by hand here
    with TestClient(app) as client:
        client.clock = Clock()
        app.state.deadlines.clock = client.clock
        yield client


def _game(client, clock):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel", "options": {"clock": clock}})
    assert r.status_code == 201, r.text
    return r.json()


def _tick(client) -> int:
    return client.portal.call(client.app.state.deadlines.tick)


def _events(client, game):
    r = client.get(
        f"/v1/games/{game['game_id']}/events?after=0", headers={"Authorization": f"Bearer {game['umpire_token']}"}
    )
    return [e for e in r.json()["events"] if not e["type"].startswith("dice.")]


def _end_phase(client, game, seat):
    r = client.post(
        f"/v1/games/{game['game_id']}/commands",
        json={"command": {"type": "tiny.end_phase", "seat": seat}},
        headers={"Authorization": f"Bearer {game['seats'][seat]}"},
    )
    assert r.status_code == 201, r.text


def test_the_view_shows_each_seats_time_left_and_a_run_out_forces_the_phase_once(client):
    game = _game(client, {"seconds": 30, "increment": 2})
    gid = game["game_id"]
    view = client.get(f"/v1/games/{gid}").json()["clock"]
    assert view["seconds_left"] == {"red": 30.0, "blue": 30.0} and sorted(view["running"]) == ["blue", "red"]
    assert view["command"] == {"type": "tiny.force_phase"}
    client.clock.now += 10
    _end_phase(client, game, "red")  # red acts after 10 s: its clock stops (+2 s), blue's runs on
    assert _tick(client) == 0
    view = client.get(f"/v1/games/{gid}/deadline").json()["clock"]
    assert view["seconds_left"] == {"red": 22.0, "blue": 20.0} and view["running"] == ["blue"]
    client.clock.now += 19
    assert _tick(client) == 0
    client.clock.now += 2
    assert _tick(client) == 1  # blue's bank ran out
    assert _tick(client) == 0
    types = [(e["type"], e["actor"]) for e in _events(client, game)]
    assert types[-2:] == [("clock.ran_out", "system"), ("tiny.phase_advanced", "umpire")]
    ran = [e for e in _events(client, game) if e["type"] == "clock.ran_out"][0]
    assert ran["data"]["seats"] == ["blue"] and ran["data"]["command"] == "tiny.force_phase"
    view = client.get(f"/v1/games/{gid}/clock").json()["clock"]
    assert view["seconds_left"] == {"red": 22.0, "blue": 0.0}  # awaited again: no increment yet
    client.clock.now += 5
    assert _tick(client) == 0  # red has time left in this phase: blue's empty bank waits for red
    _end_phase(client, game, "red")
    assert _tick(client) == 1  # now the game waits only for blue, out of time: forced at once
    assert [e["type"] for e in _events(client, game)].count("clock.ran_out") == 2
    assert _tick(client) == 0  # turn 2: both awaited, red with time left
    view = client.get(f"/v1/games/{gid}/clock").json()["clock"]
    assert (view["turn"], view["seconds_left"]) == (2, {"red": 19.0, "blue": 0.0})
    steps = client.get(f"/v1/games/{gid}/turns/1").json()["events"]
    assert any("clock of blue ran out in turn 1, phase fire" in s["text"] for s in steps)


def test_a_run_out_stopped_half_way_appends_its_command_once(client):
    game = _game(client, {"seconds": 5})
    service = client.app.state.service
    real = service.handle_command

    def crash(*args, **kwargs):
        raise RuntimeError("the process died here")

    service.handle_command = crash
    client.clock.now += 6
    with pytest.raises(RuntimeError):
        _tick(client)  # the lease stays, as if the process had died
    service.handle_command = real
    assert _events(client, game)[-1]["type"] == "clock.ran_out"
    assert _tick(client) == 0  # leased: no other process takes it yet
    client.clock.now += 31
    assert _tick(client) == 1  # the retry sends the command under the same key
    types = [e["type"] for e in _events(client, game)]
    assert types.count("clock.ran_out") == 1 and types.count("tiny.phase_advanced") == 1


def test_the_umpire_sets_gives_time_and_removes_the_clocks(client):
    game = _game(client, {"seconds": 60})
    gid = game["game_id"]
    umpire = {"Authorization": f"Bearer {game['umpire_token']}"}
    red = {"Authorization": f"Bearer {game['seats']['red']}"}
    assert client.put(f"/v1/games/{gid}/clock", json={"left": {"red": 600}}, headers=red).status_code == 403
    client.clock.now += 30
    r = client.put(f"/v1/games/{gid}/clock", json={"left": {"red": 600}}, headers=umpire)
    assert r.status_code == 200 and r.json()["clock"]["seconds_left"] == {"red": 600.0, "blue": 30.0}
    r = client.put(f"/v1/games/{gid}/clock", json={"left": {"green": 1}}, headers=umpire)
    assert r.status_code == 422 and r.json()["field"] == "left"
    r = client.put(f"/v1/games/{gid}/clock", json={"seconds": 10, "increment": 1}, headers=umpire)
    assert r.status_code == 200 and r.json()["clock"]["seconds_left"] == {"red": 10.0, "blue": 10.0}
    r = client.put(f"/v1/games/{gid}/clock", json={"seconds": None}, headers=umpire)
    assert r.status_code == 200 and r.json()["clock"] is None
    client.clock.now += 1000
    assert _tick(client) == 0
    assert [(e["type"], e["actor"]) for e in _events(client, game)].count(("clock.set", "umpire")) == 3
    # a battle file with the umpire's clock.set events imports (clock.set is the umpire's)
    exported = client.get(f"/v1/games/{gid}/export", headers=umpire)
    assert exported.status_code == 200
    r = client.post("/v1/games/import", content=exported.content, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code in (200, 201), r.text


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"seconds": 0}, "options.clock.seconds"),
        ({"seconds": 5, "increment": -1}, "options.clock.increment"),
        ({"seconds": 5, "command": {"type": "gsc2.force_phase"}}, "options.clock.command"),
        ({"increment": 5}, "options.clock"),
    ],
)
def test_a_bad_clock_is_refused_before_the_game_exists(client, clock, field):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "duel", "options": {"clock": clock}})
    assert r.status_code == 422 and r.json()["field"] == field, r.text
