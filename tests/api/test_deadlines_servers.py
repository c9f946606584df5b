"""Deadlines across restarts and replicas, with real server processes on the wall clock (issue 39): a
deadline that passes while the service is down fires once after it starts again; two processes on one
PostgreSQL database fire each deadline once (the row lock: FOR UPDATE SKIP LOCKED)."""

from __future__ import annotations

import time
from datetime import datetime

import httpx
import pytest

from tests.support.server import ServerProcess

pytestmark = pytest.mark.slow
FAST_TICKS = {"SALVO_DEADLINE_TICK_SECONDS": "0.05"}


def _create(url: str, seconds: int, scenario: str | dict = "duel") -> dict:
    r = httpx.post(
        f"{url}/v1/games",
        json={"ruleset": "tiny", "scenario": scenario, "options": {"deadline": {"per": "phase", "seconds": seconds}}},
    )
    assert r.status_code == 201, r.text
    return r.json()


def _events(url: str, game: dict) -> list[dict]:
    r = httpx.get(
        f"{url}/v1/games/{game['game_id']}/events?after=0", headers={"Authorization": f"Bearer {game['umpire_token']}"}
    )
    assert r.status_code == 200, r.text
    return [e for e in r.json()["events"] if not e["type"].startswith("dice.")]


def _until(check, timeout: float = 20.0, what: str = "") -> None:
    give_up = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < give_up, f"still waiting: {what}"
        time.sleep(0.05)


def _fired_once_per_phase(events: list[dict]) -> list[tuple[int, str]]:
    """Every deadline.passed is for a phase of its own and followed by exactly one forced phase; returns
    the phases whose deadline fired."""
    after_created = events[1:]
    points = []
    for passed, forced in zip(after_created[::2], after_created[1::2], strict=False):
        assert passed["type"] == "deadline.passed", events
        assert forced["type"] == "tiny.phase_advanced" and forced["actor"] == "umpire", events
        points.append((passed["data"]["turn"], passed["data"]["phase"]))
    assert len(points) == len(set(points)), f"a deadline fired twice: {points}"
    assert len(after_created) % 2 == 0 or after_created[-1]["type"] == "deadline.passed", events
    return points


def test_a_deadline_that_passes_while_the_service_is_down_fires_once_after_restart(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path}/d.db", env=FAST_TICKS, log_path=tmp_path / "server.log") as server:
        game = _create(server.url, seconds=2)
        due = httpx.get(f"{server.url}/v1/games/{game['game_id']}").json()["deadline"]["due_at"]
        server.kill()  # kill -9, its deadline still ahead
        due_at = datetime.fromisoformat(due.replace("Z", "+00:00")).timestamp()
        _until(lambda: time.time() > due_at + 0.5, what="the deadline to pass while the service is down")
        server.start()
        _until(lambda: len(_events(server.url, game)) >= 3, what="the deadline's command after restart")
        events = _events(server.url, game)
        assert _fired_once_per_phase(events)[0] == (1, "fire")
        assert events[1]["data"]["due_at"] == due  # the deadline it carries is the one that passed


def test_two_replicas_on_one_postgresql_database_fire_each_deadline_once(tmp_path, postgres_url):
    with (
        ServerProcess(postgres_url, env=FAST_TICKS, log_path=tmp_path / "a.log") as a,
        ServerProcess(postgres_url, env=FAST_TICKS, log_path=tmp_path / "b.log") as b,
    ):
        games = [_create((a, b)[i % 2].url, seconds=1, scenario={"hull": 3, "turn_limit": 3}) for i in range(8)]
        # each game's first two deadlines (fire, then end of turn 1), both replicas ticking every 50 ms
        _until(lambda: all(len(_events(a.url, g)) >= 5 for g in games), timeout=30, what="two deadlines a game")
        for game in games:
            assert _fired_once_per_phase(_events(b.url, game))[:2] == [(1, "fire"), (1, "end")]


def test_two_replicas_on_one_postgresql_database_run_each_clock_out_once(tmp_path, postgres_url):
    """Chess-style clocks on the same claim: seats with 1 s banks and no increment run out, then every phase
    that waits only for them is forced at once; each forcing one clock.ran_out and one command, across two
    replicas ticking every 50 ms."""
    with (
        ServerProcess(postgres_url, env=FAST_TICKS, log_path=tmp_path / "a.log") as a,
        ServerProcess(postgres_url, env=FAST_TICKS, log_path=tmp_path / "b.log") as b,
    ):
        games = []
        for i in range(6):
            r = httpx.post(
                f"{(a, b)[i % 2].url}/v1/games",
                json={
                    "ruleset": "tiny",
                    "scenario": {"hull": 3, "turn_limit": 2},
                    "options": {"clock": {"seconds": 1}},
                },
            )
            assert r.status_code == 201, r.text
            games.append(r.json())
        _until(
            lambda: all(httpx.get(f"{a.url}/v1/games/{g['game_id']}").json()["over"] for g in games),
            timeout=30,
            what="every game played out by its clocks",
        )
        for game in games:
            events = _events(b.url, game)[1:]
            types = [e["type"] for e in events]
            assert types == ["clock.ran_out", "tiny.phase_advanced"] * (len(types) // 2), types
            points = [(e["data"]["turn"], e["data"]["phase"]) for e in events if e["type"] == "clock.ran_out"]
            assert len(points) == len(set(points)) == 4, points  # fire and end of two turns, each once
