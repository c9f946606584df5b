"""A command's new events as values: each one a ``FreshEvent``, its view redacted once per audience and
each distinct view's envelope (the stored event's JSON, as a read of the log gives it) encoded once.

Each audience's view of an event is redacted once (for the dice's ``seen_by``, the command's result and
the live frames alike), so the audiences an event is not redacted for (all of them, for most events)
share one envelope's bytes, and the commanding seat's result carries the very bytes its frame does.
Turning these into HTTP bodies and websocket messages is the API layer's (``service/api/encoding.py``),
handed in as ``Framer``: the events layer only publishes what it returns."""

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
# (game id, [(seq, {audience: its message, or None: hidden} or None: read it from the store)]) ->
# published to live streams; what it returns is awaited when not None (the in-process broadcaster
# delivers at once and returns None). The messages are the ``Framer``'s, encoded by the API layer.
Publisher = Callable[[str, FrameItems], Awaitable[None] | None]
# (head after the command, its fresh events, the audiences listening or None: all) -> the items to publish
Framer = Callable[["GameHead", "list[FreshEvent]", "AbstractSet[str] | None"], FrameItems]


def announced(head: GameHead, fresh: list[FreshEvent], wanted: AbstractSet[str] | None) -> FrameItems:
    """The items with no message in them (no ``Framer`` given): each event's seq alone, which a live
    stream reads from the store."""
    return [(f.seq, None) for f in fresh]


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
    ``bind``) what its envelope says: the same fields a read of the stored row gives.

    Each audience's view is asked for once (``_views``). The envelope of the event itself, what most
    audiences see, is kept in ``_plain``; a dict for redacted views' envelopes is made only when an
    audience sees one."""

    __slots__ = (
        "_data",
        "_header",
        "_plain",
        "_redacted",
        "_rolls",
        "_views",
        "actor",
        "after",
        "event",
        "material",
        "seq",
    )

    def __init__(self, event: Event, after: Any, actor: str) -> None:
        self.event = event
        self.after = after
        self.actor = actor
        self.seq = 0
        self.material: DiceMaterial | None = None
        self._header: tuple[Any, ...] = ()
        self._data: msgspec.Raw | None = None
        self._rolls: msgspec.Raw | tuple[()] = ()
        self._views: dict[str, Event | None] = {}  # label -> its view (None: hidden)
        self._plain: bytes | None = None  # the envelope of ``event`` unredacted, once asked for
        self._redacted: dict[int, bytes] | None = None  # id(view) -> envelope; the views keep the ids alive

    def bind(self, row: dict[str, Any], material: DiceMaterial | None, served: DiceMaterial | None = None) -> None:
        """``served``: ``material`` without its ``seen_by``, when the caller has it."""
        self.seq = row["seq"]
        self.material = material
        if served is None or material is None:
            served = msgspec.structs.replace(material, seen_by=()) if material and material.seen_by else material
        self._header = (
            row["type"],
            row["turn"],
            row["phase"],
            row["actor"],
            row["recorded_at"],
            row["command_id"],
            served,
        )
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

    def envelope(
        self, codec: EventCodec, ruleset: Ruleset[Any, Any], game_id: str, viewer: Viewer, label: str | None = None
    ) -> bytes | None:
        """The viewer's envelope, encoded (None: the event is hidden from it); audiences that see the
        same view share the bytes."""
        if label is None:
            label = viewer.label
        shown = self._views.get(label, _UNSEEN)
        if shown is _UNSEEN:
            shown = self.view(ruleset, viewer, label)
        if shown is None:
            return None
        plain = shown is self.event
        data: Any
        rolls: Any
        if plain:
            encoded = self._plain
            if encoded is not None:
                return encoded
            data, rolls = self._data, self._rolls
        else:
            redacted = self._redacted
            if redacted is None:
                redacted = self._redacted = {}
            elif (encoded := redacted.get(id(shown))) is not None:
                return encoded
            data, rolls = codec.to_data(shown), shown.rolls
        tag, turn, phase, actor, recorded_at, command_id, dice = self._header
        encoded = _encoder.encode(
            Envelope(  # positional: field order
                game_id,
                self.seq,
                tag,
                type(shown).version,
                turn,
                phase,
                actor,
                recorded_at,
                data,
                command_id,
                rolls,
                dice,
            )
        )
        if plain:
            self._plain = encoded
        else:
            redacted[id(shown)] = encoded  # type: ignore[index]  # made above, for a redacted view
        return encoded


_UNSEEN: Any = object()  # no view asked for that audience yet
