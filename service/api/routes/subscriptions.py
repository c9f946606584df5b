"""A player's webhook subscriptions (issue 40): "your turn", "game over", "rewound" told to a URL, signed.
The URL is checked when the subscription is made (service/api/webhooks.py): a target that is not public
is refused unless the operator's allow-list names it."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from service.events.subscriptions import Subscriptions

from ..bodies import decode_body
from ..jsonresponse import MsgspecResponse
from ..player_contract import NewSubscription
from ..webhooks import check_target
from .players import AuthorizationHeader, player_id

router = APIRouter(prefix="/v1/players/me/subscriptions", tags=["players"])
push_router = APIRouter(prefix="/v1/push", tags=["players"])


def subscriptions_of(request: Request) -> Subscriptions:
    return request.app.state.subscriptions


async def _changed(request: Request) -> None:
    await request.app.state.watchers.refresh()


@router.post(
    "",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Subscribe a webhook to the player's games; its signing secret is shown once",
)
async def post_subscription(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    body = decode_body(await request.body(), NewSubscription)
    await check_target(body.url, request.app.state.webhook_allow)  # 422 naming url: not a target we call
    keys = {"p256dh": body.keys.p256dh, "auth": body.keys.auth} if body.keys is not None else None
    made = await subscriptions_of(request).create(player, body.kind, body.url, body.game_id, body.seat, keys)
    await _changed(request)
    return MsgspecResponse(made, status_code=201)


@router.get("", response_class=MsgspecResponse, summary="The player's subscriptions (paused ones say why)")
async def get_subscriptions(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    return MsgspecResponse({"subscriptions": await subscriptions_of(request).listed(player)})


@router.delete("/{subscription_id}", status_code=204, summary="Remove a subscription and its undelivered notifications")
async def delete_subscription(
    subscription_id: str, request: Request, authorization: AuthorizationHeader = None
) -> Response:
    player = await player_id(request, authorization)
    await subscriptions_of(request).delete(player, subscription_id)
    await _changed(request)
    return Response(status_code=204)


@router.post(
    "/{subscription_id}/resume",
    response_class=MsgspecResponse,
    summary="Resume a paused subscription: what waited is delivered",
)
async def resume_subscription(
    subscription_id: str, request: Request, authorization: AuthorizationHeader = None
) -> MsgspecResponse:
    player = await player_id(request, authorization)
    resumed = await subscriptions_of(request).resume(player, subscription_id)
    await _changed(request)
    request.app.state.notifier.wake()
    return MsgspecResponse(resumed)


@push_router.get(
    "/key",
    response_class=MsgspecResponse,
    summary="The server's VAPID public key: a page's applicationServerKey for Web Push",
)
async def get_push_key(request: Request) -> MsgspecResponse:
    return MsgspecResponse({"public_key": request.app.state.push.public_key})
