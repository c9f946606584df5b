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
from service.domain.core.guards import full_view

from .codec import EventCodec
from .envelope import DiceMaterial, Envelope
from .head import GameHead
from .replay import visible_event

FrameItems = list[tuple[int, dict[str, bytes | None] | None]]
# (game id, [(seq, {audience: frame bytes or None})]) -> published to live streams; what it returns is
# awaited when not None (the in-process broadcaster delivers at once and returns None)
Publisher = Callable[[str, FrameItems], Awaitable[None] | None]

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


def result_body(version: int, envelopes: list[bytes]) -> bytes:
    """{"version": N, "events": [...]}: byte for byte the msgspec encoding of that dict."""
    return b'{"version":%d,"events":[%b]}' % (version, b",".join(envelopes))


def event_frame(envelope: bytes) -> bytes:
    """{"kind": "event", "event": <envelope>}: byte for byte the msgspec encoding of that dict."""
    return b'{"kind":"event","event":' + envelope + b"}"


VIEW = "view:"  # "view:<audience>" in ``wanted``: sockets of that audience take the view with the update
_VIEWS: dict[tuple[str, str], tuple[int, bytes]] = {}  # (game, audience) -> (seq, its view at that seq)
_VIEWS_KEPT = 1024  # views of ~2–12 KB: at most ~12 MB kept
_UNVERIFIED: dict[str, str | None] = {}  # game -> why it is unverified (immutable; noted by the stream)


def note_unverified(game_id: str, why: str | None) -> None:
    """What GET /v1/games/{id} says as ``unverified`` (a game's never changes), for its views here."""
    if len(_UNVERIFIED) >= 100_000:
        _UNVERIFIED.clear()
    _UNVERIFIED[game_id] = why


def view_body(head: GameHead, viewer: Viewer, label: str | None = None) -> bytes:
    """``{"game":…,"options":…}``: what a page reads after each update, for ``viewer`` at ``head``'s seq:
    the body of GET /v1/games/{id} (without ``deadline`` and ``clock``: the time, read over HTTP) and the
    body of GET /v1/games/{id}/options (the same functions, ``full_view`` and the ruleset's options and
    forms: the same redaction). Computed once per game, audience and seq in this process, however many
    sockets (or reads) ask for it."""
    if label is None:
        label = viewer.label
    key = (head.game_id, label)
    kept = _VIEWS.get(key)
    if kept is not None and kept[0] == head.seq:
        return kept[1]
    ruleset, state = head.ruleset, head.state
    clock = ruleset.clock(state)
    over = ruleset.is_over(state)
    game = {
        "game_id": head.game_id,
        "ruleset": ruleset.name,
        "ruleset_version": ruleset.version,
        "seats": head.seats,
        "viewer": label,
        "version": head.seq,
        "at": head.seq,
        "turn": clock.turn,
        "phase": clock.phase,
        "over": over,
        "unverified": _UNVERIFIED.get(head.game_id),
        "state": full_view(ruleset, state, viewer),
    }
    if viewer.kind == "spectator" or over:
        options: dict[str, Any] = {"version": head.seq, "viewer": label, "options": [], "forms": []}
    else:
        options = {
            "version": head.seq,
            "viewer": label,
            "options": list(ruleset.options(state, viewer)),
            "forms": list(ruleset.forms(state, viewer)),
        }
    body = _encoder.encode({"game": game, "options": options})
    if len(_VIEWS) >= _VIEWS_KEPT:
        _VIEWS.clear()
    _VIEWS[key] = (head.seq, body)
    return body


def with_view(frame: bytes | None, seq: int, view: bytes) -> bytes:
    """An update's last frame with the viewer's view in it: ``{"kind":"event","event":…,"view":…}``, or,
    for an event hidden from the viewer (``frame`` None), ``{"kind":"caught_up","seq":N,"view":…}``."""
    if frame is None:
        return b'{"kind":"caught_up","seq":%d,"view":%b}' % (seq, view)
    return frame[:-1] + b',"view":' + view + b"}"


def live_frames(head: GameHead, fresh: list[FreshEvent], wanted: AbstractSet[str] | None) -> FrameItems:
    """Frames of a command's events for the audiences in ``wanted`` (all when None), encoded once per
    distinct view, not once per connection; an audience missing from the frames reads the event from
    the store. For an audience whose ``view:`` key is in ``wanted`` (sockets that asked for
    ``frames=view``), the last event's frame is also encoded with the audience's view after the
    command (``with_view``), under that key: once per audience, whatever the socket count."""
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
    if wanted and fresh and head.seq == fresh[-1].seq and any(k.startswith(VIEW) for k in wanted):
        per = out[-1][1]
        assert per is not None
        for viewer, label in labelled:
            if VIEW + label in wanted and label in per:
                per[VIEW + label] = with_view(per[label], head.seq, view_body(head, viewer, label))
    return out
