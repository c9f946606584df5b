"""Dependency aliases: handlers declare what they need, nothing more."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from service.domain.core import Viewer
from service.events.application import GameService
from service.events.reading import GameReader
from service.events.signing import Keyring
from service.settings import Settings

from .broadcast import Broadcaster
from .gate import Gate


def get_service(request: Request) -> GameService:
    return request.app.state.service


def get_reader(request: Request) -> GameReader:
    return request.app.state.reader


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_keyring(request: Request) -> Keyring:
    return request.app.state.keyring


def get_broadcaster(request: Request) -> Broadcaster:
    return request.app.state.broadcaster


def get_gate(request: Request) -> Gate:
    return request.app.state.gate


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


async def get_viewer(game_id: str, request: Request, authorization: Annotated[str | None, Header()] = None) -> Viewer:
    gate: Gate = request.app.state.gate
    return await gate.viewer(game_id, bearer(authorization), client_address(request))


ServiceDep = Annotated[GameService, Depends(get_service)]
ReaderDep = Annotated[GameReader, Depends(get_reader)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
KeyringDep = Annotated[Keyring, Depends(get_keyring)]
BroadcasterDep = Annotated[Broadcaster, Depends(get_broadcaster)]
ViewerDep = Annotated[Viewer, Depends(get_viewer)]
GateDep = Annotated[Gate, Depends(get_gate)]
