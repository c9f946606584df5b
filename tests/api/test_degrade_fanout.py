"""Issue 33, the fan-out's pieces that keep a replica current without Redis: the publisher's circuit
breaker (a publish never waits on a dead Redis more than its timeout, then not at all), what it drops is
announced once Redis takes messages again, and the log poller (two replicas on one database without
Redis: a socket on one gets the other's events, in order, no gap)."""

from __future__ import annotations

import json

import httpx
import pytest
from websockets.sync.client import connect

from service.api.app import create_app
from service.api.log_poller import LogPoller
from service.api.redis_publisher import CircuitBreaker, RedisPublisher
from service.settings import Settings
from tests.support.server import free_port, uvicorn_in_thread


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_after_failures_in_a_row_and_tries_again_after_its_pause():
    clock = Clock()
    breaker = CircuitBreaker(trip_after=3, open_for=1.0, clock=clock)
    breaker.failed()
    breaker.succeeded()  # not in a row
    breaker.failed()
    breaker.failed()
    assert breaker.allows() and not breaker.tripped
    breaker.failed()
    assert not breaker.allows() and breaker.tripped and breaker.opened == 1
    clock.now += 1.0
    assert breaker.allows() and breaker.tripped  # half-open: one try
    breaker.failed()
    assert not breaker.allows() and breaker.opened == 1  # open again, the same opening
    clock.now += 1.0
    breaker.succeeded()
    assert breaker.allows() and not breaker.tripped


class FakeClient:
    """Redis as the publisher sees it: failing (every publish raises) or taking messages."""

    def __init__(self) -> None:
        self.failing = True
        self.got: list[tuple[str, bytes]] = []

    async def publish(self, channel: str, message: bytes) -> int:
        if self.failing:
            import redis

            raise redis.ConnectionError("refused")
        self.got.append((channel, message))
        return 1

    async def aclose(self) -> None:
        return None


@pytest.mark.asyncio
async def test_a_failing_redis_costs_three_tries_then_drops_and_announces_what_it_dropped():
    clock = Clock()
    publisher = RedisPublisher(f"redis://127.0.0.1:{free_port()}/0", "test", breaker=CircuitBreaker(3, 1.0, clock))
    client = publisher.client = FakeClient()  # type: ignore[assignment]
    publisher.notice = lambda seq: b"notice %d" % seq
    publisher.start()
    try:
        for seq in range(1, 11):
            publisher.send("salvo:game:g", b"frame %d" % seq, seq)  # returns at once, whatever Redis does
        await publisher.flush()
        assert publisher.failed == 3 and publisher.dropped == 10 and client.got == []  # 3 tries, then none
        publisher.send("salvo:game:g", b"frame 11", 11)
        assert publisher.dropped == 11  # open: dropped at once, not queued
        client.failing = False
        clock.now += 1.0
        publisher.send("salvo:game:g", b"frame 12", 12)
        await publisher.flush()
        # the message that went through, then the game's latest dropped seq: the readers catch up to it
        assert client.got == [("salvo:game:g", b"frame 12"), ("salvo:game:g", b"notice 11")]
    finally:
        await publisher.close()


class FakeBroadcaster:
    def __init__(self) -> None:
        self.watched = {"g1", "g2", "g3"}
        self.marks = {"g1": 5, "g2": 9}
        self.delivered_items: list[tuple[str, list]] = []

    def watched_games(self) -> set[str]:
        return set(self.watched)

    def delivered(self, game_id: str) -> int:
        return self.marks.get(game_id, 0)

    def deliver(self, game_id: str, items: list) -> None:
        self.delivered_items.append((game_id, items))
        self.marks[game_id] = items[-1][0]


@pytest.mark.asyncio
async def test_the_poller_notifies_only_games_whose_log_went_past_what_was_delivered():
    broadcaster = FakeBroadcaster()
    stored = {"g1": 7, "g2": 9}  # g3: no events yet

    async def heads(game_ids: list[str]) -> dict[str, int]:
        return {g: stored[g] for g in game_ids if g in stored}

    poller = LogPoller(broadcaster, heads)
    assert await poller.poll() == 0  # past on this tick only: maybe this process's own, being delivered
    assert await poller.poll() == 1  # still past a tick later: another replica's
    assert broadcaster.delivered_items == [("g1", [(7, None)])]  # a bare notification: read the store
    assert await poller.poll() == 0  # nothing new
    stored["g2"] = 12
    assert await poller.poll(at_once=True) == 1  # (a replica back from a lost subscription: at once)
    assert broadcaster.delivered_items[-1] == ("g2", [(12, None)])


def test_two_replicas_without_redis_stream_each_others_events(sqlite_url):
    """No Redis: B's socket gets A's commands from the log (polled), every one, in order."""
    settings = Settings(database_url=sqlite_url, heartbeat_seconds=5)
    with (
        uvicorn_in_thread(create_app(settings), settings) as (_a, a_port),
        uvicorn_in_thread(create_app(settings), settings) as (_b, b_port),
    ):
        a = f"http://127.0.0.1:{a_port}"
        game = httpx.post(a + "/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid = game["game_id"]
        seqs: list[int] = []
        with connect(f"ws://127.0.0.1:{b_port}/v1/games/{gid}/stream") as ws:
            while json.loads(ws.recv(timeout=10))["kind"] != "caught_up":
                pass
            for i in range(5):
                who, other = ("red", "blue") if i % 2 == 0 else ("blue", "red")
                r = httpx.post(
                    f"{a}/v1/games/{gid}/commands",
                    json={"command": {"type": "tiny.shoot", "shooter": who, "target": other}},
                    headers={"Authorization": f"Bearer {game['seats'][who]}"},
                )
                assert r.status_code == 201
            while len(seqs) < 5:
                msg = json.loads(ws.recv(timeout=10))  # the poll's tick is 1 s (two at most): well within
                if msg["kind"] == "event":
                    seqs.append(msg["event"]["seq"])
        assert seqs == [3, 4, 5, 6, 7]
