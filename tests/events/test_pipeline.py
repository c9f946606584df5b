"""Commands of one game decided ahead of the disk: acknowledged in seq order only once durable, a failed
commit fails every command decided on top of it (nothing of them written) and the head is reloaded from
the store; readers never see a command that is not durable yet."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from service.domain.core import seat
from service.events import sql_writer
from service.events.application import GameService
from service.events.event_store import Conflict, PredecessorFailed, WriteBatch
from service.events.head import head_from_rows
from service.events.memory_store import MemoryEventStore
from service.events.store import SqlEventStore


class GatedStore(MemoryEventStore):
    """A memory store whose commits wait until the test lets them through (or fails them)."""

    def __init__(self) -> None:
        super().__init__()
        self.gated = False
        self.waiting: list[tuple[WriteBatch, asyncio.Future[None]]] = []

    def submit(self, batch: WriteBatch) -> asyncio.Future[None]:
        if not self.gated:
            return super().submit(batch)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((batch, future))
        return future

    def release(self, fail: dict[int, BaseException] | None = None) -> None:
        """Commit the waiting batches in order; ``fail``: index -> the error that batch's commit raises."""
        fail = fail or {}
        waiting, self.waiting = self.waiting, []
        for i, (batch, future) in enumerate(waiting):
            if i in fail:
                batch.failed = fail[i]
                future.set_exception(fail[i])
                continue
            inner = super().submit(batch)  # refuses a batch whose predecessor failed
            if inner.exception() is not None:
                future.set_exception(inner.exception())  # type: ignore[arg-type]
            else:
                future.set_result(None)


def _hide(who: str, secret: int) -> bytes:
    return msgspec.json.encode({"command": {"type": "tiny.hide", "seat": who, "secret": secret}})


def _shot(who: str) -> bytes:
    other = "blue" if who == "red" else "red"
    return msgspec.json.encode({"command": {"type": "tiny.shoot", "shooter": who, "target": other}})


async def _game(store: Any) -> tuple[GameService, str, list[Any]]:
    published: list[Any] = []

    async def publish(game_id: str, items: Any) -> None:
        published.extend(seq for seq, _frames in items)

    service = GameService(store, snapshot_every=4, publish=publish)
    game = await service.create_game("tiny", "long")
    await service.handle_command(game.game_id, seat("red"), _shot("red"))  # dice ledger in memory
    return service, game.game_id, published


async def _until(condition: Any, seconds: float = 2.0) -> None:
    """Wait for ``condition``: a few loop turns, then real time too (a command decided again after a
    Conflict first sleeps a random pause of up to a millisecond, longer than 200 turns of an idle loop)."""
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    give_up = loop.time() + seconds
    while loop.time() < give_up:
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("never happened")


async def test_commands_are_decided_while_the_commit_is_in_flight_and_acknowledged_in_order():
    store = GatedStore()
    service, gid, published = await _game(store)
    start = (await service.head(gid)).seq
    store.gated = True
    acked: list[int] = []

    async def send(i: int) -> None:
        who = "red" if i % 2 else "blue"
        body = _shot(who) if i % 3 == 0 else _hide(who, i)
        result = await service.handle_command(gid, seat(who), body)
        assert result.version is not None
        acked.append(result.version)

    tasks = [asyncio.create_task(send(i)) for i in range(6)]
    await _until(lambda: len(store.waiting) == 6)
    # all six decided and queued on top of each other; nothing durable, nothing acknowledged or visible
    assert service.commands.pipelined == 5
    assert [b.follows for b, _ in store.waiting[1:]] == [b for b, _ in store.waiting[:-1]]
    assert acked == [] and published == [start]
    assert (await service.head(gid)).seq == start
    assert await store.head(gid) == start
    store.release()
    await asyncio.gather(*tasks)
    assert acked == sorted(acked) and len(acked) == 6
    assert published == list(range(1, acked[-1] + 1))[start - 1 :]  # frames in seq order, none twice
    live = await service.head(gid)
    folded = head_from_rows(gid, await store.game(gid), await store.read_events(gid))
    assert live.seq == acked[-1] == await store.head(gid)
    assert live.state == folded.state


async def test_a_command_whose_predecessor_settled_already_is_acknowledged_without_waiting_on_it():
    store = GatedStore()
    service, gid, published = await _game(store)
    start = (await service.head(gid)).seq
    store.gated = True
    first = asyncio.create_task(service.handle_command(gid, seat("blue"), _hide("blue", 1)))
    await _until(lambda: len(store.waiting) == 1)
    earlier = service.commands._runs[gid].last
    second = asyncio.create_task(service.handle_command(gid, seat("red"), _hide("red", 2)))
    await _until(lambda: len(store.waiting) == 2)
    assert service.commands.pipelined == 1
    later, store.waiting = store.waiting[1:], store.waiting[:1]
    store.release()  # the first alone is durable: acknowledged and published before the second is
    assert (await first).version == start + 1
    assert earlier is not None and earlier.done and published == [start, start + 1]
    store.waiting = later
    store.release()
    assert (await second).version == start + 2
    assert earlier.waiter is None  # settled before the second landed: no future made to wait on it
    assert published == [start, start + 1, start + 2]
    assert (await service.head(gid)).seq == start + 2 == await store.head(gid)


async def test_the_early_answer_comes_once_durable_in_seq_order_before_its_landing():
    """``on_durable`` (the socket's early answer) is called for each command once it is durable and the one
    before it acknowledged, before the durable head moves and its frames are published; a replayed
    idempotent result gets none. Afterwards both heads agree (the speculative head learned of it too)."""
    store = GatedStore()
    service, gid, published = await _game(store)
    start = (await service.head(gid)).seq
    store.gated = True
    answered: list[tuple[int, int, int, int]] = []  # (i, version, frames published, durable head seq)

    def answer(i: int) -> Any:
        def on_durable(result: Any) -> None:
            head = service.heads.peek(gid)
            answered.append((i, result.version, len(published), head.seq if head is not None else -1))

        return on_durable

    tasks = [
        asyncio.create_task(service.handle_command(gid, seat(who), _hide(who, i), on_durable=answer(i)))
        for i, who in enumerate(["red", "blue", "red"])
    ]
    await _until(lambda: len(store.waiting) == 3)
    assert answered == []  # decided and queued: nothing durable, nothing answered
    store.release()
    results = await asyncio.gather(*tasks)
    assert [r.version for r in results] == [start + 1, start + 2, start + 3]
    assert answered == [(0, start + 1, 1, start), (1, start + 2, 2, start + 1), (2, start + 3, 3, start + 2)]
    run = service.commands._runs[gid]
    assert run.unapplied is None and run.ahead.seq == run.durable.seq == start + 3
    assert run.ahead.state == run.durable.state
    store.gated = False
    keyed: list[Any] = []
    body = _hide("blue", 9)
    first = await service.handle_command(gid, seat("blue"), body, idempotency_key="k1", on_durable=keyed.append)
    again = await service.handle_command(gid, seat("blue"), body, idempotency_key="k1", on_durable=keyed.append)
    assert keyed == [first] and again.body == first.body  # the replay is answered by its caller alone


async def test_the_sql_store_answers_a_command_straight_after_its_commit(sqlite_url, monkeypatch):
    """SQLite commits a lone batch on the loop's thread (``GroupWriter._commit_inline``), a group on the
    writer thread: either way the early answer is called on the loop, once, after the commit and before
    the command's future is settled; a command with one of its game still unacknowledged before it is
    answered by the pipeline instead, in order. (A lone batch's commit by its hand-off: the commit at
    once inside ``submit`` is the next test's.)"""
    monkeypatch.setattr(sql_writer, "EAGER_AFTER", 10**9)
    store = SqlEventStore(sqlite_url)
    store.start()
    try:
        service, gid, _published = await _game(store)
        writer = store._writer
        seen: list[tuple[int | None, bool, int]] = []  # (version, its future settled?, commits so far)

        def on_durable(result: Any) -> None:
            run = service.commands._runs[gid]
            assert run.last is not None
            seen.append((result.version, run.last.committed.done(), writer.commits))

        start = (await service.head(gid)).seq
        commits = writer.commits
        result = await service.handle_command(gid, seat("red"), _hide("red", 1), on_durable=on_durable)
        assert result.version == start + 1
        assert seen == [(start + 1, False, commits + 1)]  # committed, not yet settled: the store called it
        assert result.version == await store.head(gid)
        seen.clear()
        pair = await asyncio.gather(
            *(service.handle_command(gid, seat(who), _hide(who, 2), on_durable=on_durable) for who in ("red", "blue"))
        )
        assert [v for v, _done, _c in seen] == [r.version for r in pair] == [start + 2, start + 3]
        # the pair went to the writer thread as one group: the first answered on the loop before its future
        # settled, the second (decided on the first while it flew) by the pipeline once the first landed
        assert [done for _v, done, _c in seen] == [False, True]
        seen.clear()
        other = (await service.create_game("tiny", "long")).game_id
        await service.handle_command(other, seat("red"), _shot("red"))
        two = await asyncio.gather(
            service.handle_command(gid, seat("red"), _hide("red", 3), on_durable=on_durable),
            service.handle_command(other, seat("red"), _hide("red", 3)),
        )
        assert [v for v, _done, _c in seen] == [two[0].version] and seen[0][1] is False  # two games, one group
    finally:
        store.close()


async def test_a_command_committed_at_once_is_answered_inside_submit_before_its_game_lands(sqlite_url, monkeypatch):
    """One game commanded one command at a time: after two lone inline commits the store commits the next
    command's batch inside ``submit`` (``GroupWriter.submit``) and answers it there, before the pipeline
    has moved the durable head or published its frames; the game then lands as before."""
    store = SqlEventStore(sqlite_url)
    store.start()
    try:
        service, gid, published = await _game(store)
        for i in range(2):  # each in a pass of its own, as commands read from a socket come
            await service.handle_command(gid, seat("red"), _hide("red", i))
            await asyncio.sleep(0)
        inside: list[bool] = []
        submit = store._writer.submit

        def noting(batch: WriteBatch) -> Any:
            inside.append(True)
            try:
                return submit(batch)
            finally:
                inside.pop()

        monkeypatch.setattr(store._writer, "submit", noting)
        seen: list[tuple[int | None, bool, int, int]] = []

        def on_durable(result: Any) -> None:
            seen.append((result.version, bool(inside), service.commands._runs[gid].durable.seq, len(published)))

        start, frames = (await service.head(gid)).seq, len(published)
        result = await service.handle_command(gid, seat("red"), _hide("red", 9), on_durable=on_durable)
        assert result.version == start + 1
        assert seen == [(start + 1, True, start, frames)]  # inside submit, before the head moved and the frames
        assert (await service.head(gid)).seq == start + 1 and published[-1] == start + 1
        assert [r.seq for r in await store.read_events(gid)][-1] == start + 1
    finally:
        store.close()


async def test_a_failed_commit_fails_every_command_decided_on_it_and_the_head_is_reloaded():
    store = GatedStore()
    service, gid, published = await _game(store)
    durable_before = await service.head(gid)
    start = durable_before.seq
    store.gated = True
    outcomes: list[Any] = [None] * 4

    async def send(i: int) -> None:
        try:
            outcomes[i] = await service.handle_command(gid, seat("red"), _hide("red", i))
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test checks
            outcomes[i] = exc

    tasks = []
    for i in range(4):
        tasks.append(asyncio.create_task(send(i)))
        await _until(lambda n=i + 1: len(store.waiting) == n)  # in this order
    store.release(fail={1: OSError("disk full")})
    await asyncio.gather(*tasks)
    assert outcomes[0].version == start + 1  # committed before the failure: acknowledged
    assert isinstance(outcomes[1], OSError)
    assert all(isinstance(o, PredecessorFailed) for o in outcomes[2:])
    assert await store.head(gid) == start + 1  # nothing of the failed batch or those on top of it
    assert published[-1] == start + 1
    # the head was dropped and reloaded from the store: it is the fold of the log
    head = await service.head(gid)
    assert head is not durable_before
    folded = head_from_rows(gid, await store.game(gid), await store.read_events(gid))
    assert head.seq == start + 1 and head.state == folded.state
    assert head.state.secrets["red"] == 0  # the first command's secret (hide 0), not a failed one's
    store.gated = False
    after = await service.handle_command(gid, seat("red"), _hide("red", 9))
    assert after.version == start + 2


async def test_a_conflict_under_pipelined_commands_decides_them_all_again():
    store = GatedStore()
    service, gid, _published = await _game(store)
    start = (await service.head(gid)).seq
    store.gated = True
    tasks = [asyncio.create_task(service.handle_command(gid, seat("blue"), _hide("blue", i))) for i in range(3)]
    await _until(lambda: len(store.waiting) == 3)
    store.release(fail={0: Conflict("another replica wrote this seq")})
    await _until(lambda: len(store.waiting) >= 1)  # decided again on the reloaded head
    store.gated = False
    store.release()
    results = await asyncio.gather(*tasks)
    assert sorted(r.version for r in results) == [start + 1, start + 2, start + 3]
    assert await store.head(gid) == start + 3


async def test_the_writer_thread_writes_nothing_on_top_of_a_conflicting_batch(database_url):
    store = SqlEventStore(database_url)
    store.start()
    try:
        service = GameService(store)
        gid = (await service.create_game("tiny", "long")).game_id
        head = await service.head(gid)
        row = dict((await store.read_events(gid))[-1]._mapping)  # a duplicate of a stored seq: conflicts
        clash = WriteBatch(game_id=gid, events=[row])
        fresh = dict(row, seq=head.seq + 1)
        on_top = WriteBatch(game_id=gid, events=[fresh], follows=clash)
        alone = WriteBatch(game_id=gid, events=[dict(row, seq=head.seq + 2)])
        futures = [store.submit(clash), store.submit(on_top)]
        with pytest.raises(Conflict):
            await futures[0]
        with pytest.raises(Conflict, match="decided on a command that conflicted"):
            await futures[1]
        assert await store.head(gid) == head.seq
        await store.write(alone)  # nothing it follows: written
        assert await store.head(gid) == head.seq + 2
    finally:
        store.close()


async def test_runs_are_bounded_by_the_head_cache_and_an_evicted_game_starts_from_the_store():
    store = MemoryEventStore()
    service = GameService(store, head_cache_size=2)
    games = [(await service.create_game("tiny", "long")).game_id for _ in range(4)]
    for gid in games:
        await service.handle_command(gid, seat("red"), _hide("red", 1))
    assert len(service.commands._runs) <= 2 and len(service.heads) <= 2
    first = games[0]  # evicted: its next command is decided on a head folded from the store
    result = await service.handle_command(first, seat("red"), _hide("red", 2))
    assert result.version == await store.head(first)
    folded = head_from_rows(first, await store.game(first), await store.read_events(first))
    assert (await service.head(first)).state == folded.state


async def test_a_held_game_lock_makes_a_command_wait_and_a_free_one_is_taken_at_once() -> None:
    """The pipeline takes a free game lock synchronously (``GameLock.try_acquire``) and waits for a held
    one as ``async with`` would: a command behind a rewind-like writer holding the lock decides after it,
    on what it wrote."""
    service, gid, published = await _game(GatedStore())
    at = (await service.head(gid)).seq
    lock = service.heads.lock(gid)
    assert lock.try_acquire() and lock.locked() and not lock.try_acquire()  # free: taken; held: not
    waiting = asyncio.create_task(service.handle_command(gid, seat("red"), _hide("red", 1)))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not waiting.done() and (await service.head(gid)).seq == at and published == [at]  # waits
    assert not lock.try_acquire()  # still held
    lock.release()
    assert not lock.try_acquire()  # free, but the queued command goes first (as asyncio.Lock's acquire)
    result = await waiting
    assert result.version == at + 1 and published == [at, at + 1]
    assert lock.try_acquire()  # free again, nobody queued
    lock.release()


async def test_a_decoded_request_is_the_body_it_stands_for() -> None:
    """``request=``: the command decoded once (the websocket's); the same result, the same errors."""
    from service.events.command_pipeline import CommandRequest
    from service.events.errors import MalformedCommand

    service, gid, _ = await _game(GatedStore())
    at = (await service.head(gid)).seq
    raw = msgspec.Raw(b'{"type":"tiny.hide","seat":"red","secret":3}')
    result = await service.handle_command(gid, seat("red"), b"", request=CommandRequest(raw, "s"))
    assert result.version == at + 1 and any(b'"tiny.hidden"' in e for e in result.events)
    errors = []
    for call in (
        lambda: service.handle_command(gid, seat("red"), b'{"command":{"type":"tiny.hide","seat":1}}'),
        lambda: service.handle_command(
            gid, seat("red"), b"", request=CommandRequest(msgspec.Raw(b'{"type":"tiny.hide","seat":1}'))
        ),
    ):
        with pytest.raises(MalformedCommand) as caught:
            await call()
        errors.append((caught.value.detail, caught.value.field))
    assert errors[0] == errors[1] and errors[0][1] == "$.command.seat"


async def test_the_guard_asks_is_over_only_of_a_state_no_command_left_running() -> None:
    """A command that leaves the game running marks its state (``GameHead.running``): the next command's
    game-over guard skips ``is_over`` on it; the command that ends the game does not mark its state, so
    the next one is refused with GAME-OVER on the live head (no reload)."""
    from service.domain.core import RuleViolation

    service = GameService(MemoryEventStore())
    gid = (await service.create_game("tiny", {"hull": 1000, "turn_limit": 1})).game_id
    await service.handle_command(gid, seat("red"), _shot("red"))
    head = service.commands._runs[gid].ahead
    assert head.running is head.state and (await service.head(gid)).running is (await service.head(gid)).state
    for s in ("red", "blue", "red", "blue"):  # both phases of the only turn: the last command ends the game
        await service.handle_command(
            gid, seat(s), msgspec.json.encode({"command": {"type": "tiny.end_phase", "seat": s}})
        )
    head = service.commands._runs[gid].ahead
    assert head.ruleset.is_over(head.state) and head.running is not head.state
    with pytest.raises(RuleViolation) as info:
        await service.handle_command(gid, seat("red"), _shot("red"))
    assert info.value.rule == "GAME-OVER"
