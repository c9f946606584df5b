import msgspec
import pytest

from service.domain.core import Event, Modifier, Roll
from service.events.codec import EventCodec, UnknownEventType, register_upcaster, unregister_upcaster
from tests.support import tiny


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
