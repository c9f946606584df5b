"""Players: personal keys (one per device, shown once, revocable), seats claimed with their tokens, and
"my games" on any device (service/events/players.py). Authenticated by ``Authorization: Bearer pk_…``."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Header, Request
from starlette.responses import Response

from service.events.errors import Unauthorized
from service.events.players import Players, my_games

from ..bodies import decode_body
from ..deps import ServiceDep, bearer, client_address
from ..jsonresponse import MsgspecResponse
from ..player_contract import ClaimSeat, MarkSeen, NewPlayer
from ..problems import TooManyRequests
from ..ratelimit import _window

router = APIRouter(prefix="/v1/players", tags=["players"])
AuthorizationHeader = Annotated[str | None, Header()]
MAX_LABEL = 100


def players_of(request: Request) -> Players:
    return request.app.state.players


async def player_id(request: Request, authorization: str | None) -> str:
    """The caller's player; a failure counts against its address as any failed authentication does."""
    try:
        return await players_of(request).player_of(bearer(authorization))
    except Unauthorized:
        request.app.state.gate.limits.authentication_failed(client_address(request))
        raise


def _label(raw: bytes) -> str:
    label = decode_body(raw or b"{}", NewPlayer).label.strip()[:MAX_LABEL]
    return label or "device"


@router.post(
    "", status_code=201, response_class=MsgspecResponse, summary="Create a player: its first personal key, shown once"
)
async def create_player(request: Request) -> MsgspecResponse:
    window = getattr(request.app.state, "player_creations", None)
    if window is None:
        window = request.app.state.player_creations = _window(request.app.state.settings.rate_players_per_address)
    if window is not None:
        address, now = client_address(request), time.monotonic()
        if not window.hit(address, now):
            raise TooManyRequests(
                f"too many players created from this address (limit {window.item}); retry later",
                window.retry_after(address, now),
            )
    created = await players_of(request).create(_label(await request.body()))
    return MsgspecResponse(created, status_code=201)


@router.get("/me", response_class=MsgspecResponse, summary="The player behind the key, and its keys")
async def get_me(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    return MsgspecResponse({"player_id": player, "keys": await players_of(request).keys(player)})


@router.post(
    "/me/keys",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Another personal key for another device, shown once",
)
async def post_key(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    return MsgspecResponse(await players_of(request).add_key(player, _label(await request.body())), status_code=201)


@router.delete("/me/keys/{key_id}", status_code=204, summary="Revoke a personal key (at once, on every replica)")
async def delete_key(key_id: str, request: Request, authorization: AuthorizationHeader = None) -> Response:
    player = await player_id(request, authorization)
    await players_of(request).revoke(player, key_id)
    return Response(status_code=204)


@router.post(
    "/me/seats",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Claim a seat (or the umpire's place) with its token",
)
async def post_seat(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    body = decode_body(await request.body(), ClaimSeat)
    try:
        claim = await players_of(request).claim(player, body.token)
    except Unauthorized:
        request.app.state.gate.limits.authentication_failed(client_address(request))
        raise
    await players_changed(request)
    return MsgspecResponse(claim, status_code=201)


@router.delete("/me/seats/{game_id}", status_code=204, summary="Give up the player's claims in a game")
async def delete_seat(game_id: str, request: Request, authorization: AuthorizationHeader = None) -> Response:
    player = await player_id(request, authorization)
    await players_of(request).release(player, game_id)
    await players_changed(request)
    return Response(status_code=204)


@router.get(
    "/me/games",
    response_class=MsgspecResponse,
    summary="Every game the player holds a seat in: whose move, must I act and why, what is new",
)
async def get_my_games(
    request: Request, service: ServiceDep, authorization: AuthorizationHeader = None
) -> MsgspecResponse:
    player = await player_id(request, authorization)
    return MsgspecResponse({"player_id": player, "games": await my_games(players_of(request), service, player)})


@router.post(
    "/me/games/{game_id}/seen",
    status_code=204,
    summary="Mark the game seen up to a version (default: now): its unseen count starts again",
)
async def post_seen(
    game_id: str, request: Request, service: ServiceDep, authorization: AuthorizationHeader = None
) -> Response:
    player = await player_id(request, authorization)
    body = decode_body(await request.body() or b"{}", MarkSeen)
    head = await service.current_head(game_id)
    version = head.seq if body.version is None else max(0, min(body.version, head.seq))
    await players_of(request).mark_seen(player, game_id, version)
    return Response(status_code=204)


async def players_changed(request: Request) -> None:
    """A claim came or went: the notifications' index of watched games follows."""
    watchers = getattr(request.app.state, "watchers", None)
    if watchers is not None:
        await watchers.refresh()
