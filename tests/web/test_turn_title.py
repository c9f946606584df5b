"""The open page says "your turn" in its title (issue 40): a player with the game in a background tab sees
"● Your move" in the tab strip while the rules await their seat, and it goes once they have acted; another
seat's move that hands them the turn brings it back without a reload."""

from __future__ import annotations

import json
import time

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


# the Notification API and the page's chime, watched: each construction and each note played is recorded;
# the page is taken for a background one (not focused), where alerts are for
SPY = """
window.__notes = [];
window.__chimes = 0;
const Real = window.Notification;
class SpyNotification {
  constructor(title, options) { window.__notes.push({ title, body: (options || {}).body || "" }); }
  static get permission() { return Real ? Real.permission : "denied"; }
  static requestPermission() { return Real ? Real.requestPermission() : Promise.resolve("denied"); }
}
window.Notification = SpyNotification;
document.hasFocus = () => false;
if (window.AudioContext) {
  const osc = window.AudioContext.prototype.createOscillator;
  window.AudioContext.prototype.createOscillator = function () { window.__chimes += 1; return osc.call(this); };
}
"""


def test_when_the_turn_comes_an_allowed_page_notifies_and_chimes(browser, server):
    console = Console()
    ctx = browser.new_context()
    try:
        ctx.grant_permissions(["notifications"], origin=server.url)
        ctx.add_init_script(SPY)
        lobby = console.watch(ctx.new_page(), "lobby")
        lobby.goto(server.url + "/")
        lobby.click("#turn-alerts")  # the player allows alerts on this device
        lobby.wait_for_selector("#turn-alerts[aria-pressed=true]")
        assert "not allowed" not in lobby.text_content("#turn-alerts-state")
        game = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
        red = console.watch(ctx.new_page(), "red")
        red.goto(page_url(server.url, game["game_id"], game["seats"]["red"]))
        red.wait_for_function("(mark) => document.title.startsWith(mark)", arg=MARK)
        assert red.evaluate("() => window.__notes") == []  # the turn the page opened on: the title says it
        _end_phase(server, game, "red")
        red.wait_for_function("(mark) => !document.title.startsWith(mark)", arg=MARK)
        _end_phase(server, game, "blue")  # the turn comes back to red while the page is open
        red.wait_for_function("() => window.__notes.length > 0")
        [note] = red.evaluate("() => window.__notes")
        assert note["title"] == "Your move" and game["game_id"] in note["body"]
        assert red.evaluate("() => window.__chimes") >= 1
        # turned off, the next turn only changes the title
        lobby.click("#turn-alerts")
        lobby.wait_for_selector("#turn-alerts[aria-pressed=false]")
        _end_phase(server, game, "red")
        red.wait_for_function("(mark) => !document.title.startsWith(mark)", arg=MARK)
        _end_phase(server, game, "blue")
        red.wait_for_function("(mark) => document.title.startsWith(mark)", arg=MARK)
        assert len(red.evaluate("() => window.__notes")) == 1
    finally:
        ctx.close()
    assert console.unexpected() == []


def test_the_service_worker_shows_a_pushed_notification(browser, server):
    """With the page closed, Web Push brings the notification: the page's service worker (sw.js) shows
    what a push delivers (here through the DevTools protocol, ServiceWorker.deliverPushMessage, since a
    headless browser has no push service; the server's side is tests/api/test_web_push.py)."""
    console = Console()
    ctx = browser.new_context()
    try:
        ctx.grant_permissions(["notifications"], origin=server.url)
        page = console.watch(ctx.new_page(), "lobby")
        cdp = ctx.new_cdp_session(page)
        registrations: list[dict] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        page.goto(server.url + "/")
        scope = page.evaluate("async () => (await (await import('/static/notify.js')).serviceWorker()).scope")
        assert scope == server.url + "/static/"
        deadline = time.monotonic() + 10
        while not any(r["scopeURL"] == scope and not r["isDeleted"] for r in registrations):
            assert time.monotonic() < deadline, registrations
            page.wait_for_timeout(50)
        [registration_id] = {
            r["registrationId"] for r in registrations if r["scopeURL"] == scope and not r["isDeleted"]
        }
        notice = {
            "id": "n_1",
            "type": "your_turn",
            "game_id": "g_0123456789abcdef",
            "text": "Your move as red in duel g_0123456789abcdef (turn 1, fire phase): fire phase",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": server.url, "registrationId": registration_id, "data": json.dumps(notice)},
        )
        shown = page.wait_for_function(
            """async () => {
              const list = await (await navigator.serviceWorker.getRegistration("/static/")).getNotifications();
              return list.length ? list.map((n) => ({ title: n.title, body: n.body, tag: n.tag })) : null;
            }"""
        ).json_value()
        assert shown == [{"title": "Your move", "body": notice["text"], "tag": "salvo-g_0123456789abcdef"}]
    finally:
        ctx.close()
    assert console.unexpected() == []
