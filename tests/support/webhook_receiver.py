"""A local webhook receiver for notification tests: an HTTP server in a thread that keeps every request
(headers and body), answers 200 by default, and can be told to answer otherwise or to hold requests."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Received:
    def __init__(self, path: str, headers: dict[str, str], body: bytes) -> None:
        self.path = path
        self.headers = headers
        self.body = body

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def signed_by(self, secret: str) -> bool:
        """The X-Salvo-Signature check a receiver makes: HMAC-SHA256 of "<timestamp>." + body."""
        timestamp = self.headers["x-salvo-timestamp"]
        mac = hmac.new(secret.encode(), timestamp.encode() + b"." + self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(self.headers["x-salvo-signature"], "sha256=" + mac)


class Receiver:
    def __init__(self, port: int = 0) -> None:
        self.received: list[Received] = []
        self.status = 200
        self.extra_headers: dict[str, str] = {}
        self.hold = threading.Event()  # while set, requests are held unanswered (after being recorded)
        self.release = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if receiver.hold.is_set():
                    receiver.release.wait(30)
                self.send_response(receiver.status)
                for name, value in receiver.extra_headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def requests(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def wait_for(self, count: int, within: float = 10.0) -> list[Received]:
        """The first ``count`` requests, waiting for them (a bound on waiting, not a speed assertion)."""
        deadline = time.monotonic() + within
        while len(self.requests()) < count:
            assert time.monotonic() < deadline, f"{len(self.requests())} of {count} requests received"
            time.sleep(0.02)
        return self.requests()

    async def arrived(self, count: int, within: float = 10.0) -> list[Received]:
        """``wait_for`` for a test on the event loop the app runs on (the notifier must keep running)."""
        import asyncio

        deadline = time.monotonic() + within
        while len(self.requests()) < count:
            assert time.monotonic() < deadline, f"{len(self.requests())} of {count} requests received"
            await asyncio.sleep(0.02)
        return self.requests()
