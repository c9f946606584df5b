"""The open page says "your turn" in its title (issue 40): a player with the game in a background tab sees
"● Your move" in the tab strip while the rules await their seat, and it goes once they have acted; another
seat's move that hands them the turn brings it back without a reload."""

from __future__ import annotations

import httpx

from tests.web.support import Console, page_url

MARK = "● Your move · "


def _end_phase(server, game: dict, seat: str) -> None:
    r = httpx.post(
        f"{server.url}/v1/games/{game['game_id']}/commands",
        headers={"Authorization": f"Bearer {game['seats'][seat]}"},
        json={"command": {"type": "tiny.end_phase", "seat": seat}},
    )
    assert r.status_code == 201, r.text


def test_the_title_marks_my_turn_and_follows_the_other_seat_move(desk, server):
    console = Console()
    game = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
    red = console.watch(desk.new_page(), "red")
    red.goto(page_url(server.url, game["game_id"], game["seats"]["red"]))
    red.wait_for_selector("#conn[data-state=live]")
    red.wait_for_function("(mark) => document.title.startsWith(mark)", arg=MARK)  # fire phase: red must act
    assert red.title() == MARK + f"Salvo · {game['game_id']}"
    _end_phase(server, game, "red")  # red has acted: the mark goes
    red.wait_for_function("(mark) => !document.title.startsWith(mark)", arg=MARK)
    assert red.title() == f"Salvo · {game['game_id']}"
    _end_phase(server, game, "blue")  # blue's move opens the next phase: red's turn again, on the open page
    red.wait_for_function("(mark) => document.title.startsWith(mark)", arg=MARK)
    spectator = console.watch(desk.new_page(), "spectator")
    spectator.goto(page_url(server.url, game["game_id"]))
    spectator.wait_for_selector("#conn[data-state=live]")
    assert not spectator.title().startswith(MARK)  # nobody's turn to a spectator
    assert console.unexpected() == []
