"""Players and notifications in the app (issue 40): their routes, and at start-up the players' store, the
personal keys' place in authentication, the index of watched games and the notifier's worker."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from service.events.players import Players

from .routes import players


def install(app: FastAPI) -> None:
    app.include_router(players.router)


async def start(app: FastAPI, store: Any, service: Any) -> None:
    """On start-up, once the store and the service exist."""
    app.state.players = Players(store.engine)
    service.tokens.personal = app.state.players.viewer_in  # a personal key acts for its player's claim


async def stop(app: FastAPI) -> None:
    """On shutdown, before the store closes."""
