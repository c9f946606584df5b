"""Play against the computer: seat a bot in a game (the umpire, or the seat's own holder handing it over)."""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter, Request
from starlette.responses import Response

from service.domain.core import Viewer
from service.events.bots import bots_of
from service.events.errors import Forbidden

from ..bodies import decode_body
from ..bot_runner import BotRunner
from ..deps import ServiceDep, ViewerDep
from ..jsonresponse import MsgspecResponse

router = APIRouter(prefix="/v1/games", tags=["bots"])


class SeatBot(msgspec.Struct, forbid_unknown_fields=True):
    seat: str
    bot: str = "rules"


def runner(request: Request) -> BotRunner:
    return request.app.state.bot_runner


def _may_seat(viewer: Viewer, seat_name: str) -> None:
    if not (viewer.is_umpire or (viewer.kind == "seat" and viewer.seat == seat_name)):
        raise Forbidden(f"only the umpire or the holder of seat {seat_name!r} may give it to a bot", field="seat")


async def _listing(request: Request, service: Any, game_id: str) -> dict[str, Any]:
    head = await service.head(game_id)
    bots, stand_ins = bots_of(head.ruleset)
    return {
        "game_id": game_id,
        "available": [{"name": n, "stand_in": n in stand_ins} for n in sorted(bots)],
        "bots": [b.describe() for b in runner(request).listed(game_id)],
    }


@router.post(
    "/{game_id}/bots",
    status_code=201,
    response_class=MsgspecResponse,
    summary='Seat a computer opponent: {seat, bot} (bot: "rules" or "random")',
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SeatBot"}}},
        }
    },
)
async def post_bot(game_id: str, request: Request, viewer: ViewerDep, service: ServiceDep) -> MsgspecResponse:
    body = decode_body(await request.body(), SeatBot)
    _may_seat(viewer, body.seat)
    placed = await runner(request).seat_bot(game_id, body.seat, body.bot, viewer)
    return MsgspecResponse({"game_id": game_id, **placed.describe()}, status_code=201)


@router.get("/{game_id}/bots", response_class=MsgspecResponse, summary="Bots seated in the game, and those on offer")
async def get_bots(game_id: str, request: Request, viewer: ViewerDep, service: ServiceDep) -> MsgspecResponse:
    return MsgspecResponse(await _listing(request, service, game_id))


@router.delete("/{game_id}/bots/{seat}", status_code=204, summary="Take a seat back from its bot")
async def delete_bot(game_id: str, seat: str, request: Request, viewer: ViewerDep, service: ServiceDep) -> Response:
    _may_seat(viewer, seat)
    await service.head(game_id)
    await runner(request).unseat(game_id, seat, viewer)
    return Response(status_code=204)
