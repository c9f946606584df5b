"""Ships that left the table at its top edge, drawn close together, stay tappable on a phone: the board
fans a cluster out around its centre (``Board.spread``), and a fan that would reach past the board's
edge is moved in whole, not drawn under the game bar (a skirmish page test's tap once timed out there)."""

from __future__ import annotations

import httpx

from tests.web.driver import Seat
from tests.web.support import PHONE, Console, page_url

HIT_JS = """(ids) => {
  const board = document.querySelector('#board').getBoundingClientRect();
  return ids.map((id) => {
    const hit = document.querySelector(`#board .piece[data-id='${id}'] > .hit`), r = hit.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2, top = document.elementFromPoint(x, y);
    return {id, x, y, inside: y - r.height / 2 >= board.top - 0.5 && y + r.height / 2 <= board.bottom + 0.5,
            mine: !!top && hit.parentNode.contains(top)};
  });
}"""


def _command(server, game_id: str, token: str, command: dict) -> None:
    r = httpx.post(
        f"{server.url}/v1/games/{game_id}/commands",
        json={"command": command},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert r.status_code == 201, r.text


def test_a_cluster_of_ships_past_the_top_edge_is_fanned_out_inside_the_board(browser, server):
    created = httpx.post(
        f"{server.url}/v1/games", json={"ruleset": "skirmish", "scenario": "plane", "options": {}}, timeout=30
    ).json()
    gid, seats = created["game_id"], created["seats"]
    for turn in range(5):  # each ship 4.5" straight on a turn: red's two leave the 24" table at its top
        for side, ships in (("red", ("r1", "r2")), ("blue", ("b1", "b2"))):
            _command(
                server,
                gid,
                seats[side],
                {
                    "type": "skirmish.orders",
                    "side": side,
                    "ships": [{"id": s, "legs": [{"turn": 0, "distance": 4.5}]} for s in ships],
                },
            )
        if turn < 4:
            for side in ("red", "blue"):
                _command(server, gid, seats[side], {"type": "skirmish.end_phase", "side": side})
    view = httpx.get(
        f"{server.url}/v1/games/{gid}", headers={"Authorization": f"Bearer {seats['red']}"}, timeout=30
    ).json()
    ships = {p["id"]: p["at"] for p in view["state"]["draw"]["pieces"]}
    assert ships["r1"]["y"] == ships["r2"]["y"] == -2.5  # 20 - 5 * 4.5: past the table's top edge
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    console = Console()
    try:
        page = console.watch(ctx.new_page(), "red")
        page.goto(page_url(server.url, gid, seats["red"]))
        page.wait_for_selector("#conn[data-state=live]")
        page.wait_for_function("() => window.salvo && salvo.live")
        page.tap("#to-map")  # a phone shows the orders first: one tap brings the map up
        hits = page.evaluate(HIT_JS, ["r1", "r2"])
        assert abs(hits[0]["y"] - hits[1]["y"]) >= 48 or abs(hits[0]["x"] - hits[1]["x"]) >= 48  # fanned out
        assert all(h["inside"] and h["mine"] for h in hits), hits  # whole hit areas on the board, nothing over them
        seat = Seat(page, "red", touch=True)
        for piece in ("r1", "r2"):
            seat.press(f"#board .piece[data-id='{piece}'] > .hit")  # a tap reaches it
            page.wait_for_selector(f"#board .piece.selected[data-id='{piece}']", state="attached")
        assert console.unexpected() == []
    finally:
        ctx.close()
