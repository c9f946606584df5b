"""The FastAPI application factory. Nothing happens at import time; create_app wires the layers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import FileResponse, Response

from service.events.application import GameService
from service.events.reading import GameReader
from service.events.signing import load_keyring
from service.events.store import SqlEventStore
from service.settings import Settings

from . import openapi_schema, problems
from .broadcast import Broadcaster, InProcessBroadcaster
from .routes import games, keys, replay, rulesets, stream

WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"


def make_broadcaster(settings: Settings) -> Broadcaster:
    if settings.redis_url:
        from .redis_broadcast import RedisBroadcaster

        return RedisBroadcaster(settings.redis_url)
    return InProcessBroadcaster()


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = SqlEventStore(settings.database_url)
        store.start()
        app.state.keyring = load_keyring(store.engine, settings.signing_key_file, settings.trusted_keys_file)
        broadcaster = make_broadcaster(settings)
        service = GameService(store, settings.snapshot_every, publish=broadcaster.publish,
                              listening=broadcaster.listening)
        if isinstance(broadcaster, InProcessBroadcaster) and hasattr(broadcaster, "on_remote"):
            broadcaster.on_remote = service.note_remote_append
        await broadcaster.start()
        app.state.store = store
        app.state.service = service
        app.state.reader = GameReader(service)
        app.state.broadcaster = broadcaster
        try:
            yield
        finally:
            await broadcaster.close()
            store.close()

    app = FastAPI(
        title="Salvo",
        version="0.1.0",
        description="Event-sourced referee service for tabletop space-combat games.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    problems.install(app)
    app.include_router(rulesets.router)
    app.include_router(replay.router)
    app.include_router(keys.router)
    app.include_router(games.router)
    app.include_router(stream.router)
    openapi_schema.install(app)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> Response:
        return Response('{"ok":true}', media_type="application/json")

    if (WEB_ROOT / "index.html").exists():
        app.mount("/static", StaticFiles(directory=WEB_ROOT), name="static")

        @app.get("/", include_in_schema=False)
        async def index() -> FileResponse:
            return FileResponse(WEB_ROOT / "index.html")

    app.add_middleware(problems.BodyLimit, limit=settings.max_body_bytes,
                       large={"/v1/games/import": settings.max_import_bytes})
    return app
