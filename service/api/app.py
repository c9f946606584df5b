"""The FastAPI application factory. Nothing happens at import time; create_app wires the layers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from starlette.responses import Response

from service.events.application import GameService
from service.events.deadlines import Deadlines
from service.events.linked_battles import LinkedBattles
from service.events.reading import GameReader
from service.events.signing import load_keyring
from service.events.store import SqlEventStore
from service.settings import Settings

from . import allowed, docs, openapi_schema, player_wiring, problems, static_files
from .bot_runner import BotRunner
from .broadcast import Broadcaster, InProcessBroadcaster
from .encoding import live_frames
from .fast import command_endpoint
from .fast.command_endpoint import SalvoApp
from .fast.rawsocket import RawSocketMiddleware
from .gate import Gate
from .logs import RequestContext
from .metrics import CONTENT_TYPE_LATEST, Metrics
from .ratelimit import RateLimits
from .readiness import readiness
from .routes import battles, bots, deadlines, games, keys, problem_pages, replay, rulesets, stream, talk
from .security import SecurityHeaders, install_cors
from .spectator_chat import SpectatorChat
from .umpire_automation import UmpireAutomation

WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"


def make_broadcaster(settings: Settings) -> Broadcaster:
    if settings.redis_url:
        from .redis_broadcast import RedisBroadcaster

        return RedisBroadcaster(
            settings.redis_url, buffer_limit=settings.ws_buffer_limit, subscribe=settings.redis_subscribe
        )
    return InProcessBroadcaster(settings.ws_buffer_limit)


async def close_streams(app: FastAPI, wait: float = 2.0) -> None:
    """Graceful shutdown, before the server drops connections: every stream closes with 1012 and its
    resume seq; waits (a little) until they have."""
    broadcaster = getattr(app.state, "broadcaster", None)
    if broadcaster is None or not broadcaster.restart_all():
        return
    deadline = asyncio.get_running_loop().time() + wait
    while broadcaster.open_streams() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)


def _wire_replicas(broadcaster: Broadcaster, service: GameService, store: SqlEventStore) -> None:
    """How this replica hears of the others' appends: through Redis (a cached head refolded, the stored
    head checked after each SUBSCRIBE and, while the subscription is lost, the log polled), or, with no
    fan-out between replicas, by polling the log."""
    if isinstance(broadcaster, InProcessBroadcaster) and hasattr(broadcaster, "on_remote"):
        broadcaster.on_remote = service.note_remote_append
        broadcaster.head_of = store.head  # type: ignore[attr-defined]  # the check after each SUBSCRIBE
        # a lost subscription: reads check the stored head, the log is polled for the sockets
        broadcaster.heads, broadcaster.heads_of = service.heads, store.heads  # type: ignore[attr-defined]
    elif isinstance(broadcaster, InProcessBroadcaster):
        broadcaster.poll_log(store.heads)  # no fan-out between replicas: their appends found in the log


def _watch_fanout(metrics: Metrics, broadcaster: Broadcaster) -> None:
    """The fast path's sockets and fan-out counters in /metrics (a broadcaster with a fan-out)."""
    if getattr(broadcaster, "fanout", None) is not None:  # read at each scrape: a restart replaces it
        metrics.direct_sockets.set_function(lambda: broadcaster.fanout.count())  # type: ignore[attr-defined]
        metrics.watch_fanout(lambda: broadcaster.fanout.counters())  # type: ignore[attr-defined]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = SqlEventStore(settings.database_url)
        store.start()
        app.state.keyring = load_keyring(store.engine, settings.signing_key_file, settings.trusted_keys_file)
        broadcaster = make_broadcaster(settings)
        service = GameService(
            store,
            settings.snapshot_every,
            publish=broadcaster.publish,
            listening=broadcaster.listening,
            frames=live_frames,  # the events' values, encoded here (once per audience)
            head_cache_size=settings.head_cache_size,
            token_cache_size=settings.token_cache_size,
            head_cache_bytes=settings.head_cache_bytes,
            max_game_bytes=settings.max_game_bytes,
            # without every game's notices from Redis a cached head checks the store
            verify_reads=settings.redis_url is None or settings.redis_subscribe != "all",
        )
        _wire_replicas(broadcaster, service, store)
        await broadcaster.start()
        metrics.watch(service)
        if settings.fast_path:
            _watch_fanout(metrics, broadcaster)
        app.state.store = store
        app.state.service = service
        app.state.reader = GameReader(service)
        app.state.broadcaster = broadcaster
        app.state.gate = Gate(service, RateLimits(settings), metrics)
        app.state.bot_runner = BotRunner(
            service, app.state.reader, broadcaster, settings.heartbeat_seconds, app.state.gate
        )
        app.state.linked = LinkedBattles(service)
        # linked battles that ended while the service was down: settled in the background, so a start never
        # waits on (or fails with) a game's head; each unsettled battle loads only its own heads
        reconciling = asyncio.get_running_loop().create_task(app.state.linked.reconcile())
        await app.state.bot_runner.resume()  # bot seats the logs hold (docs/bots.md)
        app.state.deadlines = Deadlines(service, store.engine)  # issue 39: durable timers beside the log
        app.state.deadlines.start(settings.deadline_tick_seconds)
        # a campaign's routine umpire duties, where its options delegate them (issue 39)
        app.state.umpire = UmpireAutomation(service, app.state.linked, app.state.bot_runner, app.state.deadlines)
        resuming = asyncio.get_running_loop().create_task(app.state.umpire.resume())
        await player_wiring.start(app, store, service)  # players, notifications (issue 40)
        try:
            yield
        finally:
            reconciling.cancel()
            resuming.cancel()
            await app.state.deadlines.close()
            await player_wiring.stop(app)
            await close_streams(app)
            await app.state.bot_runner.close()
            await broadcaster.close()
            store.close()

    # SALVO_FAST_PATH=off: FastAPI itself, no lean POST /commands ahead of its router
    app = (SalvoApp if settings.fast_path else FastAPI)(
        title="Salvo",
        version="0.1.0",
        description="Event-sourced referee service for tabletop space-combat games.",
        lifespan=lifespan,
        docs_url=None,  # served by docs.install from the pinned package, not a CDN
        redoc_url=None,
        # no OpenTelemetry here (nothing configures a provider); off, FastAPI skips its per-request check
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.metrics = metrics
    problems.install(app)
    app.add_exception_handler(405, allowed.method_not_allowed)  # with the Allow header
    app.include_router(rulesets.router)
    app.include_router(replay.router)
    app.include_router(keys.router)
    app.include_router(games.router)
    app.include_router(bots.router)
    app.include_router(deadlines.router)  # deadlines (issue 39)
    app.include_router(talk.router)  # table talk and the spectators' channel (issue 39)
    app.state.talk_limits = talk.TalkLimits(
        settings.rate_messages_per_token, settings.rate_spectator_messages_per_address
    )
    app.state.spectator_chat = SpectatorChat()
    player_wiring.install(app)  # players and notifications (issue 40)
    app.include_router(battles.router)
    app.include_router(stream.router)
    app.include_router(problem_pages.router)  # the pages behind every problem's `type`
    if settings.fast_path:
        command_endpoint.install(app.router)  # POST /commands without the dependency machinery
    openapi_schema.install(app)
    docs.install(app)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> Response:
        return Response('{"ok":true}', media_type="application/json")

    @app.get("/readyz", include_in_schema=False)
    async def readyz() -> Response:
        return await readiness(app)

    @app.get("/metrics", include_in_schema=False)
    async def metrics_page() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    if (WEB_ROOT / "index.html").exists():
        static_files.install(app, WEB_ROOT)  # the page: versioned URLs cached a year, revalidated, gzipped

    app.add_middleware(
        problems.BodyLimit, limit=settings.max_body_bytes, large={"/v1/games/import": settings.max_import_bytes}
    )
    install_cors(app, settings)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(RequestContext, metrics=metrics)
    if settings.fast_path:  # the pre-framed fan-out's way to a websocket's transport
        app.add_middleware(RawSocketMiddleware)  # outermost: it needs the server's own send
    return app
