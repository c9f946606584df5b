"""Webhook targets cannot be turned against the host (issue 40): only http(s) targets whose every resolved
address is public, unless the operator's allow-list names them; refused targets are never connected to;
redirects are not followed; a slow or oversized answer is a failed delivery."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import httpx
import pytest

from service.api import webhooks
from service.api.app import create_app
from service.api.webhooks import AllowList, DeliveryFailed, TargetRefused, check_target, post
from service.settings import Settings
from tests.api.helpers import bearer, new_game
from tests.support.webhook_receiver import Receiver

REFUSED = [
    "http://127.0.0.1/hook",
    "http://10.0.0.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://localhost:8080/hook",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://0.0.0.0/hook",
    "https://192.168.1.10/hook",
    "http://100.64.0.1/hook",
]
NO_ALLOW = AllowList.parse([])


@pytest.fixture
def no_connections(monkeypatch) -> list[Any]:
    """Any connection attempt is recorded and fails: a refused target must make none."""
    attempts: list[Any] = []

    async def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise AssertionError(f"connected to {args}")

    monkeypatch.setattr(asyncio, "open_connection", refuse)
    return attempts


@pytest.mark.parametrize("url", REFUSED)
async def test_private_loopback_and_link_local_targets_are_refused_without_a_connection(url, no_connections):
    with pytest.raises(TargetRefused) as refused:
        await check_target(url, NO_ALLOW)
    assert refused.value.field == "url" and "SALVO_WEBHOOK_ALLOW" in refused.value.detail
    assert no_connections == []


async def test_a_name_resolving_to_loopback_is_refused(no_connections, monkeypatch):
    async def resolve(self: Any, host: str, port: int, **kwargs: Any) -> list[Any]:
        assert host == "hooks.example.test"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(type(asyncio.get_running_loop()), "getaddrinfo", resolve)
    with pytest.raises(TargetRefused, match="127.0.0.1"):
        await check_target("https://hooks.example.test/x", NO_ALLOW)
    assert no_connections == []


async def test_a_name_with_one_private_address_among_public_ones_is_refused(monkeypatch):
    async def resolve(self: Any, host: str, port: int, **kwargs: Any) -> list[Any]:
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port)),
        ]

    monkeypatch.setattr(type(asyncio.get_running_loop()), "getaddrinfo", resolve)
    with pytest.raises(TargetRefused, match="10.1.2.3"):
        await check_target("https://mixed.example.test/", NO_ALLOW)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "file:///etc/passwd",
        "http://user:pw@example.com/",
        "gopher://127.0.0.1/",
        "http:///nohost",
        "http://exa mple.com/",
    ],
)
async def test_only_plain_http_and_https_urls_are_targets(url, no_connections):
    with pytest.raises(TargetRefused):
        await check_target(url, NO_ALLOW)
    assert no_connections == []


async def test_the_allow_list_names_hosts_addresses_and_networks():
    allow = AllowList.parse(["127.0.0.1", "10.0.0.0/8", "localhost"])
    assert (await check_target("http://127.0.0.1:9/x?y=1", allow)).addresses == ("127.0.0.1",)
    assert (await check_target("http://10.0.0.1/", allow)).path == "/"
    with pytest.raises(TargetRefused):
        await check_target("http://169.254.169.254/", allow)
    public = await check_target("http://93.184.216.34/hook", NO_ALLOW)  # a public address needs no listing
    assert public.addresses == ("93.184.216.34",)


async def test_the_api_refuses_a_private_target_as_a_problem_naming_url(sqlite_url, no_connections):
    app = create_app(Settings(database_url=sqlite_url))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as api:
            game = await new_game(api)
            player = (await api.post("/v1/players", json={})).json()
            await api.post("/v1/players/me/seats", json={"token": game["seats"]["red"]}, headers=bearer(player["key"]))
            for url in ("http://127.0.0.1:1/hook", "http://10.0.0.1/", "http://169.254.169.254/", "http://localhost/"):
                r = await api.post("/v1/players/me/subscriptions", json={"url": url}, headers=bearer(player["key"]))
                assert r.status_code == 422 and r.json()["field"] == "url", r.text
                assert r.headers["content-type"].startswith("application/problem+json")
            listed = await api.get("/v1/players/me/subscriptions", headers=bearer(player["key"]))
            assert listed.json() == {"subscriptions": []}
    assert no_connections == []


async def test_redirects_are_not_followed():
    with Receiver() as receiver:
        receiver.status = 302
        receiver.extra_headers = {"Location": "http://169.254.169.254/latest/meta-data/"}
        target = await check_target(receiver.url, AllowList.parse(["127.0.0.1"]))
        with pytest.raises(DeliveryFailed, match="redirects are not followed"):
            await post(target, b"{}", {}, timeout=2)
        assert len(receiver.requests()) == 1  # the Location was never asked for


def _silent_server(answer: bytes | None) -> tuple[socket.socket, int]:
    """A server that accepts, reads the request, then sends ``answer`` (None: nothing, ever)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        if answer is not None:
            try:
                conn.sendall(answer)
            except OSError:
                pass
        threading.Event().wait(3)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


async def test_a_silent_receiver_times_out():
    listener, port = _silent_server(None)
    try:
        target = await check_target(f"http://127.0.0.1:{port}/", AllowList.parse(["127.0.0.1"]))
        with pytest.raises(DeliveryFailed, match="no answer"):
            await post(target, b"{}", {}, timeout=0.2)
    finally:
        listener.close()


async def test_an_oversized_answer_is_not_read(monkeypatch):
    monkeypatch.setattr(webhooks, "MAX_ANSWER_BYTES", 1024)
    listener, port = _silent_server(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 10_000 + b"\r\n\r\n")
    try:
        target = await check_target(f"http://127.0.0.1:{port}/", AllowList.parse(["127.0.0.1"]))
        with pytest.raises(DeliveryFailed, match="longer than"):
            await post(target, b"{}", {}, timeout=2)
    finally:
        listener.close()
