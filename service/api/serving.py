"""Running the app under uvicorn: our JSON logs, the socket size limit, Salvo's websocket protocol
(``wsprotocol``: live streams leave ASGI once accepted), and a graceful shutdown that closes every live
stream with 1012 and its resume seq before uvicorn drops the connections."""

from __future__ import annotations

import logging
import re
from typing import Any

import uvicorn
from fastapi import FastAPI

from service.settings import Settings

from . import logs
from .app import close_streams
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


def uvicorn_config(app: FastAPI, settings: Settings, host: str, port: int, log_level: str,
                   ws: Any = SalvoWebSocketProtocol) -> uvicorn.Config:
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, log_config=None, access_log=False,
        # uvicorn's websockets-sansio protocol, plus detaching a live stream from ASGI once accepted
        ws=ws,  # uvicorn takes a class as well as a name
        ws_per_message_deflate=False,
        ws_max_size=settings.max_body_bytes,  # the protocol layer closes a bigger frame with 1009 itself
        # no protocol-level keepalive: its timeout would close a paused reader with 1011 and no resume
        # seq; the stream's own heartbeat and send timeout close it with 1013 once it really falls behind
        ws_ping_interval=None,
    )


def run(app: FastAPI, settings: Settings, host: str, port: int, log_level: str) -> None:
    logs.configure(log_level, settings.log_format)
    log.info("Salvo listening", extra={"url": f"http://{host}:{port}/", "database": masked(settings.database_url)})
    SalvoServer(uvicorn_config(app, settings, host, port, log_level), app).run()
