"""msgspec codec for stored events: explicit tags, per-type versions, upcasters on read."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from service.domain.core import Event, Ruleset

from .envelope import SERVICE_EVENT_TYPES

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# (type tag, stored version) -> function producing the data of version + 1
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def register_upcaster(tag: str, from_version: int, upcast: Upcaster) -> None:
    _UPCASTERS[(tag, from_version)] = upcast


def unregister_upcaster(tag: str, from_version: int) -> None:
    _UPCASTERS.pop((tag, from_version), None)


class UnknownEventType(LookupError):
    pass


def tag_of(event_type: type[Event]) -> str:
    tag = event_type.__struct_config__.tag
    if not isinstance(tag, str):
        raise TypeError(f"{event_type.__name__} needs an explicit string tag")
    return tag


def _with_rolls(data: bytes | str, rolls: bytes | str) -> bytes:
    """Splice the stored rolls back into the data object, so one decode builds the whole event."""
    body = data.encode() if isinstance(data, str) else bytes(data)
    if not rolls or rolls in (b"[]", "[]"):
        return body
    extra = rolls.encode() if isinstance(rolls, str) else bytes(rolls)
    head = body.rstrip()[:-1].rstrip()  # drop the closing brace
    joiner = b"" if head.endswith(b"{") else b","
    return head + joiner + b'"rolls":' + extra + b"}"


_encoder = msgspec.json.Encoder()


def _split_form(kind: type[Event]) -> tuple[str, int, int, bool] | None:
    """(tag, version, where the data fields start, omits defaults) when an encoding of ``kind`` is
    ``{"type":<tag>,...,"rolls":[...]}`` (None: ``encode_text`` goes the ``encode`` way)."""
    config = kind.__struct_config__
    if config.array_like or config.tag_field != "type" or kind.__struct_encode_fields__[-1:] != ("rolls",):
        return None
    tag = tag_of(kind)
    return tag, kind.version, len('{"type":,') + len(_encoder.encode(tag).decode()), config.omit_defaults


class EventCodec:
    """Encodes events to (type, version, data JSON, rolls JSON) and back, for one ruleset."""

    def __init__(self, event_types: Iterable[type[Event]]) -> None:
        self._by_tag: dict[str, type[Event]] = {}
        self._decoders: dict[str, msgspec.json.Decoder[Any]] = {}
        self._written: dict[type[Event], tuple[str, int]] = {}  # event type -> (tag, version), as encoded
        self._split: dict[type[Event], tuple[str, int, int, bool]] = {}  # encode_text's cut, per event type
        for event_type in (*SERVICE_EVENT_TYPES, *event_types):
            tag = tag_of(event_type)
            if tag in self._by_tag and self._by_tag[tag] is not event_type:
                raise ValueError(f"two event types share the tag {tag!r}")
            self._by_tag[tag] = event_type
            self._decoders[tag] = msgspec.json.Decoder(event_type)
            split = _split_form(event_type)
            if split is not None:
                self._split[event_type] = split

    @classmethod
    def for_ruleset(cls, ruleset: Ruleset) -> EventCodec:
        return cls(ruleset.event_types)

    def event_type(self, tag: str) -> type[Event]:
        try:
            return self._by_tag[tag]
        except KeyError:
            raise UnknownEventType(tag) from None

    def encode(self, event: Event) -> tuple[str, int, bytes, bytes]:
        """(tag, version, data without tag and rolls, rolls)."""
        kind = type(event)
        written = self._written.get(kind)
        if written is None:
            written = self._written[kind] = (tag_of(kind), kind.version)
        data = msgspec.to_builtins(event)
        data.pop("type", None)
        rolls = data.pop("rolls", [])
        return written[0], written[1], _encoder.encode(data), _encoder.encode(rolls)

    def encode_text(self, event: Event) -> tuple[str, int, str, str]:
        """``encode`` with data and rolls as text (a row's columns), cut out of one encoding of the whole
        event (no ``to_builtins`` copy): ``{"type":<tag>,<data fields>,"rolls":[...]}``, rolls last."""
        split = self._split.get(type(event))
        if split is None:
            tag, version, data, rolls = self.encode(event)
            return tag, version, data.decode(), rolls.decode()
        tag, version, start, omits = split
        full = _encoder.encode(event).decode()
        if event.rolls or not omits:  # the top-level "rolls" is the last key: nothing after it names one
            cut = full.rfind(',"rolls":')
            return tag, version, "{" + full[start:cut] + "}", full[cut + 9 : -1]
        return tag, version, "{" + full[start:-1] + "}", "[]"

    def decode(self, tag: str, version: int, data: bytes | str, rolls: bytes | str = b"[]") -> Event:
        current = self.event_type(tag).version
        if version == current:
            return self._decoders[tag].decode(_with_rolls(data, rolls))
        raw = msgspec.json.decode(data)
        while version < current:
            upcast = _UPCASTERS.get((tag, version))
            if upcast is None:
                raise UnknownEventType(f"no upcaster for {tag} v{version}")
            raw = upcast(raw)
            version += 1
        raw["rolls"] = msgspec.json.decode(rolls or b"[]")
        return msgspec.convert(raw, self.event_type(tag))

    def to_data(self, event: Event) -> dict[str, Any]:
        """The envelope ``data`` of an (already redacted) event."""
        data = msgspec.to_builtins(event)
        data.pop("type", None)
        data.pop("rolls", None)
        return data
