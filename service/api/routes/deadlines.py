"""Deadlines and chess-style clocks (issue 39, docs/deadlines.md): read the game's, and the umpire changes them."""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter, Request

from service.events.deadlines import Deadlines
from service.events.inputs import decode_json

from ..deps import ViewerDep
from ..jsonresponse import MsgspecResponse

router = APIRouter(prefix="/v1/games", tags=["deadlines"])


class DeadlineRequest(msgspec.Struct, forbid_unknown_fields=True):
    """``seconds`` from the start of each ``per`` (phase or turn; null: no deadlines), then ``command``
    (default: the ruleset's force-phase command, or the campaign's close of the week) as the umpire."""

    per: str | None
    seconds: int = 0
    command: dict[str, Any] = {}


class ClockRequest(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``seconds`` in each seat's bank (every bank full from now; null: no clocks), ``increment`` seconds
    back each time a seat stops being awaited, ``command`` (default: the ruleset's force-phase command)
    appended as the umpire when a bank runs out; or ``left`` alone: seats given another time left (s)."""

    seconds: int | None | msgspec.UnsetType = msgspec.UNSET
    increment: int | msgspec.UnsetType = msgspec.UNSET
    command: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    left: dict[str, float] = {}


def deadlines(request: Request) -> Deadlines | None:
    return getattr(request.app.state, "deadlines", None)


async def deadline_of(request: Request, game_id: str) -> dict[str, Any] | None:
    scheduler = deadlines(request)
    return None if scheduler is None else await scheduler.view(game_id)


async def clock_of(request: Request, game_id: str) -> dict[str, Any] | None:
    scheduler = deadlines(request)
    return None if scheduler is None else await scheduler.clocks.view(game_id)


@router.get("/{game_id}/deadline", response_class=MsgspecResponse, summary="The game's deadline and the time left")
async def get_deadline(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    deadline, clock = await deadline_of(request, game_id), await clock_of(request, game_id)
    return MsgspecResponse({"game_id": game_id, "deadline": deadline, "clock": clock})


@router.put(
    "/{game_id}/deadline",
    response_class=MsgspecResponse,
    summary="The umpire sets the game's deadlines from now ({per: null} removes them)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeadlineRequest"}}},
        }
    },
)
async def put_deadline(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    body = decode_json(await request.body(), DeadlineRequest)
    scheduler = deadlines(request)
    assert scheduler is not None, "the app starts the deadline scheduler"
    changed = await scheduler.change(game_id, viewer, msgspec.to_builtins(body))
    return MsgspecResponse({"game_id": game_id, "deadline": changed})


@router.get("/{game_id}/clock", response_class=MsgspecResponse, summary="The game's clocks: each seat's time left")
async def get_clock(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    return MsgspecResponse({"game_id": game_id, "clock": await clock_of(request, game_id)})


@router.put(
    "/{game_id}/clock",
    response_class=MsgspecResponse,
    summary="The umpire sets the game's clocks ({seconds: null} removes them; {left: {seat: s}} gives time)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ClockRequest"}}},
        }
    },
)
async def put_clock(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    body = decode_json(await request.body(), ClockRequest)
    scheduler = deadlines(request)
    assert scheduler is not None, "the app starts the deadline scheduler"
    changed = await scheduler.clocks.change(game_id, viewer, msgspec.to_builtins(body))
    return MsgspecResponse({"game_id": game_id, "clock": changed})
