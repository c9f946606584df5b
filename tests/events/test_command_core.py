"""The command path's shared work stays what a read of the store gives: each audience's live frame and
the commanding seat's result are byte for byte the envelopes a reader of the stored rows renders for
that viewer (redaction included), whichever audiences share a view's bytes; the recorded time keeps
its format; the rate limits count as the library's fixed windows did."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from service.api.encoding import command_body, live_frames
from service.domain.core import UMPIRE, Viewer, seat
from service.events.application import GameService
from service.events.memory_store import MemoryEventStore
from service.events.reading import GameReader

CYCLE = [
    ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
    ("blue", {"type": "tiny.shoot", "shooter": "blue", "target": "red"}),
    ("red", {"type": "tiny.hide", "seat": "red", "secret": 7}),
    ("blue", {"type": "tiny.hide", "seat": "blue", "secret": 9}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),  # the turn ends: reveal (with openings) and a new commitment
]
VIEWERS = [UMPIRE, Viewer("spectator"), seat("red"), seat("blue")]


async def test_frames_and_results_are_the_envelopes_a_reader_of_the_store_renders():
    frames: dict[int, dict[str, bytes | None]] = {}

    async def publish(game_id: str, items: Any) -> None:
        for seq, per in items:
            frames[seq] = per

    service = GameService(MemoryEventStore(), publish=publish, frames=live_frames)
    game = await service.create_game("tiny", "long")
    gid = game.game_id
    bodies = []
    for _round in range(2):
        for who, command in CYCLE:
            result = await service.handle_command(gid, seat(who), msgspec.json.encode({"command": command}))
            bodies.append((who, result))
    reader = GameReader(service)
    rendered = {v.label: {e.seq: e for e in await reader.events(gid, v)} for v in VIEWERS}
    assert len(frames) == (await service.head(gid)).seq - 2  # every event of a command was framed
    for seq, per in frames.items():
        assert set(per) == {v.label for v in VIEWERS}
        for label, frame in per.items():
            expected = rendered[label].get(seq)
            if expected is None:
                assert frame is None
            else:
                assert frame == msgspec.json.encode({"kind": "event", "event": expected}), (seq, label)
    hidden = [per["seat:blue"] for per in frames.values() if per["seat:red"] and b'"secret":7' in per["seat:red"]]
    assert hidden and all(b'"secret":7' not in f for f in hidden if f)  # blue never sees red's secret
    reveals = [per for per in frames.values() if per["umpire"] and b'"dice.revealed"' in per["umpire"]]
    assert len(reveals) == 2 and all(per["umpire"] != per["seat:red"] for per in reveals)  # no shared seed
    for who, result in bodies:
        decoded = msgspec.json.decode(command_body(result))
        expected = [
            rendered[f"seat:{who}"][seq]
            for seq in range(result.after + 1, result.version + 1)
            if seq in rendered[f"seat:{who}"]
        ]
        assert command_body(result) == msgspec.json.encode({"version": result.version, "events": expected})
        assert decoded["version"] == result.version


def test_rate_limit_windows_count_hits_per_key_from_the_first_hit():
    from limits import parse

    from service.api.ratelimit import FixedWindow

    window = FixedWindow(parse("3/minute"))
    assert [window.hit("a", 100.0) for _ in range(4)] == [True, True, True, False]
    assert window.hit("b", 101.0)  # another key has its own window
    assert not window.test("a", 130.0) and window.retry_after("a", 130.0) == 30
    assert window.hit("a", 160.0)  # the window opened at the first hit (100 s) is over
    assert window.test("a", 160.0)


@pytest.mark.parametrize("spec", ["off", "none", ""])
def test_a_limit_switched_off_counts_nothing(spec):
    from service.api.ratelimit import RateLimits
    from service.settings import Settings

    limits = RateLimits(Settings.from_env(rate_commands_per_token=spec, rate_commands_per_address=spec))
    for _ in range(1000):
        limits.command("digest", "127.0.0.1")
    assert not limits.limits_tokens


async def test_audiences_that_see_one_view_share_its_bytes_whichever_audience_asks_first():
    """A hidden secret: the umpire and its seat see the event itself, the spectator and the other seat
    its redaction. The redacted audience asked in between does not split the plain audiences' bytes."""
    frames: dict[int, dict[str, bytes | None]] = {}

    def publish(game_id: str, items: Any) -> None:  # synchronous: nothing to await
        for seq, per in items:
            frames[seq] = per

    service = GameService(MemoryEventStore(), publish=publish, frames=live_frames)
    game = await service.create_game("tiny", "long")
    hide = {"type": "tiny.hide", "seat": "red", "secret": 7}
    result = await service.handle_command(game.game_id, seat("red"), msgspec.json.encode({"command": hide}))
    per = frames[result.version]  # published before the command was answered
    assert b'"secret":7' in per["umpire"] and per["umpire"] is per["seat:red"]  # type: ignore[operator]
    assert per["spectator"] == per["seat:blue"] and b'"secret":null' in per["spectator"]  # type: ignore[operator]
    assert per["umpire"] != per["spectator"]


async def test_the_in_process_broadcaster_delivers_at_once_and_gives_nothing_to_await():
    from service.api.broadcast import InProcessBroadcaster

    broadcaster = InProcessBroadcaster()
    sub = broadcaster.subscribe("g", 10, "seat:red")
    assert broadcaster.publish("g", [(3, {"seat:red": b"x"})]) is None
    assert await sub.next(0) == (3, {"seat:red": b"x"})


def test_a_fresh_event_shares_the_plain_bytes_when_a_redacted_audience_asks_first():
    from service.events.fresh import FreshEvent
    from service.events.head import codec_for
    from service.events.rows import event_row
    from tests.support import tiny

    codec, ruleset = codec_for(tiny.RULESET), tiny.RULESET
    event = tiny.Hidden(seat="red", secret=7)
    fresh = FreshEvent(event, None, "seat:red")
    fresh.bind(event_row(codec, "g", 3, event, 1, "fire", "seat:red", "c", "2026-12-02T00:00:00Z", None), None)
    spectator = fresh.envelope(codec, ruleset, "g", Viewer("spectator"))
    red = fresh.envelope(codec, ruleset, "g", seat("red"))
    blue = fresh.envelope(codec, ruleset, "g", seat("blue"))
    assert fresh.envelope(codec, ruleset, "g", UMPIRE) is red and b'"secret":7' in red  # type: ignore[operator]
    assert spectator == blue and b'"secret":null' in spectator  # type: ignore[operator]
    assert fresh.envelope(codec, ruleset, "g", seat("blue"), "seat:blue") is blue  # asked again: the same bytes
