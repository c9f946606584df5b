"""One person, several seats of one game in one page (issue 38): a Starfinder duel played by two people, one
per ship, in two tabs. Each opens the lobby's "every seat of this ship" link (the fragment carries the five
crew tokens); the page shows a seat switcher and brings up by itself whichever held seat the rules await
(SF-ROLE-2: each role acts in its phase), so no one opens a tab per crew seat. A seat picked by hand stays on
screen until the game moves on; a role change asked for is not offered again while it is pending (SF-ROLE-3)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

from tests.web.driver import Seat
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console, create_in_lobby, page_url

ROLE_GROUP = {
    "captain": "captain",
    "engineer": "engineering",
    "science": "science",
    "gunner": "fire",
    "gunner-2": "fire",
    "pilot": "move",
}
SETTLED_JS = "() => window.salvo && salvo.live && !salvo.sending && !salvo.switching"


def _crew_link(server, created: dict, ship: str) -> str:
    tokens = [t for seat, t in created["seats"].items() if seat.startswith(f"{ship}/")]
    return page_url(server.url, created["game_id"]) + "#" + "&".join(f"token={t}" for t in tokens)


def _open_crew(console: Console, ctx, server, created: dict, ship: str, touch: bool) -> Seat:
    page = console.watch(ctx.new_page(), ship)
    page.goto(_crew_link(server, created, ship))
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_selector("#seat-switch:not([hidden]) .seat-pick")
    return Seat(page, ship, touch=touch)


def _settle(seat: Seat, version: int) -> str:
    """Wait until the page has the game at ``version`` with no seat switch under way; the seat on screen."""
    seat.page.wait_for_function(f"() => ({SETTLED_JS})() && salvo.live.version >= {version}", polling=50)
    return seat.page.evaluate("() => salvo.live.viewer")


def _act(seat: Seat, role: str) -> tuple[int, str]:
    types = seat.option_types()
    group = ROLE_GROUP[role]
    if role.startswith("gunner") and "starfinder.battle_stations" in types:
        return seat.option("starfinder.battle_stations"), "starfinder.battle_stations"
    if role == "pilot" and seat.has("section.form[data-command='starfinder.turn_in_place']"):
        form = "section.form[data-command='starfinder.turn_in_place']"
        seat.press(f"{form} .pc button.show")
        seat.page.select_option(f"{form} select", index=1)
        seat.page.dispatch_event(f"{form} select", "change")
        return seat.send_form("starfinder.turn_in_place"), "starfinder.turn_in_place"
    if seat.has(f"#commands button.opt[data-group='{group}']"):
        btn = f"#commands button.opt[data-group='{group}']"
        kind = seat.page.get_attribute(btn, "data-type")
        return seat.act(btn, kind), kind
    return seat.act("#commands button.opt[data-group='phase']", "pass"), "pass"


def test_a_starfinder_duel_two_people_one_tab_per_ship(browser, server):
    """SF-ROLE-2: every crew role of both ships acts in its phase, from two pages only (one per ship)."""
    console = Console()
    desk = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        lobby = console.watch(desk.new_page(), "lobby")  # the lobby hands out one link per ship's crew
        links = create_in_lobby(lobby, server.url, "starfinder", "duel")
        assert {"group:sunrise", "group:ashen"} <= set(links), set(links)
        created = {
            "game_id": parse_qs(urlsplit(links["group:sunrise"]).query)["game"][0],
            "seats": {
                r.removeprefix("seat:"): parse_qs(urlsplit(u).fragment)["token"][0]
                for r, u in links.items()
                if r.startswith("seat:")
            },
        }
        assert links["group:ashen"] == _crew_link(server, created, "ashen")
        people = [
            _open_crew(console, desk, server, created, "sunrise", touch=False),
            _open_crew(console, phone, server, created, "ashen", touch=True),
        ]
        for p in people:  # five seats in the switcher, the page's link keeping all five
            held = p.page.eval_on_selector_all("#seat-switch .seat-pick", "els => els.map((e) => e.dataset.seat)")
            assert sorted(held) == sorted(s for s in created["seats"] if s.startswith(f"{p.name}/")), held
            assert p.page.url.count("token=") == 5
        acted: dict[str, str] = {}
        on_screen: dict[str, set[str]] = {p.name: set() for p in people}
        latest = max(p.version() for p in people)
        for _ in range(60):
            viewers = {p.name: _settle(p, latest) for p in people}
            for p in people:
                on_screen[p.name].add(viewers[p.name])
            if len(acted) == len(created["seats"]):
                break
            awaited = [p for p in people if p.has("#commands button.opt[data-group='phase']")]
            assert awaited, f"neither page shows a seat the rules await at v{latest}: a stall ({viewers})"
            person = awaited[0]
            seat = viewers[person.name].removeprefix("seat:")
            assert seat.startswith(f"{person.name}/"), seat  # a page only ever shows its own ship's seats
            latest, kind = _act(person, seat.split("/")[1])
            if kind not in ("pass", "starfinder.battle_stations"):
                acted[seat] = kind
            elif kind == "pass" and seat.split("/")[1] not in ("gunner", "gunner-2"):
                acted.setdefault(seat, kind)
        ARTIFACTS.mkdir(exist_ok=True)
        people[1].page.screenshot(path=str(ARTIFACTS / "starfinder-one-person-per-ship-390x844.png"))
    finally:
        desk.close()
        phone.close()
    # the gunners fired: both ships' pages brought up their gunners once battle stations were declared
    assert {acted[s] for s in acted if "gunner" in s} == {"starfinder.fire"}, acted
    assert set(acted) == set(created["seats"]), set(created["seats"]) - set(acted)
    for ship, seen in on_screen.items():  # the page moved between the crew's seats by itself
        assert len(seen) >= 4, (ship, seen)
    assert console.unexpected() == [], console.unexpected()


def test_a_seat_picked_by_hand_stays_and_a_pending_role_change_is_not_offered_again(browser, server):
    """SF-ROLE-3: after "Take the … role from next round" no option asks for that role again while it is
    pending; the seat switcher's pick stays on screen although another held seat must act."""
    console = Console()
    created = httpx.post(
        server.url + "/v1/games", json={"ruleset": "starfinder", "scenario": "duel"}, timeout=30
    ).json()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        person = _open_crew(console, ctx, server, created, "sunrise", touch=True)
        v = person.version()
        pilot = "#seat-switch .seat-pick[data-seat='sunrise/pilot']"
        person.press(pilot)  # the pilot waits in engineering; the page keeps it because it was picked
        person.page.wait_for_function("() => salvo.live.viewer === 'seat:sunrise/pilot' && !salvo.switching")
        assert person.page.get_attribute(pilot, "aria-pressed") == "true"
        assert _settle(person, v) == "seat:sunrise/pilot"
        assert person.page.url.count("token=") == 5  # the link still holds every seat, the pilot's first
        change = "#commands button.opt[data-type='starfinder.change_role']"
        asked = person.page.inner_text(change)  # "Take the … role from next round"
        v = person.act(change, "change role")
        assert _settle(person, v) == "seat:sunrise/pilot"  # still the pilot: it was picked, and not awaited
        roles = person.page.eval_on_selector_all(change, "els => els.map((e) => e.textContent)")
        assert asked not in roles, (asked, roles)
        # a page opened afresh on the link (the pilot first) brings up a seat the rules await (SF-RND-2)
        person.page.reload()
        person.page.wait_for_selector("#conn[data-state=live]")
        assert _settle(person, v) in ("seat:sunrise/captain", "seat:sunrise/engineer")
        assert person.page.url.count("token=") == 5
    finally:
        ctx.close()
    assert console.unexpected() == [], console.unexpected()
