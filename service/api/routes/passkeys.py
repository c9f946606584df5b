"""Passkeys (WebAuthn, issue 40; service/events/passkeys.py): a player binds a passkey with their personal
key, and signs in with it on a device that holds it, getting a new personal key for that device.

The relying party is the host name the page was loaded from (``SALVO_WEBAUTHN_RP_ID`` names another, such
as the parent domain of several hosts), and the answers' origin must be that host's (or one of
``SALVO_WEBAUTHN_ORIGINS``). WebAuthn needs a secure context: https, or http://localhost."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from starlette.responses import Response

from service.events.errors import InvalidRequest, Unauthorized
from service.events.passkeys import ChallengesExhausted, Passkeys

from ..bodies import decode_body
from ..deps import client_address
from ..jsonresponse import MsgspecResponse
from ..player_contract import NewPasskey, NewPasskeyOptions, PasskeyLogin
from ..problems import TooManyRequests
from ..ratelimit import _window
from .players import MAX_LABEL, AuthorizationHeader, player_id

CEREMONIES_PER_ADDRESS = "30/minute"  # options asked for (each a challenge kept five minutes), per address
router = APIRouter(prefix="/v1/players/me/passkeys", tags=["players"])
login_router = APIRouter(prefix="/v1/passkeys", tags=["players"])


def passkeys_of(request: Request) -> Passkeys:
    return request.app.state.passkeys


def relying_party(request: Request) -> tuple[str, list[str]]:
    """(the RP ID, the origins an answer may come from)."""
    settings = request.app.state.settings
    host = request.url.hostname or "localhost"
    rp_id = settings.webauthn_rp_id or host
    origins = list(settings.webauthn_origins)
    if not origins:  # the page's own origin, whether TLS ends here or at a proxy in front
        netloc = request.url.netloc
        origins = [f"https://{netloc}", f"http://{netloc}"]
    return rp_id, origins


def _label(raw: str, default: str) -> str:
    return raw.strip()[:MAX_LABEL] or default


def _ceremony_started(request: Request) -> None:
    """Count one challenge asked for from the caller's address: login options need no identity, so the
    challenges kept are bounded per address as well as in all (passkeys.MAX_LIVE_CHALLENGES)."""
    window = getattr(request.app.state, "passkey_ceremonies", None)
    if window is None:
        window = request.app.state.passkey_ceremonies = _window(CEREMONIES_PER_ADDRESS)
    address, now = client_address(request), time.monotonic()
    if window is not None and not window.hit(address, now):
        raise TooManyRequests(
            f"too many passkey ceremonies from this address (limit {window.item}); retry later",
            window.retry_after(address, now),
        )


def _failed(request: Request) -> None:
    """A ceremony that did not verify counts as a failed authentication from its address."""
    request.app.state.gate.limits.authentication_failed(client_address(request))


@router.post(
    "/options",
    response_class=MsgspecResponse,
    summary="Start binding a passkey: the options for navigator.credentials.create",
)
async def post_passkey_options(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    decode_body(await request.body() or b"{}", NewPasskeyOptions)
    _ceremony_started(request)
    rp_id, _ = relying_party(request)
    try:
        return MsgspecResponse(await passkeys_of(request).registration_options(player, rp_id))
    except ChallengesExhausted as exc:
        raise TooManyRequests(str(exc), 60) from None


@router.post(
    "",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Bind a passkey: the browser's answer to the registration options",
)
async def post_passkey(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    body = decode_body(await request.body(), NewPasskey)
    rp_id, origins = relying_party(request)
    try:
        made = await passkeys_of(request).register(
            player, body.challenge_id, dict(body.credential), rp_id, origins, _label(body.label, "passkey")
        )
    except Unauthorized:
        _failed(request)
        raise
    return MsgspecResponse(made, status_code=201)


@router.get("", response_class=MsgspecResponse, summary="The player's passkeys")
async def get_passkeys(request: Request, authorization: AuthorizationHeader = None) -> MsgspecResponse:
    player = await player_id(request, authorization)
    return MsgspecResponse({"passkeys": await passkeys_of(request).listed(player)})


@router.delete("/{credential_id}", status_code=204, summary="Remove a passkey: it signs in no more")
async def delete_passkey(credential_id: str, request: Request, authorization: AuthorizationHeader = None) -> Response:
    player = await player_id(request, authorization)
    await passkeys_of(request).remove(player, credential_id)
    return Response(status_code=204)


@login_router.post(
    "/login/options",
    response_class=MsgspecResponse,
    summary="Start a passkey sign-in: the options for navigator.credentials.get",
)
async def post_login_options(request: Request) -> MsgspecResponse:
    _ceremony_started(request)
    rp_id, _ = relying_party(request)
    try:
        return MsgspecResponse(await passkeys_of(request).login_options(rp_id))
    except ChallengesExhausted as exc:
        raise TooManyRequests(str(exc), 60) from None


@login_router.post(
    "/login",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Sign in with a passkey: a new personal key for this device, shown once",
)
async def post_login(request: Request) -> MsgspecResponse:
    body = decode_body(await request.body(), PasskeyLogin)
    rp_id, origins = relying_party(request)
    try:
        session = await passkeys_of(request).login(
            body.challenge_id, dict(body.credential), rp_id, origins, _label(body.label, "passkey login")
        )
    except (Unauthorized, InvalidRequest):
        _failed(request)
        raise
    return MsgspecResponse(session, status_code=201)
