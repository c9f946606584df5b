"""Running the app under uvicorn: our JSON logs, the socket size limit, Salvo's websocket protocol
(``wsprotocol``: live streams leave ASGI once accepted), and a graceful shutdown that closes every live
stream with 1012 and its resume seq before uvicorn drops the connections."""

from __future__ import annotations

import logging
import re
import socket
from typing import Any

import uvicorn
from fastapi import FastAPI

from service.settings import Settings

from . import logs
from .app import close_streams
from .http_protocol import CoalescingHttpToolsProtocol
from .wsprotocol import SalvoWebSocketProtocol

log = logging.getLogger("salvo.server")


def masked(url: str) -> str:
    """A database URL fit for a log line: no password."""
    return re.sub(r"(://[^/:@]*:)[^@/]*@", r"\1***@", url)


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


def uvicorn_config(app: FastAPI, settings: Settings, host: str, port: int, log_level: str,
                   ws: Any = SalvoWebSocketProtocol) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, log_config=None, access_log=False,
        # httptools' C parser (never h11's pure-Python one), writing each response in one piece
        http=CoalescingHttpToolsProtocol,
        # uvicorn's websockets-sansio protocol, plus detaching a live stream from ASGI once accepted
        ws=ws,  # uvicorn takes a class as well as a name
        ws_per_message_deflate=False,
        ws_max_size=settings.max_body_bytes,  # the protocol layer closes a bigger frame with 1009 itself
        # no protocol-level keepalive: its timeout would close a paused reader with 1011 and no resume
        # seq; the stream's own heartbeat and send timeout close it with 1013 once it really falls behind
        ws_ping_interval=None,
    )


def run(app: FastAPI, settings: Settings, host: str, port: int, log_level: str, reuse_port: bool = False) -> None:
    logs.configure(log_level, settings.log_format)
    log.info("Salvo listening", extra={"url": f"http://{host}:{port}/", "database": masked(settings.database_url)})
    config = uvicorn_config(app, settings, host, port, log_level)
    SalvoServer(config, app).run(sockets=[reuse_port_socket(host, port)] if reuse_port else None)
