"""Long games against the real server process (issue 31): a 20,000-event campaign imported anonymously into a
server capped at 1.5 GiB of address space (a small container) is read and survives three restarts; a server
over 2,000 stored campaigns starts without loading any game's head."""

from __future__ import annotations

import asyncio
import random
import re
import sys

import httpx
import pytest

from service.events.application import GameService
from service.events.store import SqlEventStore
from tests.support.long_games import build_file
from tests.support.server import ServerProcess, rss_mb

pytestmark = pytest.mark.slow
ADDRESS_SPACE = 1536 * 2**20  # RLIMIT_AS of the capped server: what the small container had
NO_COMMAND_LIMITS = {"SALVO_RATE_COMMANDS_PER_TOKEN": "off", "SALVO_RATE_COMMANDS_PER_ADDRESS": "off"}


def heads_cached(client: httpx.Client) -> float:
    found = re.search(r"^salvo_head_cache_size (\S+)$", client.get("/metrics").text, re.M)
    assert found, "no salvo_head_cache_size in /metrics"
    return float(found.group(1))


def test_a_20000_event_campaign_imported_into_a_capped_server_is_read_and_survives_restarts(tmp_path):
    body, events = asyncio.run(build_file("ftcampaign", 20_000))
    assert events >= 20_000
    server = ServerProcess(
        f"sqlite:///{tmp_path}/salvo.db",
        env=NO_COMMAND_LIMITS,
        python=["prlimit", f"--as={ADDRESS_SPACE}", sys.executable],
    )
    server.start()
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            r = client.post("/v1/games/import", params={"allow_unverified": "true"}, content=body)  # no token
            assert r.status_code == 201, r.text
            game_id = r.json()["game_id"]
            view = client.get(f"/v1/games/{game_id}")
            assert view.status_code == 200, view.text
            version = view.json()["version"]
            assert version >= 20_000
            rng = random.Random(3)
            for at in [rng.randint(1, version) for _ in range(20)]:
                assert client.get(f"/v1/games/{game_id}", params={"at": at}).json()["at"] == at
            assert client.get(f"/v1/games/{game_id}/export").status_code == 200
        for _restart in range(3):
            server.stop()
            server.start()  # raises if the server does not come up
            with httpx.Client(base_url=server.url, timeout=120) as client:
                again = client.get(f"/v1/games/{game_id}")
                assert again.status_code == 200 and again.json()["version"] == version
                assert again.json()["state"]["rulings"][-1].startswith(f"ruling {events - 3}")
        assert "MemoryError" not in server.tail(200_000)
    finally:
        server.stop()


async def _campaigns(url: str, count: int) -> None:
    store = SqlEventStore(url)
    store.start()
    try:
        service = GameService(store)
        for start in range(0, count, 100):  # concurrently: the group writer commits them together
            await asyncio.gather(
                *(service.create_game("ftcampaign", "three-powers") for _ in range(min(100, count - start)))
            )
    finally:
        store.close()


def test_start_up_loads_no_game_head_whatever_the_number_of_campaigns(tmp_path):
    """Start-up touches no game: linked battles to settle come from an index, not from every campaign's head."""
    measured = {}
    for count in (0, 2_000):
        url = f"sqlite:///{tmp_path}/salvo-{count}.db"
        if count:
            asyncio.run(_campaigns(url, count))
        server = ServerProcess(url).start()
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                assert client.get("/readyz").status_code == 200
                assert heads_cached(client) == 0.0
                measured[count] = rss_mb(server.pid)
        finally:
            server.stop()
    # the same process, with or without 2,000 campaigns stored (the old start-up grew ~29 MB per 1,500)
    assert measured[2_000] - measured[0] < 12, measured
