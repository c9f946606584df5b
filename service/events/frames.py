"""Live frames: each new event encoded once per listening audience, handed to the publisher.

A command's new events are ``FreshEvent``s: each audience's view of one is redacted once (for the
dice's ``seen_by``, the command's result and the frames alike) and each distinct view encoded once, so
the audiences an event is not redacted for (all of them, for most events) share one envelope's bytes,
and the commanding seat's result carries the very bytes its frame does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet
from typing import Any

import msgspec

from service.domain.core import UMPIRE, Event, Ruleset, Viewer

from .codec import EventCodec
from .envelope import DiceMaterial, Envelope
from .head import GameHead
from .replay import visible_event

FrameItems = list[tuple[int, dict[str, bytes | None] | None]]
# (game id, [(seq, {audience: frame bytes or None})]) -> published to live streams
Publisher = Callable[[str, FrameItems], Awaitable[None]]

_encoder = msgspec.json.Encoder()
_AUDIENCES: dict[tuple[str, ...], list[Viewer]] = {}
_LABELLED: dict[tuple[str, ...], list[tuple[Viewer, str]]] = {}


def audiences(head: GameHead) -> list[Viewer]:
    seats = tuple(head.seats)
    viewers = _AUDIENCES.get(seats)
    if viewers is None:
        viewers = _AUDIENCES[seats] = [UMPIRE, Viewer("spectator"), *(Viewer("seat", s) for s in seats)]
    return viewers


def labelled_audiences(head: GameHead) -> list[tuple[Viewer, str]]:
    """``audiences`` with each one's label."""
    seats = tuple(head.seats)
    labelled = _LABELLED.get(seats)
    if labelled is None:
        labelled = _LABELLED[seats] = [(v, v.label) for v in audiences(head)]
    return labelled


def audience_key(viewer: Viewer) -> str:
    return viewer.label


class FreshEvent:
    """One event a command is appending, with the state right after it, and (once its row is built,
    ``bind``) what its envelope says: the same fields a read of the stored row gives."""

    __slots__ = ("_data", "_encoded", "_envelopes", "_header", "_rolls", "_views", "actor", "after", "event",
                 "material", "seq")

    def __init__(self, event: Event, after: Any, actor: str) -> None:
        self.event = event
        self.after = after
        self.actor = actor
        self.seq = 0
        self.material: DiceMaterial | None = None
        self._header: tuple[Any, ...] = ()
        self._data: msgspec.Raw | None = None
        self._rolls: msgspec.Raw | tuple[()] = ()
        self._views: dict[str, Event | None] = {}
        self._envelopes: dict[int, bytes] = {}  # id(view) -> envelope bytes; the views keep the ids alive
        self._encoded: dict[str, bytes | None] = {}  # label -> its envelope (None: hidden), once asked for

    def bind(self, row: dict[str, Any], material: DiceMaterial | None, served: DiceMaterial | None = None) -> None:
        """``served``: ``material`` without its ``seen_by``, when the caller has it."""
        self.seq = row["seq"]
        self.material = material
        if served is None or material is None:
            served = msgspec.structs.replace(material, seen_by=()) if material and material.seen_by else material
        self._header = (row["type"], row["turn"], row["phase"], row["actor"], row["recorded_at"],
                        row["command_id"], served)
        self._data = msgspec.Raw(row["data"])  # the stored data: the envelope's, where nothing is redacted
        self._rolls = msgspec.Raw(row["rolls"]) if self.event.rolls else ()  # the stored rolls, likewise

    def view(self, ruleset: Ruleset[Any, Any], viewer: Viewer, label: str | None = None) -> Event | None:
        """What ``viewer`` (whose ``label`` the caller may know) may see of the event (``visible_event``,
        once per audience)."""
        if label is None:
            label = viewer.label
        views = self._views
        if label in views:
            return views[label]
        shown = views[label] = visible_event(ruleset, self.event, viewer, self.after)
        return shown

    def envelope(self, codec: EventCodec, ruleset: Ruleset[Any, Any], game_id: str, viewer: Viewer,
                 label: str | None = None) -> bytes | None:
        """The viewer's envelope, encoded (None: the event is hidden from it); audiences that see the
        same view share the bytes."""
        if label is None:
            label = viewer.label
        encoded = self._encoded.get(label, _UNSEEN)
        if encoded is not _UNSEEN:
            return encoded  # type: ignore[no-any-return]
        shown = self.view(ruleset, viewer, label)
        if shown is not None:
            encoded = self._envelopes.get(id(shown))
            if encoded is None:
                tag, turn, phase, actor, recorded_at, command_id, dice = self._header
                redacted = shown is not self.event
                encoded = self._envelopes[id(shown)] = _encoder.encode(Envelope(  # positional: field order
                    game_id, self.seq, tag, type(shown).version, turn, phase, actor, recorded_at,
                    codec.to_data(shown) if redacted else self._data, command_id,  # type: ignore[arg-type]
                    shown.rolls if redacted else self._rolls, dice))  # type: ignore[arg-type]
        else:
            encoded = None
        self._encoded[label] = encoded
        return encoded


_UNSEEN: Any = object()  # not encoded for that audience yet


def result_body(version: int, envelopes: list[bytes]) -> bytes:
    """{"version": N, "events": [...]}: byte for byte the msgspec encoding of that dict."""
    return b'{"version":%d,"events":[%b]}' % (version, b",".join(envelopes))


def event_frame(envelope: bytes) -> bytes:
    """{"kind": "event", "event": <envelope>}: byte for byte the msgspec encoding of that dict."""
    return b'{"kind":"event","event":' + envelope + b"}"


def live_frames(head: GameHead, fresh: list[FreshEvent], wanted: AbstractSet[str] | None) -> FrameItems:
    """Frames of a command's events for the audiences in ``wanted`` (all when None), encoded once per
    distinct view, not once per connection; an audience missing from the frames reads the event from
    the store."""
    out: FrameItems = []
    labelled = labelled_audiences(head)
    codec, ruleset, game_id = head.codec, head.ruleset, head.game_id
    for f in fresh:
        per: dict[str, bytes | None] = {}
        framed: dict[int, bytes] = {}
        for viewer, label in labelled:
            if wanted is not None and label not in wanted:
                continue
            env = f.envelope(codec, ruleset, game_id, viewer, label)  # the result's audience: encoded already
            if env is None:
                per[label] = None
                continue
            frame = framed.get(id(env))
            if frame is None:
                frame = framed[id(env)] = event_frame(env)
            per[label] = frame
        out.append((f.seq, per))
    return out
