"""Long games in bounded memory (issue 31): a load folds a page at a time and writes snapshots on its way (imports
included), a game past its budget is refused with a problem, imports have operator limits, the head cache counts
bytes, and linked battles still to settle are found without loading any game's head."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import msgspec
import pytest
from sqlalchemy import func, select

from service.api.app import create_app
from service.events.event_store import WriteBatch
from service.events.head import head_from_rows
from service.events.linked_battles import LinkedBattles
from service.events.tables import GAMES, SNAPSHOTS
from service.settings import Settings
from tests.api.helpers import SHOOT_RED, bearer, command, new_game
from tests.support.long_games import SCENARIOS, build_file

pytestmark = pytest.mark.asyncio
FILES: dict[tuple[str, int], bytes] = {}  # built once per session: each takes a second or two


def long_file(ruleset: str, events: int) -> bytes:
    if (ruleset, events) not in FILES:
        FILES[(ruleset, events)] = asyncio.run_coroutine_threadsafe(
            build_file(ruleset, events), _builder_loop()
        ).result()[0]
    return FILES[(ruleset, events)]


_LOOP: list[asyncio.AbstractEventLoop] = []


def _builder_loop() -> asyncio.AbstractEventLoop:
    """A loop of its own in a thread: the test's loop is busy awaiting the test."""
    if not _LOOP:
        import threading

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True).start()
        _LOOP.append(loop)
    return _LOOP[0]


@asynccontextmanager
async def server(url: str, **settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=url, **settings))
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


async def imported(client: httpx.AsyncClient, body: bytes) -> dict[str, Any]:
    r = await client.post("/v1/games/import", params={"allow_unverified": "true"}, content=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def count(client: httpx.AsyncClient, table: Any, *where: Any) -> int:
    store = client.app.state.store  # type: ignore[attr-defined]
    stmt = select(func.count()).select_from(table).where(*where)
    return int((await store._run(store._fetch, stmt))[0][0])


@pytest.mark.parametrize("ruleset", sorted(SCENARIOS))
async def test_an_imported_game_has_snapshots_and_refolds_from_them(sqlite_url, ruleset):
    body = long_file(ruleset, 700)
    async with server(sqlite_url, snapshot_every=100) as client:
        game = await imported(client, body)
        gid = game["game_id"]
        service = client.app.state.service  # type: ignore[attr-defined]
        store = client.app.state.store  # type: ignore[attr-defined]
        # the import writes snapshots along the inherited events: its first load is as short as any
        assert await count(client, SNAPSHOTS, SNAPSHOTS.c.game_id == gid) >= game["version"] // 100 - 1
        await store.drop_snapshots(gid)  # a game without them (imported before they were written) gets them
        service.forget(gid)
        view = (await client.get(f"/v1/games/{gid}", headers=bearer(game["umpire_token"]))).json()
        version = view["version"]
        assert await count(client, SNAPSHOTS, SNAPSHOTS.c.game_id == gid) >= version // 100 - 1
        latest = await store.snapshot(gid, 2**31)
        assert latest is not None and version - int(latest.seq) < 100 + 40  # up to one command past the interval

        read: list[int] = []
        original = store.read_events

        async def counting(game_id: str, **kw: Any) -> list[Any]:
            rows = await original(game_id, **kw)
            read.append(len(rows))
            return rows

        store.read_events = counting
        service.forget(gid)
        reloaded = await service.head(gid)
        store.read_events = original
        assert sum(read) < 100 + 40  # the reload folds from the latest snapshot, not the whole log
        # fold = live: the head rebuilt from the snapshots equals the fold of the whole log
        full = head_from_rows(gid, await store.game(gid), await store.read_events(gid))
        assert msgspec.json.encode(reloaded.state) == msgspec.json.encode(full.state)
        assert (reloaded.seq, reloaded.dice_turn, reloaded.effective) == (full.seq, full.dice_turn, full.effective)
        # ?at= folds from the nearest snapshot, to the same state as the whole fold up to there
        at = version // 2 + 3
        got = (await client.get(f"/v1/games/{gid}", params={"at": at}, headers=bearer(game["umpire_token"]))).json()
        upto = head_from_rows(gid, await store.game(gid), await store.read_events(gid, upto=at))
        assert got["at"] == at and got["turn"] == upto.ruleset.clock(upto.state).turn


async def test_a_game_past_its_memory_budget_is_refused_with_a_problem_never_folded(sqlite_url):
    async with server(sqlite_url) as client:
        game = await new_game(client)
        await command(client, game, game["seats"]["red"], SHOOT_RED)
        service = client.app.state.service  # type: ignore[attr-defined]
        service.forget(game["game_id"])
        service.heads.max_game_bytes = 10
        r = await client.get(f"/v1/games/{game['game_id']}")
        assert r.status_code == 507 and r.headers["content-type"].startswith("application/problem+json")
        problem = r.json()
        assert problem["title"] == "Game too large" and "SALVO_MAX_GAME_BYTES" in problem["detail"]
        assert len(service.heads) == 0  # nothing half-folded kept
        service.heads.max_game_bytes = 16 * 2**20
        assert (await client.get(f"/v1/games/{game['game_id']}")).status_code == 200


async def test_an_import_past_the_operator_limits_is_refused_and_creates_nothing(sqlite_url):
    body = long_file("ftcampaign", 700)
    async with server(sqlite_url, max_import_events=500, max_game_bytes=4_000) as client:
        before = await count(client, GAMES)
        r = await client.post("/v1/games/import", params={"allow_unverified": "true"}, content=body)
        assert r.status_code == 413 and r.json()["field"] == "events", r.text
        assert "SALVO_MAX_IMPORT_EVENTS" in r.json()["detail"]
        assert await count(client, GAMES) == before
    async with server(sqlite_url, max_game_bytes=4_000) as client:
        r = await client.post("/v1/games/import", params={"allow_unverified": "true"}, content=body)
        assert r.status_code == 413 and "SALVO_MAX_GAME_BYTES" in r.json()["detail"], r.text
        assert r.json()["field"].startswith("line ")
        assert await count(client, GAMES) == before


async def test_imports_from_one_address_are_rate_limited(sqlite_url):
    body = long_file("gsc2", 300)
    async with server(sqlite_url, rate_imports_per_address="2/minute") as client:
        for _ in range(2):
            await imported(client, body)
        r = await client.post("/v1/games/import", params={"allow_unverified": "true"}, content=body)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert "imports from this address" in r.json()["detail"]


async def test_the_head_cache_evicts_by_the_bytes_its_heads_hold(sqlite_url):
    async with server(sqlite_url) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        games = [await new_game(client) for _ in range(6)]
        for g in games:
            service.forget(g["game_id"])
        one = (await service.head(games[0]["game_id"])).state_bytes
        assert one > 0
        service.heads.budget_bytes = one * 2 + one // 2  # room for two heads
        for g in games:
            await service.head(g["game_id"])
        assert len(service.heads) == 2 and service.heads.bytes <= service.heads.budget_bytes
        assert service.heads.peek(games[-1]["game_id"]) is not None  # the most recent stay
        metrics = (await client.get("/metrics")).text
        assert f"salvo_head_cache_bytes {float(service.heads.bytes)}" in metrics


async def test_ftc_arr_8_unsettled_links_are_found_by_the_index_without_loading_a_head(sqlite_url):
    """FTC-ARR-8: the battles a restart must settle come from the link events alone; a link to a game this
    server does not hold (an imported campaign's) is skipped quietly."""
    async with server(sqlite_url) as client:
        service = client.app.state.service  # type: ignore[attr-defined]

        def row(game_id: str, seq: int, kind: str, data: dict[str, Any]) -> dict[str, Any]:
            return {
                "game_id": game_id,
                "seq": seq,
                "type": kind,
                "v": 1,
                "data": msgspec.json.encode(data).decode(),
                "rolls": "[]",
                "turn": 1,
                "phase": "contacts",
                "actor": "umpire",
                "command_id": f"c{seq}",
                "recorded_at": "2026-12-05T00:00:00Z",
                "dice": None,
            }

        await service.store.write(
            WriteBatch(
                "camp-a",
                events=[
                    row("camp-a", 1, "ftcampaign.battle_linked", {"battle": "b1", "tactical_game_id": "t1"}),
                    row("camp-a", 2, "ftcampaign.battle_linked", {"battle": "b2", "tactical_game_id": "t2"}),
                    row("camp-a", 3, "ftcampaign.battle_recorded", {"battle": "b1", "tactical_game_id": "t1"}),
                ],
            )
        )
        await service.store.write(
            WriteBatch(
                "camp-b",
                events=[
                    row("camp-b", 1, "ftcampaign.battle_linked", {"battle": "b9", "tactical_game_id": "nowhere"}),
                ],
            )
        )
        service.heads._heads.clear()
        linked = LinkedBattles(service)
        assert sorted(await linked.unsettled()) == [("camp-a", "b2", "t2"), ("camp-b", "b9", "nowhere")]
        assert len(service.heads) == 0
        assert await linked.reconcile() == 0  # neither tactical game exists here: skipped, no failure
        assert len(service.heads) == 0


async def test_a_turn_of_thousands_of_events_is_replayed_a_page_at_a_time(sqlite_url):
    body = long_file("ftcampaign", 2_500)  # every ruling is made in the campaign's opening turn
    async with server(sqlite_url) as client:
        game = await imported(client, body)
        gid, auth = game["game_id"], bearer(game["umpire_token"])
        pages, after = [], 0
        while True:
            r = await client.get(f"/v1/games/{gid}/turns/0", params={"after": after, "limit": 1000}, headers=auth)
            assert r.status_code == 200, r.text
            pages.append(r.json())
            after = pages[-1]["next_after"]
            if after is None:
                break
        steps = [s for page in pages for s in page["events"]]
        assert [len(p["events"]) for p in pages][:2] == [1000, 1000] and len(pages) == 3
        seqs = [s["event"]["seq"] for s in steps]
        assert seqs == sorted(set(seqs)) and seqs[0] == 1 and seqs[-1] == pages[0]["to_seq"]
        rulings = [s for s in steps if s["event"]["type"] == "ftcampaign.ruling_recorded"]
        assert len(rulings) == 2_500 - 2 and all(p["after"] == pages[0]["after"] for p in pages)
        whole = await client.get(f"/v1/games/{gid}/turns/0", params={"limit": 5000}, headers=auth)
        assert whole.status_code == 422  # past the most a replay answers in one page
