from typing import Any

import msgspec
import pytest

from service.domain.core import Event, Modifier, Roll, find_ruleset
from service.events.codec import EventCodec, UnknownEventType, register_upcaster, unregister_upcaster
from service.events.envelope import Envelope
from service.events.head import codec_for
from tests.support import tiny
from tests.support.golden import GOLDEN_DIR


def test_round_trip_keeps_rolls_out_of_data():
    codec = EventCodec(tiny.RULESET.event_types)
    roll = Roll(0, "d10", 4, "to-hit", "TINY-FIRE", 5, (Modifier("X-1", "why", 1),), "hit")
    event = tiny.Shot(shooter="red", target="blue", hit=True, rolls=(roll,))
    tag, version, data, rolls = codec.encode(event)
    assert tag == "tiny.shot" and version == 1
    assert msgspec.json.decode(data) == {"shooter": "red", "target": "blue", "hit": True}
    assert codec.decode(tag, version, data, rolls) == event


def test_unknown_type_is_named():
    with pytest.raises(UnknownEventType):
        EventCodec(tiny.RULESET.event_types).decode("tiny.nope", 1, b"{}")


class Renamed(Event, tag="test.renamed"):
    version = 2
    shooter_id: str


def test_old_versions_are_upcast_on_read():
    register_upcaster("test.renamed", 1, lambda d: {"shooter_id": d.pop("shooter")})
    try:
        codec = EventCodec([Renamed])
        assert codec.decode("test.renamed", 1, b'{"shooter":"red"}') == Renamed(shooter_id="red")
        assert codec.decode("test.renamed", 2, b'{"shooter_id":"red"}') == Renamed(shooter_id="red")
    finally:
        unregister_upcaster("test.renamed", 1)


def test_stored_events_tolerate_unknown_fields_but_tags_must_be_unique():
    codec = EventCodec(tiny.RULESET.event_types)
    assert codec.decode("tiny.phase_done", 1, b'{"seat":"red","later_field":1}') == tiny.PhaseDone(seat="red")

    class Clash(Event, tag="tiny.shot"):
        pass

    with pytest.raises(ValueError):
        EventCodec([*tiny.RULESET.event_types, Clash])


class Bare(Event, tag="test.bare"):
    pass


class Keeps(Event, tag="test.keeps"):
    note: str = ""
    nested: dict[str, Any] = {}


class Omits(Event, tag="test.omits", omit_defaults=True):
    note: str = ""
    nested: dict[str, Any] = {}


def _as_text(codec: EventCodec, event: Event) -> tuple[str, int, str, str]:
    tag, version, data, rolls = codec.encode(event)
    return tag, version, data.decode(), rolls.decode()


def test_encode_text_is_encode_as_text():
    """``encode_text`` cuts one encoding of the event: the same text ``encode`` gives, for every event of
    the golden logs and for the edge cases (no data field, no rolls, defaults kept or omitted, a nested
    "rolls" key, text outside ASCII)."""
    roll = Roll(0, "d10", 4, "to-hit", "TINY-FIRE", 5, (Modifier("X-1", 'why ,"rolls":', 1),), "hit")
    codec = EventCodec([*tiny.RULESET.event_types, Bare, Keeps, Omits])
    nested = {"rolls": [1], "é": 'ü ,"rolls":[]'}
    cases = [
        Bare(),
        Bare(rolls=(roll,)),
        Keeps(),
        Keeps(note="ß", nested=nested),
        Keeps(nested=nested, rolls=(roll,)),
        Omits(),
        Omits(nested=nested),
        Omits(note="x", rolls=(roll, roll)),
        tiny.Shot(shooter="red", target="blue", hit=True, rolls=(roll,)),
        tiny.PhaseDone(seat="red"),
    ]
    for event in cases:
        assert codec.encode_text(event) == _as_text(codec, event), event
    for path in sorted(GOLDEN_DIR.glob("*.jsonl")):
        lines = [ln for ln in path.read_bytes().split(b"\n") if ln.strip()]
        codec = codec_for(find_ruleset(msgspec.json.decode(lines[0])["ruleset"]))
        for line in lines[1:]:
            env = msgspec.json.decode(line, type=Envelope)
            event = codec.decode(env.type, env.v, msgspec.json.encode(env.data), msgspec.json.encode(env.rolls))
            assert codec.encode_text(event) == _as_text(codec, event), (path.name, env.seq)
