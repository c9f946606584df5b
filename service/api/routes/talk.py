"""Table talk (issue 39, docs/table-talk.md): messages in the game's log with an audience, and the
spectators' channel beside it (never in the log)."""

from __future__ import annotations

import time
from typing import Annotated

import msgspec
from fastapi import APIRouter, Query, Request

from service.events import table_talk
from service.events.errors import Forbidden, InvalidRequest
from service.events.inputs import INT64_MAX
from service.events.rows import now_iso
from service.events.table_events import MAX_MESSAGE_CHARS

from ..bodies import decode_body
from ..contract import SpectatorMessage
from ..deps import ServiceDep, ViewerDep, client_address
from ..jsonresponse import MsgspecResponse
from ..problems import TooManyRequests
from ..ratelimit import FixedWindow, _window
from ..spectator_chat import MAX_NAME_CHARS, SpectatorChat

router = APIRouter(prefix="/v1/games", tags=["talk"])


class PostMessage(msgspec.Struct, forbid_unknown_fields=True):
    """A message to the table: ``to`` all (everyone, spectators included), umpire, side:<side> or
    seat:<seat>; at most 500 characters."""

    text: str
    to: str = "all"


class Message(msgspec.Struct):
    """One message as its reader sees it: ``seq`` is its place in the game's log."""

    seq: int
    sender: str
    to: str
    text: str
    recorded_at: str


class MessageList(msgspec.Struct):
    """The messages the caller may read, oldest first."""

    messages: list[Message]


class PostSpectatorMessage(msgspec.Struct, forbid_unknown_fields=True):
    """A message in the spectators' channel (no token: spectators only), under an optional name."""

    text: str
    name: str = "spectator"


class SpectatorMessageList(msgspec.Struct):
    """The spectators' channel, oldest first (the latest 200 this server keeps)."""

    messages: list[SpectatorMessage]


class TalkLimits:
    """Messages per token (keyed by game and seat: a token opens one seat of one game) and spectators'
    messages per client address."""

    def __init__(self, per_token: str, per_address: str) -> None:
        self.per_token = _window(per_token)
        self.per_address = _window(per_address)

    def hit(self, window: FixedWindow | None, key: str, what: str) -> None:
        now = time.monotonic()
        if window is not None and not window.hit(key, now):
            raise TooManyRequests(f"too many {what} (limit {window.item}); retry later", window.retry_after(key, now))


def limits(request: Request) -> TalkLimits:
    return request.app.state.talk_limits


def spectator_chat(request: Request) -> SpectatorChat:
    return request.app.state.spectator_chat


AFTER = Annotated[int, Query(ge=0, le=INT64_MAX, description="only messages after this seq (or id)")]


@router.post(
    "/{game_id}/messages",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Say something at the table: {to, text} (a seat or the umpire)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PostMessage"}}},
        }
    },
)
async def post_message(game_id: str, request: Request, viewer: ViewerDep, service: ServiceDep) -> MsgspecResponse:
    body = decode_body(await request.body(), PostMessage)
    if viewer.kind == "spectator":
        raise Forbidden("spectators talk in the spectators' channel: POST …/spectator-messages", field="to")
    limits(request).hit(limits(request).per_token, f"{game_id}/{viewer.label}", "messages for this token")
    said = await table_talk.post(service, game_id, viewer, body.to, body.text)
    return MsgspecResponse(said, status_code=201)


@router.get(
    "/{game_id}/messages",
    response_class=MsgspecResponse,
    summary="The table talk the caller may read (a seat: to all, its side, itself; a spectator: to all)",
)
async def get_messages(game_id: str, viewer: ViewerDep, service: ServiceDep, after: AFTER = 0) -> MsgspecResponse:
    return MsgspecResponse({"messages": await table_talk.read(service, game_id, viewer, after)})


@router.post(
    "/{game_id}/spectator-messages",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Say something in the spectators' channel (spectators only; never in the game's log)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PostSpectatorMessage"}}},
        }
    },
)
async def post_spectator_message(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    body = decode_body(await request.body(), PostSpectatorMessage)
    if viewer.kind != "spectator":
        raise Forbidden(
            "the spectators' channel is for spectators (send no token); the table talks at POST …/messages",
            field="text",
        )
    text = table_talk.clean_text(body.text, MAX_MESSAGE_CHARS)
    name = " ".join(body.name.split())[:MAX_NAME_CHARS] or "spectator"
    if any(not c.isprintable() for c in name):
        raise InvalidRequest("a name holds printable characters only", field="name")
    limits(request).hit(limits(request).per_address, client_address(request), "spectator messages from this address")
    posted = spectator_chat(request).post(game_id, name, text, now_iso())
    return MsgspecResponse(posted, status_code=201)


@router.get(
    "/{game_id}/spectator-messages",
    response_class=MsgspecResponse,
    summary="The spectators' channel (spectators and the umpire; a seat may not read it)",
)
async def get_spectator_messages(
    game_id: str, request: Request, viewer: ViewerDep, after: AFTER = 0
) -> MsgspecResponse:
    if viewer.kind == "seat":
        raise Forbidden("players do not read the spectators' channel (no advice from the gallery)")
    return MsgspecResponse({"messages": spectator_chat(request).read(game_id, after)})
