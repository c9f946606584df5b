"""The pre-framed fan-out (service/api/fast/fanout.py): one frame per audience and event, written as is to
every socket of that audience; redaction per audience holds byte for byte; a slow consumer is closed
with its resume seq; a socket that is not current is handed back to its reader. Driven by a real
GameService publishing real frames of the tiny ruleset (whose seats hide secrets from each other)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from service.api.encoding import live_frames
from service.api.fast.fanout import Fanout, Sink, text_frame
from service.domain.core import seat
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from tests.support.detached import text_frames

AUDIENCES = ("seat:red", "seat:blue", "spectator", "umpire")
SECRET = 734_211  # a value that appears nowhere else in a tiny game


class FakeTransport:
    def __init__(self, buffered: int = 0) -> None:
        self.chunks: list[bytes] = []
        self.buffered = buffered
        self.closing = False

    def write(self, data: bytes) -> None:
        self.chunks.append(data)

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing

    def messages(self) -> list[dict[str, Any]]:
        """Parse the unmasked text frames written (what the client's websocket reads)."""
        return text_frames(self.chunks)


def _sink(audience: str, last: int, events: list[Any], transport: FakeTransport | None = None) -> Sink:
    return Sink(
        transport or FakeTransport(),
        audience,
        last,
        on_slow=lambda s: events.append(("slow", s.last)),
        on_behind=lambda s, seq: events.append(("behind", s.last, seq)),
    )


async def _game(fanout: Fanout) -> tuple[GameService, str]:
    async def publish(game_id: str, items: Any) -> None:
        fanout.deliver(game_id, items)

    service = GameService(MemoryEventStore(), publish=publish, listening=fanout.listening, frames=live_frames)
    game = await service.create_game("tiny", "duel")
    return service, game.game_id


async def _command(service: GameService, game_id: str, who: str, command: dict[str, Any]) -> None:
    await service.handle_command(game_id, seat(who), msgspec.json.encode({"command": command}))


def test_text_frames_have_the_rfc_6455_length_forms() -> None:
    assert text_frame(b"x" * 125)[:2] == b"\x81\x7d"
    assert text_frame(b"x" * 126)[:4] == b"\x81\x7e\x00\x7e"
    assert text_frame(b"x" * 70_000)[:10] == b"\x81\x7f" + (70_000).to_bytes(8, "big")


def test_every_audience_gets_its_own_redacted_bytes_built_once() -> None:
    async def run() -> None:
        fanout = Fanout(limit=1 << 20)
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        sinks = {a: [_sink(a, head, events) for _ in range(3)] for a in AUDIENCES}
        for group in sinks.values():
            for s in group:
                fanout.add(gid, s)
        await _command(service, gid, "red", {"type": "tiny.hide", "seat": "red", "secret": SECRET})
        await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert events == []
        for audience, group in sinks.items():
            written = [s.transport.chunks for s in group]  # type: ignore[attr-defined]
            assert written[0] == written[1] == written[2]  # the same bytes for every socket of an audience
            msgs = group[0].transport.messages()  # type: ignore[attr-defined]
            assert [m["event"]["seq"] for m in msgs] == [head + 1, head + 2]
            sees_secret = str(SECRET).encode() in b"".join(written[0])
            assert sees_secret == (audience in ("seat:red", "umpire")), audience
        assert fanout.frames_built == 2 * len(AUDIENCES)  # per event and audience, not per socket

    asyncio.run(run())


def test_a_slow_consumer_is_closed_with_its_resume_seq_and_others_go_on() -> None:
    async def run() -> None:
        fanout = Fanout(limit=1000)
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        stalled = _sink("spectator", head, events, FakeTransport(buffered=5000))
        healthy = _sink("spectator", head, events)
        fanout.add(gid, stalled)
        fanout.add(gid, healthy)
        for _ in range(3):
            await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert events == [("slow", head)]  # once, with the last seq it was given: resume after=head
        assert stalled.transport.chunks == [] and stalled.closed  # type: ignore[attr-defined]
        now = (await service.head(gid)).seq  # a shot that ends the duel appends more than one event
        assert [m["event"]["seq"] for m in healthy.transport.messages()] == list(range(head + 1, now + 1))  # type: ignore[attr-defined]

    asyncio.run(run())


def test_a_socket_behind_the_live_seq_is_handed_to_its_reader_without_gap_or_repeat() -> None:
    async def run() -> None:
        fanout = Fanout(limit=1 << 20)
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        behind = _sink("spectator", head - 1, events)  # has not had the last event yet
        ahead = _sink("spectator", head + 1, events)  # already had the next one (from its catch-up)
        fanout.add(gid, behind)
        fanout.add(gid, ahead)
        await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert events == [("behind", head - 1, head + 1)]  # once: then its reader owns it
        assert fanout.fallbacks == 1 and fanout.holds_broken == 0 and fanout.holds_overflowed == 0
        assert fanout.writes == fanout.frames_written == 1  # the socket ahead: one frame, one write
        assert behind.transport.chunks == []  # type: ignore[attr-defined]
        assert [m["event"]["seq"] for m in ahead.transport.messages()] == [head + 2]  # type: ignore[attr-defined]

    asyncio.run(run())


def test_a_held_socket_keeps_its_audiences_frames_and_nothing_is_written() -> None:
    async def run() -> None:
        fanout = Fanout(limit=1 << 20)
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        held, live = _sink("seat:blue", head, events), _sink("seat:blue", head, events)
        held.held = []
        fanout.add(gid, held)
        fanout.add(gid, live)
        await _command(service, gid, "red", {"type": "tiny.hide", "seat": "red", "secret": SECRET})
        await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert events == [] and held.transport.chunks == []  # type: ignore[attr-defined]
        assert held.last == head and [seq for seq, _ in held.held] == [head + 1, head + 2]
        # the same bytes, framed, the live socket got (a seq hidden from it would be its caught_up frame),
        # redacted
        framed = b"".join(text_frame(message) for _, message in held.held)
        assert framed == b"".join(live.transport.chunks)  # type: ignore[attr-defined]
        assert held.held_bytes == len(framed)  # counted as frames (the limit is on those)
        assert str(SECRET).encode() not in framed

    asyncio.run(run())


def test_a_hold_past_its_byte_limit_falls_back_to_the_store() -> None:
    async def run() -> None:
        fanout = Fanout(limit=60)  # less than two event frames
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        held = _sink("spectator", head, events)
        held.held = []
        fanout.add(gid, held)
        for _ in range(2):
            await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert held.held is None and held.behind and held.last == head  # its reader reads after head
        assert fanout.holds_overflowed == 1 and fanout.fallbacks == 1 and fanout.holds_broken == 0
        assert events[0][0] == "behind" and events[0][1] == head
        assert held.transport.chunks == []  # type: ignore[attr-defined]

    asyncio.run(run())


def test_a_socket_reading_the_store_holds_what_lands_past_its_read() -> None:
    """Behind (its reader reads the store up to ``hold_after``), a socket with a hold keeps the frames
    past that seq, contiguous, written nowhere; a gap after them gives the hold up (the store has it)."""

    async def run() -> None:
        fanout = Fanout(limit=1 << 20)
        service, gid = await _game(fanout)
        head = (await service.head(gid)).seq
        events: list[Any] = []
        reading = _sink("seat:red", head - 1, events)  # its read of the store ends at head
        reading.behind, reading.held, reading.hold_after = True, [], head
        fanout.add(gid, reading)
        for _ in range(2):
            await _command(service, gid, "red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"})
        assert events == [] and reading.transport.chunks == []  # type: ignore[attr-defined]
        assert [seq for seq, _ in reading.held] == [head + 1, head + 2] and reading.last == head - 1
        fanout.deliver(gid, [(head + 4, None)])  # a bare notice past a seq it was not given
        assert reading.held is None and reading.behind and events == [("behind", head - 1, head + 4)]
        assert fanout.holds_broken == 1 and fanout.fallbacks == 1 and fanout.holds_overflowed == 0
        assert fanout.counters()["holds_broken"] == 1

    asyncio.run(run())


def test_a_held_message_is_counted_as_the_frame_it_would_be_written_as():
    from service.api.fast.fanout import text_frame, text_frame_size

    for n in (0, 1, 125, 126, 127, 4095, 4096, 65535, 65536, 70000):
        assert text_frame_size(n) == len(text_frame(b"x" * n)), n


def test_a_frames_view_socket_takes_the_updates_last_frame_with_its_view_or_reads_the_store() -> None:
    from service.api.encoding import VIEW, with_view

    events: list[Any] = []
    plain, viewing, missing = (_sink("spectator", 4, events) for _ in range(3))
    viewing.view = missing.view = VIEW + "spectator"
    fanout = Fanout(limit=1 << 20)
    for s in (plain, viewing):
        fanout.add("g", s)
    assert set(fanout.listening("g")) == {"spectator", "view:spectator"}
    frame = b'{"kind":"event","event":{"seq":6}}'
    view = b'{"game":{"at":6},"options":{}}'
    items = [(5, {"spectator": None}), (6, {"spectator": frame, "view:spectator": with_view(frame, 6, view)})]
    fanout.deliver("g", items)  # type: ignore[arg-type]
    assert [m.get("view") for m in plain.transport.messages()] == [None, None]  # type: ignore[attr-defined]
    got = viewing.transport.messages()  # type: ignore[attr-defined]
    assert got == [
        {"kind": "caught_up", "seq": 5},
        {"kind": "event", "event": {"seq": 6}, "view": {"game": {"at": 6}, "options": {}}},
    ]
    assert with_view(None, 7, view) == b'{"kind":"caught_up","seq":7,"view":' + view + b"}"
    fanout.add("g", missing)
    fanout.deliver("g", [(7, {"spectator": None})])  # an update whose view was not encoded: the store
    assert sorted(events) == [("behind", 4, 7), ("behind", 6, 7)] and missing.transport.chunks == []  # type: ignore[attr-defined]
    fanout.remove("g", viewing)
    fanout.remove("g", missing)
    assert set(fanout.listening("g")) == {"spectator"}
