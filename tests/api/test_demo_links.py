"""`salvo serve --demo` prints page links: seat and umpire tokens in the fragment, never the query
(a query reaches the server's access log and every Referer; a fragment stays in the browser)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

from starlette.testclient import TestClient

from service.api.app import create_app
from service.cli import create_demo_game
from service.settings import Settings


def test_demo_links_carry_tokens_in_the_fragment(sqlite_url):
    settings = Settings(database_url=sqlite_url)
    demo = asyncio.run(create_demo_game(settings, "0.0.0.0", 8123))
    game = demo["game_id"]
    assert demo["spectate"] == f"http://127.0.0.1:8123/?game={game}"
    links = {f"seat:{s}": link for s, link in demo["seats"].items()} | {"umpire": demo["umpire"]}  # type: ignore[union-attr]
    assert len(links) >= 3
    with TestClient(create_app(settings)) as client:
        for viewer, link in links.items():
            parts = urlsplit(link)
            assert parse_qs(parts.query) == {"game": [game]}, (viewer, link)
            fragment = parse_qs(parts.fragment)
            assert list(fragment) == ["token"], (viewer, link)
            # and the fragment's token is that seat's (or the umpire's)
            r = client.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {fragment['token'][0]}"})
            assert r.status_code == 200 and r.json()["viewer"] == viewer, (viewer, r.text[:200])
