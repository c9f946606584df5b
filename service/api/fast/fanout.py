"""Live fan-out as pre-framed bytes written straight to the sockets' transports.

Server-to-client websocket frames are unmasked, so one audience's frame (header + payload) is the same
bytes for every socket of that audience: it is built once per event and audience, and each socket costs
one ``transport.write``. No Task, timer or queue per frame: a socket whose transport's write buffer
passes ``limit`` bytes is a slow consumer and is closed (1013 with the seq to resume after) through its
``on_slow`` callback. A socket that is not current (a gap, a bare notification, frames encoded before it
listened) is handed to its ``on_behind`` callback, which reads the store, as the queued stream does.
A socket whose own command is in flight has its messages *held* (``Sink.held``), unframed, not written:
the stream frames and writes them around the command's result, so the result's own events are not sent twice and nothing
is read back from the store (past ``HOLD_FRAMES`` or ``limit`` bytes it falls back to the store).

``direct_stream.DirectStream`` serves a websocket through this when the server's transport is reachable
(``rawsocket``); otherwise the stream falls back to the queued path (``broadcast.Subscription``).
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Protocol

from ..broadcast import Item

TEXT = 0x81  # FIN + text opcode
# the headers, built with the fewest objects: a table for payloads under 4 KiB (an event's or a result's,
# mostly), struct for the others
_medium_head = struct.Struct(">BBH").pack
_long_head = struct.Struct(">BBQ").pack
_TABLED = 4096
_HEADS = tuple(bytes((TEXT, n)) if n < 126 else _medium_head(TEXT, 126, n) for n in range(_TABLED))


class Transport(Protocol):
    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...


def text_frame(payload: bytes) -> bytes:
    """An unmasked, unfragmented websocket text frame (RFC 6455 §5.2): what the server sends."""
    n = len(payload)
    if n < _TABLED:
        return _HEADS[n] + payload
    if n < 1 << 16:
        return _medium_head(TEXT, 126, n) + payload
    return _long_head(TEXT, 127, n) + payload


def text_frame_size(n: int) -> int:
    """``len(text_frame(payload))`` for a payload of ``n`` bytes, without building it (a held message)."""
    return n + (2 if n < 126 else 4 if n < 1 << 16 else 10)


_MISSING: Any = object()  # an audience the frames were not encoded for
_NO_AUDIENCES: dict[str, int] = {}
_HIDDEN = b'{"kind":"caught_up","seq":%d}'  # an event hidden from the audience: its seq alone, so a page refreshes


def _no_restart(sink: Sink) -> None:
    sink.closed = True


@dataclass(eq=False, slots=True)
class Sink:
    """One socket: its audience, the last seq it has accounted for, and what to do when it cannot be
    written to directly."""

    transport: Transport
    audience: str
    last: int
    on_slow: Callable[[Sink], None]  # close 1013, "resume after=<last>"
    on_behind: Callable[[Sink, int], None]  # read the store up to the seq, then resume live delivery
    on_restart: Callable[[Sink], None] = _no_restart  # close 1012, "resume after=<last>"
    behind: bool = False  # while True the socket's own reader owns it; deliver() skips it
    # while its own command is in flight (own_events=result), or while it reads the store after a gap:
    # the messages it would be written (unframed: the result's own event is mostly dropped, so never
    # framed), in seq order, contiguous after max(``last``, ``hold_after``); the stream frames and writes
    # them around the result (DirectStream.reply) or once its read has reached ``hold_after``
    held: list[tuple[int, bytes]] | None = None
    held_bytes: int = 0  # the held messages' bytes as frames
    hold_after: int = 0  # a hold that starts ahead of ``last`` (where the store read will end)
    closed: bool = False
    # frames=view: the update's last frame is taken from the frames' "view:<audience>" entry (the event
    # with the audience's view after it), and an update without one is read from the store
    view: str | None = None
    written: int = 0
    stamp: float = 0.0  # time.monotonic() of the last frame written (the heartbeat's idle clock)


HOLD_FRAMES = 256  # past this many held frames (or ``limit`` bytes) the socket reads the store instead


class Fanout:
    """Per game: the sinks listening. ``deliver`` is synchronous: nothing waits per socket."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # write-buffer bytes above which a socket is a slow consumer
        self._sinks: dict[str, set[Sink]] = {}
        self._audiences: dict[str, dict[str, int]] = {}  # game -> audience -> sockets (listening() is per command)
        self.published: dict[str, int] = {}  # game -> highest seq delivered while it had sinks (``head``)
        self.frames_built = 0  # frames built (once per event and audience, whatever the socket count)
        # counters (read by metrics.Metrics.watch_fanout and the busy-game benches): why sockets left the
        # direct path, and how many frames each write to a transport carried
        self.holds_overflowed = 0  # holds past HOLD_FRAMES or ``limit`` bytes: that socket reads the store
        self.holds_broken = 0  # holds given up for a gap, a bare notification or an audience not encoded
        self.fallbacks = 0  # sockets handed to their reader (``on_behind``), for any of the reasons above
        self.catch_ups = 0  # store catch-ups started after a socket's join (DirectStream counts them)
        self.replies_held = 0  # results written with the frames held while their command flew
        self.replies_unheld = 0  # results written without a hold (the socket was reading the store)
        self.writes = 0  # transport writes of event frames (a frame each, or held frames with a result)
        self.frames_written = 0  # event frames (and results) in those writes

    def _to_reader(self, sink: Sink, seq: int) -> None:
        """The socket cannot be written to in order from here: what was held is dropped, and its reader
        catches up from the store (``behind`` until it has), then resumes live delivery or holding."""
        self.fallbacks += 1
        sink.held, sink.held_bytes = None, 0
        sink.behind = True
        sink.on_behind(sink, seq)

    def counters(self) -> dict[str, int]:
        return {
            "holds_overflowed": self.holds_overflowed,
            "holds_broken": self.holds_broken,
            "fallbacks": self.fallbacks,
            "catch_ups": self.catch_ups,
            "replies_held": self.replies_held,
            "replies_unheld": self.replies_unheld,
            "writes": self.writes,
            "frames_written": self.frames_written,
        }

    def add(self, game_id: str, sink: Sink) -> None:
        sinks = self._sinks.setdefault(game_id, set())
        if sink not in sinks:
            sinks.add(sink)
            counts = self._audiences.setdefault(game_id, {})
            counts[sink.audience] = counts.get(sink.audience, 0) + 1
            if sink.view is not None:
                counts[sink.view] = counts.get(sink.view, 0) + 1

    def remove(self, game_id: str, sink: Sink) -> None:
        sinks = self._sinks.get(game_id)
        if sinks is None or sink not in sinks:
            return
        sinks.discard(sink)
        counts = self._audiences[game_id]
        for key in (sink.audience, sink.view) if sink.view is not None else (sink.audience,):
            counts[key] -= 1
            if not counts[key]:
                del counts[key]
        if not sinks:
            del self._sinks[game_id], self._audiences[game_id]
            self.published.pop(game_id, None)

    def listening(self, game_id: str) -> AbstractSet[str]:
        """The audiences with a sink on the game: a live view, not a copy (asked once per command)."""
        return self._audiences.get(game_id, _NO_AUDIENCES).keys()

    def head(self, game_id: str) -> int:
        """The highest seq published for the game since its first sink was added (0: none yet). A sink
        that has read the store up to at least this may go live: anything later reaches it here."""
        return self.published.get(game_id, 0)

    def size(self, game_id: str) -> int:
        """How many sockets listen to the game (asked once per command answered early)."""
        sinks = self._sinks.get(game_id)
        return len(sinks) if sinks is not None else 0

    def games(self) -> list[str]:
        """The games with a sink."""
        return list(self._sinks)

    def sinks(self, game_id: str) -> tuple[Sink, ...]:
        return tuple(self._sinks.get(game_id, ()))

    def count(self) -> int:
        return sum(len(s) for s in self._sinks.values())

    def restart_all(self) -> int:
        sinks = [s for group in self._sinks.values() for s in group if not s.closed]
        for sink in sinks:
            sink.on_restart(sink)
        return len(sinks)

    def deliver(self, game_id: str, items: list[Item]) -> None:
        sinks = self._sinks.get(game_id)
        if not sinks or not items:
            return
        top = items[0][0] if len(items) == 1 else max(seq for seq, _ in items)  # a command's one event, often
        published = self.published
        if top > published.get(game_id, 0):
            published[game_id] = top
        now = 0.0  # time.monotonic(), read at the first write
        snapshot = tuple(sinks)  # callbacks may add or remove sinks
        for seq, frames in items:
            now = self._deliver_seq(snapshot, seq, frames, top, now)

    def _deliver_seq(
        self, snapshot: tuple[Sink, ...], seq: int, frames: dict[str, bytes | None] | None, top: int, now: float
    ) -> float:
        """``seq``'s message to each sink: held for a holding one, written to a live one (each audience's
        frame built once, at its first write, and the same bytes written to its every socket). Returns
        ``now`` (read at the first write)."""
        framed: dict[str, bytes] = {}  # audience -> its frame, built at its first live write
        limit = self.limit
        for sink in snapshot:
            if sink.closed:
                continue
            if sink.held is not None:  # holding, live or behind its store read: contiguous after the hold
                self._hold(sink, seq, frames, top)
                continue
            last = sink.last
            if sink.behind or seq <= last:
                continue  # its reader owns it, or it has it
            # the audience's frame (with its view, for a frames=view socket at the update's last seq)
            audience = sink.view if sink.view is not None and seq == top else sink.audience
            # built for a socket before this one
            frame = framed.get(audience) if seq == last + 1 else None
            if frame is None:
                message = frames.get(audience, _MISSING) if seq == last + 1 and frames is not None else _MISSING
                if message is _MISSING:  # a gap, a bare notification, an audience not encoded before it
                    self._to_reader(sink, seq)  # listened: the store has it
                    continue
                if message is None:
                    message = _HIDDEN % seq
                else:
                    self.frames_built += 1
                frame = framed[audience] = text_frame(message)
            transport = sink.transport
            if transport.is_closing() or transport.get_write_buffer_size() > limit:
                self._close(sink)
                continue
            transport.write(frame)
            self.writes += 1
            self.frames_written += 1
            sink.written += 1
            if not now:
                now = time.monotonic()
            sink.stamp = now
            sink.last = seq  # sent (a hidden seq as its caught_up frame): accounted for
        return now

    def _hold(self, sink: Sink, seq: int, frames: dict[str, bytes | None] | None, top: int) -> None:
        """``seq``'s message kept unframed by a holding sink, for DirectStream.reply (the result's own
        event, mostly: never framed, then) or for the end of its store read; a gap, a bare notification
        or too much to keep sends it to its reader."""
        held = sink.held
        assert held is not None
        last = held[-1][0] if held else sink.last if sink.last >= sink.hold_after else sink.hold_after
        if seq <= last:
            return
        key = sink.view if sink.view is not None and seq == top else sink.audience
        message = frames.get(key, _MISSING) if seq == last + 1 and frames is not None else _MISSING
        if message is _MISSING:  # a gap, a bare notification, an audience not encoded: the store
            self.holds_broken += 1
            self._to_reader(sink, seq)
            return
        if message is None:
            message = _HIDDEN % seq
        held.append((seq, message))
        sink.held_bytes += text_frame_size(len(message))  # counted as its frame
        if len(held) > HOLD_FRAMES or sink.held_bytes > self.limit:
            self.holds_overflowed += 1  # too much to keep: its reader reads the store afterwards
            self._to_reader(sink, seq)

    @staticmethod
    def _close(sink: Sink) -> None:
        """A socket closing, or too slow to take more: no more writes; a slow one is told (its resume seq
        is sink.last: nothing after it was written)."""
        sink.closed = True
        if not sink.transport.is_closing():
            sink.on_slow(sink)
