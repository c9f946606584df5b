"""Players and notifications in the app (issue 40): their routes, and at start-up the players' store, the
personal keys' place in authentication, the index of watched games and the notifier's worker."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI

from service.events.outbox import Outbox
from service.events.passkeys import Passkeys
from service.events.players import Players
from service.events.push_keys import load_or_make
from service.events.subscriptions import Subscriptions
from service.events.watchers import Watchers

from .notifier import Notifier
from .routes import passkeys, players, subscriptions
from .web_push import PushSender
from .webhooks import AllowList


def install(app: FastAPI) -> None:
    app.include_router(players.router)
    app.include_router(subscriptions.router)
    app.include_router(subscriptions.push_router)
    app.include_router(passkeys.router)
    app.include_router(passkeys.login_router)
    app.state.webhook_allow = AllowList.parse(app.state.settings.webhook_allow)


async def start(app: FastAPI, store: Any, service: Any) -> None:
    """On start-up, once the store and the service exist."""
    settings = app.state.settings
    app.state.players = Players(store.engine)
    service.tokens.personal = app.state.players.viewer_in  # a personal key acts for its player's claim
    app.state.passkeys = Passkeys(store.engine, app.state.players)
    app.state.subscriptions = Subscriptions(store.engine)
    watchers = app.state.watchers = Watchers(store.engine)
    await watchers.refresh()
    service.commands.writer.notices = watchers  # commands of watched games write their notifications
    private_key, public_key = await asyncio.get_running_loop().run_in_executor(None, load_or_make, store.engine)
    app.state.push = PushSender(private_key, public_key, settings.vapid_subject)
    notifier = app.state.notifier = Notifier(
        Outbox(store.engine),
        watchers,
        app.state.webhook_allow,
        settings.webhook_timeout,
        settings.notify_poll_seconds,
        app.state.push,
    )
    watchers.wake = notifier.wake
    notifier.start()


async def stop(app: FastAPI) -> None:
    """On shutdown, before the store closes."""
    notifier = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.close()
