"""The server's public battle-file signing keys, for verifiers and for other servers to trust."""

from __future__ import annotations

from fastapi import APIRouter

from ..deps import KeyringDep
from ..jsonresponse import MsgspecResponse

router = APIRouter(tags=["replay"])


@router.get(
    "/.well-known/salvo-keys",
    response_class=MsgspecResponse,
    summary="Public Ed25519 keys that sign this server's battle files (active and retired)",
)
async def get_keys(keyring: KeyringDep) -> MsgspecResponse:
    return MsgspecResponse(keyring.published())
