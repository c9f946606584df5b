"""The wire forms of what the events layer returns: a command's HTTP body, the websocket messages of its
events (``live_frames``, the ``Framer`` the service is given) and a viewer's view after an update.

The events layer hands over values (``CommandResult``: the version and the envelopes the commanding
viewer sees; ``FreshEvent``s with their envelopes encoded once per distinct view); these functions only
join those bytes, so each message is built once per audience, never once per socket, and the commanding
seat's answer carries the very envelope bytes its frame does."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.guards import full_view
from service.events.decide_append import CommandResult
from service.events.fresh import FrameItems, FreshEvent, labelled_audiences
from service.events.head import GameHead

_encoder = msgspec.json.Encoder()


def command_body(result: CommandResult) -> bytes:
    """A command's answer: as stored (an idempotent replay, or a keyed command's record: the same bytes),
    else ``{"version": N, "events": [...]}`` of its envelopes."""
    body = result.body
    return body if body is not None else result_body(result.version, result.events)  # type: ignore[arg-type]


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
        last = out[-1][1]
        assert last is not None
        for viewer, label in labelled:
            if VIEW + label in wanted and label in last:
                last[VIEW + label] = with_view(last[label], head.seq, view_body(head, viewer, label))
    return out
