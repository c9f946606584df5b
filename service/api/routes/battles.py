"""Campaign battles fought as linked tactical games (FTC-ARR-8): start one from the campaign."""

from __future__ import annotations

from fastapi import APIRouter, Request

from service.events.linked_battles import LinkedBattles

from ..deps import ViewerDep
from ..jsonresponse import MsgspecResponse

router = APIRouter(prefix="/v1/games", tags=["battles"])


@router.post(
    "/{game_id}/battles/{battle_id}/tactical",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Fight a campaign battle as a linked GSC2 game; its result flows back by itself",
)
async def post_linked_battle(game_id: str, battle_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    linked: LinkedBattles = request.app.state.linked
    started = await linked.start(game_id, battle_id, viewer)
    return MsgspecResponse(started, status_code=201 if started["created"] else 200)


@router.get(
    "/{game_id}/link",
    response_class=MsgspecResponse,
    summary="The campaign battle a tactical game is linked from (campaign null if none)",
)
async def get_link(game_id: str, request: Request, viewer: ViewerDep) -> MsgspecResponse:
    linked: LinkedBattles = request.app.state.linked
    await request.app.state.service.head(game_id)  # 404 for no such game
    link = await linked.link_for(game_id)
    if link is None:  # a plain game: nothing to link back to
        return MsgspecResponse({"game_id": game_id, "campaign": None, "battle": None, "sides": []})
    return MsgspecResponse(
        {"game_id": game_id, "campaign": link.campaign, "battle": link.battle, "sides": list(link.seats)}
    )
