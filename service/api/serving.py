"""Running the app under uvicorn: our JSON logs, the socket size limit, Salvo's websocket protocol
(``wsprotocol``: live streams leave ASGI once accepted), and a graceful shutdown that closes every live
stream with 1012 and its resume seq before uvicorn drops the connections; the connection limits
(``ConnectionLimits``: header-read and idle timeouts, header size, open connections) and whose
X-Forwarded-For is believed (``FORWARDED_ALLOW_IPS``).

With SALVO_FAST_PATH=off (``Settings.fast_path``) uvicorn runs its own protocols, named, as any FastAPI
app would: httptools and websockets-sansio. Salvo's header timeout and header size limit live in its
HTTP protocol, so that path has neither (a proxy in front must bound slow clients); its connection limit
is uvicorn's ``limit_concurrency``, which answers 503 rather than closing."""

from __future__ import annotations

import logging
import os
import re
import resource
import socket
from dataclasses import asdict
from typing import Any

import uvicorn
from fastapi import FastAPI

from service.settings import Settings

from . import logs
from .app import close_streams
from .fast.http_protocol import CoalescingHttpToolsProtocol, ConnectionLimits
from .fast.wsprotocol import SalvoWebSocketProtocol

log = logging.getLogger("salvo.server")


def masked(url: str) -> str:
    """A database URL fit for a log line: no password."""
    return re.sub(r"(://[^/:@]*:)[^@/]*@", r"\1***@", url)


# descriptors kept free of client connections: the database pool, Redis, log files, the listening socket
RESERVED_DESCRIPTORS = 256


def connection_limits(**overrides: object) -> ConnectionLimits:
    """From SALVO_HEADER_TIMEOUT, SALVO_MAX_HEADER_BYTES, SALVO_MAX_CONNECTIONS and SALVO_KEEP_ALIVE_TIMEOUT
    (``salvo serve``'s options override them). SALVO_MAX_CONNECTIONS defaults to this process's descriptor
    limit less RESERVED_DESCRIPTORS: past it, connections would fail the database's and the sockets' own."""
    env = os.environ.get
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    by_limit = None if nofile == resource.RLIM_INFINITY else max(64, nofile - RESERVED_DESCRIPTORS)
    given = env("SALVO_MAX_CONNECTIONS")
    values: dict[str, object] = {
        "header_timeout": float(env("SALVO_HEADER_TIMEOUT", str(ConnectionLimits.header_timeout))),
        "max_header_bytes": int(env("SALVO_MAX_HEADER_BYTES", str(ConnectionLimits.max_header_bytes))),
        "max_connections": by_limit if not given else None if given == "off" else int(given),
        "keep_alive_timeout": int(env("SALVO_KEEP_ALIVE_TIMEOUT", str(ConnectionLimits.keep_alive_timeout))),
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    if values["max_connections"] == 0:  # --max-connections 0: no limit
        values["max_connections"] = None
    return ConnectionLimits(**values)  # type: ignore[arg-type]


class SalvoServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.salvo_app = app

    async def shutdown(self, sockets: Any = None) -> None:
        await close_streams(self.salvo_app)  # 1012 "resume after=N" first; uvicorn's own close has no seq
        await super().shutdown(sockets)


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A listening socket bound with SO_REUSEPORT: every process that binds the same port this way gets
    its own accept queue and the kernel spreads new connections across them (bench/topology.py)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def uvicorn_config(
    app: FastAPI,
    settings: Settings,
    host: str,
    port: int,
    log_level: str,
    ws: Any = None,
    limits: ConnectionLimits | None = None,
    forwarded_allow_ips: str | None = None,
) -> uvicorn.Config:
    """``forwarded_allow_ips``: the addresses (or networks) whose X-Forwarded-For is believed; None:
    uvicorn's FORWARDED_ALLOW_IPS, else 127.0.0.1. Never "*" behind a proxy others can reach around.
    ``ws``: the websocket protocol (a class or uvicorn's name); None: the one ``settings.fast_path`` picks."""
    limits = limits or connection_limits()
    fast = settings.fast_path
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=None,
        access_log=False,
        forwarded_allow_ips=forwarded_allow_ips,
        timeout_keep_alive=limits.keep_alive_timeout,
        # httptools' C parser (never h11's pure-Python one); fast: writing each response in one piece,
        # the direct POST /commands and the connection limits (plain: uvicorn's limit_concurrency only)
        http=CoalescingHttpToolsProtocol if fast else "httptools",
        limit_concurrency=None if fast else limits.max_connections,
        # uvicorn's websockets-sansio protocol; fast: plus detaching a live stream from ASGI once accepted
        ws=ws or (SalvoWebSocketProtocol if fast else "websockets-sansio"),  # a class or a name
        ws_per_message_deflate=False,
        ws_max_size=settings.max_body_bytes,  # the protocol layer closes a bigger frame with 1009 itself
        # no protocol-level keepalive: its timeout would close a paused reader with 1011 and no resume
        # seq; the stream's own heartbeat and send timeout close it with 1013 once it really falls behind
        ws_ping_interval=None,
    )
    config.salvo_limits = limits  # type: ignore[attr-defined]  # read by CoalescingHttpToolsProtocol
    return config


def run(
    app: FastAPI,
    settings: Settings,
    host: str,
    port: int,
    log_level: str,
    reuse_port: bool = False,
    limits: ConnectionLimits | None = None,
    forwarded_allow_ips: str | None = None,
) -> None:
    handler = logs.configure(log_level, settings.log_format)
    limits = limits or connection_limits()
    # the start-up line, in the log's own format, whatever the level (a warning-level log shows it too)
    handler.handle(
        log.makeRecord(
            log.name,
            logging.INFO,
            __file__,
            0,
            "Salvo on %s (API docs at /docs)",
            (f"http://{host}:{port}/",),
            None,
            extra={"database": masked(settings.database_url), "limits": asdict(limits)},
        )
    )
    if not settings.fast_path:
        log.warning(
            "SALVO_FAST_PATH=off: uvicorn's own protocols; no header timeout or header size limit "
            "(bound slow clients in the proxy), connections past the limit answered 503"
        )
    config = uvicorn_config(
        app, settings, host, port, log_level, limits=limits, forwarded_allow_ips=forwarded_allow_ips
    )
    SalvoServer(config, app).run(sockets=[reuse_port_socket(host, port)] if reuse_port else None)
