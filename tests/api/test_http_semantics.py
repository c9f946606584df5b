"""HTTP semantics integrators lean on (issue 35): a CORS preflight passes for every method an operation
takes (DELETE included), a 405 carries `Allow` listing the path's methods (RFC 9110 §15.5.6), and every
problem `type` the service sends resolves to a page that explains it (RFC 9457 §3.1.1)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from service.api.app import create_app
from service.api.routes.problem_pages import KINDS, service_kinds
from service.settings import Settings
from tests.api.helpers import bearer, new_game

pytestmark = pytest.mark.asyncio
ORIGIN = "https://club.example"
SERVICE = Path(__file__).resolve().parents[2] / "service"
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
async def cors_api(sqlite_url: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=sqlite_url, cors_origins=(ORIGIN,)))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


def operations(app: object) -> dict[str, set[str]]:
    """path (with {params} filled in) -> the methods the OpenAPI document gives it."""
    paths = app.openapi()["paths"]  # type: ignore[attr-defined]
    return {re.sub(r"\{[^}]+\}", "x1", path): {m.upper() for m in item if m in METHODS} for path, item in paths.items()}


async def test_a_preflight_passes_for_every_method_an_operation_takes(cors_api: httpx.AsyncClient) -> None:
    game = await new_game(cors_api)
    seen = set()
    for path, methods in operations(cors_api.app).items():  # type: ignore[attr-defined]
        for method in methods:
            r = await cors_api.options(
                path,
                headers={
                    "Origin": ORIGIN,
                    "Access-Control-Request-Method": method,
                    "Access-Control-Request-Headers": "authorization, content-type, if-match, idempotency-key",
                },
            )
            assert r.status_code == 200, (method, path, r.text)
            assert method in r.headers["access-control-allow-methods"].split(", ")
            assert r.headers["access-control-allow-origin"] == ORIGIN
            seen.add(method)
    assert {"GET", "POST", "DELETE"} <= seen
    # and the actual DELETE from that origin carries the CORS header
    await cors_api.post(
        f"/v1/games/{game['game_id']}/bots", json={"seat": "blue", "bot": "rules"}, headers=bearer(game["umpire_token"])
    )
    r = await cors_api.delete(
        f"/v1/games/{game['game_id']}/bots/blue", headers={**bearer(game["umpire_token"]), "Origin": ORIGIN}
    )
    assert r.status_code < 300 and r.headers["access-control-allow-origin"] == ORIGIN, r.text


async def test_a_preflight_from_an_unlisted_origin_is_refused(cors_api: httpx.AsyncClient) -> None:
    r = await cors_api.options(
        "/v1/games", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
    )
    assert r.status_code == 400 and "access-control-allow-origin" not in r.headers


async def test_every_405_names_the_paths_methods_in_allow(api: httpx.AsyncClient) -> None:
    checked = 0
    for path, methods in operations(api.app).items():  # type: ignore[attr-defined]
        for wrong in sorted({"GET", "POST", "PUT", "PATCH", "DELETE"} - methods):
            r = await api.request(wrong, path)
            if r.status_code != 405:  # another route's pattern takes it (e.g. GET /v1/games/{id} for a literal)
                continue
            assert r.headers["content-type"].startswith("application/problem+json")
            allow = set(r.headers["allow"].split(", "))
            assert methods <= allow, (wrong, path, allow)
            checked += 1
    assert checked > 20


async def test_delete_on_a_path_with_get_and_post_lists_both(api: httpx.AsyncClient) -> None:
    r = await api.delete("/v1/games")
    assert r.status_code == 405 and set(r.headers["allow"].split(", ")) >= {"POST"}, r.headers


def problem_types_in_the_source() -> set[str]:
    found = set()
    for path in SERVICE.rglob("*.py"):
        found |= set(re.findall(r'"/problems/([A-Z][A-Za-z]+)"', path.read_text(encoding="utf-8")))
    return found


async def test_every_problem_kind_the_service_sends_has_a_page(api: httpx.AsyncClient) -> None:
    kinds = service_kinds() | problem_types_in_the_source() | {"TooManyRequests"}
    assert {"GameNotFound", "VersionConflict", "TooLarge", "NotReady", "StorageUnavailable"} <= kinds
    assert kinds <= set(KINDS), kinds - set(KINDS)
    for kind in kinds:
        r = await api.get(f"/problems/{kind}")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), kind
        assert f"<h1>{kind}</h1>" in r.text and f"HTTP status {KINDS[kind][0]}" in r.text


async def test_a_problem_a_request_got_names_a_page_that_resolves(api: httpx.AsyncClient) -> None:
    for r in (await api.get("/v1/games/g_nothere"), await api.post("/v1/games", json={"ruleset": 3})):
        kind = r.json()["type"]
        page = await api.get(kind)
        assert page.status_code == 200 and "What to do" in page.text, (kind, page.text)


@pytest.mark.parametrize(
    "rule, words",
    [
        ("GSC2-SEQ-1", "A turn runs movement, missiles, beams, boarding"),
        ("ASC-SEQ-1", "sensor commit"),
        ("FTC-MAP-1", "91 hexes"),
        ("FTC-R-1", "Map size"),
        ("NO-SEAT", "Spectators issue no commands"),
    ],
)
async def test_a_rule_violations_type_quotes_the_rule(api: httpx.AsyncClient, rule: str, words: str) -> None:
    r = await api.get(f"/problems/rule/{rule}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert f"Rule {rule}" in r.text and words in r.text, r.text


async def test_a_refused_command_names_its_rule_page(api: httpx.AsyncClient) -> None:
    game = await new_game(api)
    r = await api.post(
        f"/v1/games/{game['game_id']}/commands",
        headers=bearer(game["seats"]["blue"]),
        json={"command": {"type": "tiny.shoot", "shooter": "red", "target": "blue"}},
    )
    rule = r.json()["rule"]
    assert r.status_code in (403, 422) and r.json()["type"] == f"/problems/rule/{rule}", r.text
    page = await api.get(r.json()["type"])
    assert page.status_code == 200 and f"Rule {rule}" in page.text and "breaks this rule" in page.text


async def test_an_unknown_problem_type_or_rule_is_a_404_problem(api: httpx.AsyncClient) -> None:
    for path in ("/problems/Nope", "/problems/rule/not a rule", "/problems/rule/<script>"):
        r = await api.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")
        assert "<script>" not in r.text


async def test_a_battle_file_comes_as_octet_stream_to_who_asks_for_it(api: httpx.AsyncClient) -> None:
    """What generated SDKs ask for (openapi/openapi.json offers both): the same bytes, either media type."""
    game = await new_game(api)
    url = f"/v1/games/{game['game_id']}/export"
    lines = await api.get(url, headers=bearer(game["umpire_token"]))
    binary = await api.get(url, headers={**bearer(game["umpire_token"]), "Accept": "application/octet-stream"})
    assert lines.headers["content-type"].startswith("application/x-ndjson")
    assert binary.headers["content-type"] == "application/octet-stream"
    assert binary.content.splitlines()[1:] == lines.content.splitlines()[1:]  # the header's time differs
