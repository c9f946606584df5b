"""Per-game subscriptions in the Redis broadcaster (SALVO_REDIS_SUBSCRIBE=games), against the real Redis:
a replica subscribes to a game's channel with its first listener and unsubscribes after the last; what
was published before its SUBSCRIBE applied reaches it as a bare notification at the stored head (so the
stream reads the store); nothing lost, nothing twice, and a socket that leaves and comes back resumes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable

import redis.asyncio as aioredis
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.broadcast import Subscription
from service.api.fast.fanout import Sink
from service.api.redis_broadcast import CHANNEL_PREFIX, RedisBroadcaster
from service.settings import Settings
from tests.api.test_replicas import redis_url  # noqa: F401 - the fixture (skips without Redis)
from tests.support.direct import direct_client


async def until(check: Callable[[], bool], what: str, limit: float = 10.0) -> None:
    """Wait for Redis to have done something (a bound on waiting, not a measurement)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not check():
        assert loop.time() < deadline, f"never: {what}"
        await asyncio.sleep(0.01)


async def numsub(url: str, game_id: str) -> int:
    client = aioredis.Redis.from_url(url)
    try:
        return int((await client.pubsub_numsub(CHANNEL_PREFIX + game_id))[0][1])
    finally:
        await client.aclose()


async def drain(sub: Subscription) -> list:
    items = []
    while True:
        item = await sub.next(0.3)
        if item is None:
            return items
        items.append(item)


async def published(broadcaster: RedisBroadcaster, game_id: str, items: list) -> None:
    """Publish (fire-and-forget: a command never waits for Redis), then wait until it was sent."""
    broadcaster.publish(game_id, items)
    await broadcaster.flush()


def frames(seq: int) -> dict[str, bytes | None]:
    return {"spectator": b'{"kind":"event","seq":%d}' % seq, "umpire": b"secret %d" % seq}


class Heads:
    """A stand-in for the store's head: what was committed."""

    def __init__(self) -> None:
        self.heads: dict[str, int] = {}

    async def head(self, game_id: str) -> int:
        return self.heads.get(game_id, 0)


@contextlib.asynccontextmanager
async def replicas(
    url: str, a_subscribes: str = "games"
) -> AsyncIterator[tuple[RedisBroadcaster, RedisBroadcaster, Heads]]:
    """A (the publisher) and B (the replica under test, per game), both started, sharing a stored head."""
    heads = Heads()
    a = RedisBroadcaster(url, subscribe=a_subscribes, head_of=heads.head)
    b = RedisBroadcaster(url, subscribe="games", head_of=heads.head)
    await a.start()
    await b.start()
    try:
        yield a, b, heads
    finally:
        await a.close()
        await b.close()


async def test_a_game_is_subscribed_with_its_first_listener_and_unsubscribed_after_its_last(redis_url):  # noqa: F811
    game = uuid.uuid4().hex
    async with replicas(redis_url) as (a, b, heads):
        assert await numsub(redis_url, game) == 0  # nobody listens anywhere: Redis carries it to no one
        first = b.subscribe(game, 100)
        second = b.subscribe(game, 100)
        await until(lambda: b.head_checks == 1, "B confirmed its SUBSCRIBE")
        assert b.watched() == {game} and b.subscribes == 1  # one SUBSCRIBE for two listeners
        assert await numsub(redis_url, game) == 1
        for seq in (1, 2, 3):
            heads.heads[game] = seq
            await published(a, game, [(seq, frames(seq))])
        got1, got2 = await drain(first), await drain(second)
        assert [seq for seq, _ in got1] == [1, 2, 3] == [seq for seq, _ in got2]  # in order, once each
        assert got1[0][1]["spectator"] == b'{"kind":"event","seq":1}'
        b.unsubscribe(first)
        assert b.watched() == {game}  # one listener left
        b.unsubscribe(second)
        await until(lambda: b.unsubscribes == 1, "B sent UNSUBSCRIBE")
        await until(lambda: not b.watched(), "B forgot the game")
        assert await numsub(redis_url, game) == 0
        # a later listener subscribes again, and its confirmation reports the head it may have missed
        heads.heads[game] = 4
        await published(a, game, [(4, frames(4))])  # published while B listened to nothing
        third = b.subscribe(game, 100)
        await until(lambda: b.head_checks == 2, "B confirmed its second SUBSCRIBE")
        heads.heads[game] = 5
        await published(a, game, [(5, frames(5))])
        assert await drain(third) == [(4, None), (5, frames(5))]  # the stored head, then live
        b.unsubscribe(third)


async def test_an_event_published_before_the_subscribe_applies_reaches_the_listener_as_the_stored_head(redis_url):  # noqa: F811
    """The race: the listener's catch-up read the store at seq 2; seq 3 is committed and published before
    Redis applies the SUBSCRIBE, so pub/sub never carries it here. The confirmation's head check does."""
    game = uuid.uuid4().hex
    async with replicas(redis_url, "all") as (a, b, heads):
        heads.heads[game] = 3  # committed (the publish follows the commit)
        b._syncer.cancel()  # hold B's SUBSCRIBE back until the publish has gone by  # type: ignore[union-attr]
        sub = b.subscribe(game, 100)
        await published(a, game, [(3, frames(3))])
        b._syncer = asyncio.create_task(b._sync())
        await until(lambda: b.head_checks == 1, "B confirmed its SUBSCRIBE")
        heads.heads[game] = 4
        await published(a, game, [(4, frames(4))])
        assert await drain(sub) == [(3, None), (4, frames(4))]  # 3 from the store's head, 4 live


class Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False


async def test_the_pre_framed_fan_out_subscribes_per_game_too(redis_url):  # noqa: F811
    """Direct sockets (fanout.Sink) count as listeners: two games, each subscribed while it has a sink."""
    red, blue = uuid.uuid4().hex, uuid.uuid4().hex
    behind: list[int] = []
    async with replicas(redis_url) as (a, b, heads):
        sinks = {
            g: Sink(Transport(), "spectator", 0, on_slow=lambda s: None, on_behind=lambda s, seq: behind.append(seq))
            for g in (red, blue)
        }
        for g, sink in sinks.items():
            b.fanout.add(g, sink)
        await until(lambda: b.head_checks == 2, "B confirmed both games")
        assert b.watched() == {red, blue}
        for seq in (1, 2):
            for g in (red, blue):
                heads.heads[g] = seq
                await published(a, g, [(seq, frames(seq))])
        await until(lambda: all(s.last == 2 for s in sinks.values()), "both sinks at 2")
        assert [w[2:] for w in sinks[red].transport.written] == [frames(1)["spectator"], frames(2)["spectator"]]
        b.fanout.remove(red, sinks[red])
        await until(lambda: b.watched() == {blue}, "B left the red game")
        assert await numsub(redis_url, red) == 0 and await numsub(redis_url, blue) == 1
        heads.heads[red] = heads.heads[blue] = 3
        await published(a, red, [(3, frames(3))])
        await published(a, blue, [(3, frames(3))])
        await until(lambda: sinks[blue].last == 3, "blue's sink at 3")
        assert sinks[red].last == 2 and behind == []  # no gap anywhere, nothing read from the store


def _shoot(client: TestClient, gid: str, token: str, who: str, other: str) -> None:
    r = client.post(
        f"/v1/games/{gid}/commands",
        json={"command": {"type": "tiny.shoot", "shooter": who, "target": other}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201, r.text


def _events(ws, count: int) -> list[dict]:
    seen: list[dict] = []
    while len(seen) < count:
        msg = ws.receive_json()
        if msg["kind"] == "event":
            seen.append(msg["event"])
    return seen


def test_a_socket_replica_that_subscribes_per_game_resumes_with_no_gap_or_duplicate(sqlite_url, redis_url):  # noqa: F811
    """A takes the commands; B (per-game, direct sockets) serves a spectator that watches, leaves (B
    unsubscribes), misses three events, and resumes with ?after: every seq once, each audience's frame,
    hidden seqs redacted."""
    base = Settings(database_url=sqlite_url, redis_url=redis_url, heartbeat_seconds=5)
    socket_settings = Settings(
        database_url=sqlite_url, redis_url=redis_url, heartbeat_seconds=5, redis_subscribe="games"
    )
    with TestClient(create_app(base)) as a, direct_client(create_app(socket_settings)) as b:
        game = a.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid, seats = game["game_id"], game["seats"]
        broadcaster = b.app.state.broadcaster
        assert broadcaster.watched() == set()
        with b.websocket_connect(f"/v1/games/{gid}/stream") as ws:
            while ws.receive_json()["kind"] != "caught_up":
                pass
            assert broadcaster.watched() == {gid}
            r = a.post(
                f"/v1/games/{gid}/commands",
                headers={"Authorization": f"Bearer {seats['red']}"},
                json={"command": {"type": "tiny.hide", "seat": "red", "secret": 734_211}},
            )
            assert r.status_code == 201
            _shoot(a, gid, seats["red"], "red", "blue")
            first = _events(ws, 2)
        assert [e["seq"] for e in first] == [3, 4]
        for _ in range(500):  # B's syncer runs in the app's thread: wait (bounded) for its UNSUBSCRIBE
            if not broadcaster.watched():
                break
            time.sleep(0.01)
        assert broadcaster.watched() == set()
        for i in range(3):  # while nobody on B watches
            who, other = ("blue", "red") if i % 2 == 0 else ("red", "blue")
            _shoot(a, gid, seats[who], who, other)
        with b.websocket_connect(f"/v1/games/{gid}/stream?after=4") as ws:
            caught = []
            while (msg := ws.receive_json())["kind"] != "caught_up":
                if msg["kind"] == "event":
                    caught.append(msg["event"]["seq"])
            assert caught == [5, 6, 7] and msg["seq"] == 7
            _shoot(a, gid, seats["blue"], "blue", "red")
            assert [e["seq"] for e in _events(ws, 1)] == [8]
        assert "734211" not in json.dumps(first)  # the spectator's frame of the sealed order


async def test_after_its_connection_drops_a_replica_resubscribes_and_reports_what_it_missed(redis_url):  # noqa: F811
    """Redis drops B's pub/sub connection; an event published meanwhile is lost to pub/sub. B reconnects,
    subscribes again, and the confirmation's head check hands its listener the stored head."""
    game = uuid.uuid4().hex
    admin = aioredis.Redis.from_url(redis_url)
    async with replicas(redis_url) as (a, b, heads), contextlib.aclosing(admin):
        sub = b.subscribe(game, 100)
        await until(lambda: b.head_checks == 1, "B confirmed its SUBSCRIBE")
        heads.heads[game] = 1
        await published(a, game, [(1, frames(1))])
        assert await drain(sub) == [(1, frames(1))]
        clients = [
            c
            for c in await admin.client_list()
            if c.get("name") == f"salvo-{b.origin}"
            and "salvo:game" not in c.get("cmd", "")
            and int(c.get("sub", 0)) > 0
        ]
        assert clients, "B's pub/sub connection"
        for c in clients:
            await admin.client_kill_filter(_id=c["id"])
        heads.heads[game] = 2
        await published(a, game, [(2, frames(2))])  # B is not subscribed at this moment: lost to pub/sub
        await until(lambda: b.head_checks >= 2, "B subscribed again after reconnecting", limit=60)
        heads.heads[game] = 3
        await published(a, game, [(3, frames(3))])
        got = await drain(sub)
        # 2 from the store's head (a stream reads it from the store; had B been back before 2 was
        # published, 2 would come live too and the stream would skip the second), then 3 live
        assert got[0] == (2, None) and got[-1] == (3, frames(3))
        assert [seq for seq, _ in got if seq != 2] == [3]
