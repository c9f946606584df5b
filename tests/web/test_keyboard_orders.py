"""Campaign orders and the dispute buttons with the keyboard alone (issue 16: "every action reachable by
keyboard"): Tab / Shift+Tab to move, Enter or Space to press, the arrow keys in selects and tabs; no mouse,
no click, no JSON box. Every focus stop is checked for a name and a visible focus mark (test_keyboard_play).

- three-powers, a player's strategic turn: the task group split with its labelled option, then both groups
  given an order in the orders form (included, a destination and a posture chosen with the arrow keys),
  sealed once; the sealed orders are exactly what was composed.
- a tiny game's umpire: the Replay tab reached with the tablist's arrow keys; the battle file exported and
  saved with Enter on its link (the file is the service's export); a what-if forked at the live head (the
  same table); one step back into history with ←, the rewind refused without a reason and then made with
  one typed in (the service rewound there).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.web.support import ARTIFACTS, Console
from tests.web.test_keyboard_play import Keys, _open
from tests.web.test_play_campaign import FORM, _to_orders_phase

TAB_LIMIT = 400  # the campaign's star map puts many worlds and groups before the orders pane


def _choose(k: Keys, select: str, index: int) -> None:
    """Move a focused select to the option at ``index`` with the arrow keys (each change redraws the form)."""
    for _ in range(64):
        now = k.page.eval_on_selector(select, "s => s.selectedIndex")
        if now == index:
            return
        k.page.keyboard.press("ArrowDown" if now < index else "ArrowUp")
        k.page.wait_for_function(
            "([s, n]) => document.querySelector(s).selectedIndex !== n", arg=[select, now], polling=50
        )
        k.stays_on(select)
    raise AssertionError(f"{select} never reached option {index}")


def test_campaign_orders_for_two_groups_by_keyboard_alone(browser, server, desk):
    console = Console()
    http = httpx.Client(base_url=server.url, timeout=30)
    try:
        r = http.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "three-powers", "options": {}})
        assert r.status_code == 201, r.text
        created = r.json()
        _to_orders_phase(http, created)
    finally:
        http.close()
    player = next(iter(created["seats"]))
    k = _open(console, desk, server, created, player)
    page = k.page
    k.tab_to("#commands button.opt[data-type='ftcampaign.split_group']", limit=TAB_LIMIT)
    k.press("Enter", "split the task group")
    page.wait_for_function(f'() => document.querySelectorAll("{FORM} .pc[data-piece]").length >= 2')
    groups = page.eval_on_selector_all(f"{FORM} .pc[data-piece]", "els => els.map((e) => e.dataset.piece)")
    chosen = {}
    for i, group in enumerate(groups):
        pc = f"{FORM} .pc[data-piece='{group}']"
        box = f"{pc} input[type=checkbox]"
        k.tab_to(box, limit=TAB_LIMIT)
        if not page.is_checked(box):
            page.keyboard.press("Space")
            page.wait_for_selector(f"{box}:checked", state="attached")
            k.stays_on(box)
        to = f"{pc} select[data-key='to']"
        k.tab_to(to, limit=TAB_LIMIT)
        labels = page.eval_on_selector_all(f"{to} option", "els => els.map((e) => e.textContent)")
        moves = [n for n, text in enumerate(labels) if text != "hold"]
        assert moves, labels
        pick = moves[i % len(moves)]  # the two groups go different ways
        _choose(k, to, pick)
        posture = f"{pc} select[data-key='posture']"
        k.tab_to(posture, limit=TAB_LIMIT)
        want = "attack" if i == 0 else "stand off"
        postures = page.eval_on_selector_all(f"{posture} option", "els => els.map((e) => e.textContent)")
        _choose(k, posture, postures.index(want))
        chosen[group] = (labels[pick].split()[0], want.replace(" ", "_"))
    k.tab_to(f"{FORM} button.send-form", limit=TAB_LIMIT)
    k.press("Enter", "seal the orders")
    sealed = page.evaluate(
        """(me) => salvo.events.filter((e) => e.type === 'ftcampaign.orders_submitted'
        && e.data.player === me).map((e) => e.data.orders)""",
        player,
    )
    assert len(sealed) == 1 and sealed[0] is not None, sealed
    got = {o["group"]: (f"{o['to'][0]},{o['to'][1]}", o["posture"]) for o in sealed[0]}
    assert len(chosen) >= 2 and got == chosen, (got, chosen)
    print(k.seat.actions, "focus stops checked:", k.stops)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "keyboard-ftcampaign-orders-1440x900.png"))
    assert console.unexpected() == [], console.unexpected()


SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


def test_dispute_buttons_by_keyboard_alone(browser, server, desk):
    console = Console()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        r = http.post("/v1/games", json={"ruleset": "tiny", "scenario": "long", "options": {}})
        assert r.status_code == 201, r.text
        created = r.json()
        gid, umpire = created["game_id"], created["umpire_token"]
        for _ in range(3):
            r = http.post(
                f"/v1/games/{gid}/commands",
                json={"command": SHOOT},
                headers={"Authorization": f"Bearer {created['seats']['red']}"},
            )
            assert r.status_code == 201, r.text
        head = http.get(f"/v1/games/{gid}").json()["version"]
        exported = http.get(f"/v1/games/{gid}/export", headers={"Authorization": f"Bearer {umpire}"}).text
    k = _open(console, desk, server, created, "umpire", token=umpire)
    page = k.page
    k.tab_to(".tabs [role=tab][aria-selected=true]")
    for _ in range(4):  # the tablist's arrow keys, to the Replay tab
        if page.get_attribute("#tab-replay", "aria-selected") == "true":
            break
        page.keyboard.press("ArrowRight")
    k.stays_on("#tab-replay")
    # export: a link to the battle file appears, and it is the service's export
    k.tab_to("#export")
    page.keyboard.press("Enter")
    page.wait_for_selector("#export-link")
    assert page.get_attribute("#export-link", "download") == f"{gid}.salvo.jsonl"
    k.tab_to("#export-link")
    with page.expect_download() as saving:
        page.keyboard.press("Enter")
    saved = saving.value
    assert saved.suggested_filename == f"{gid}.salvo.jsonl"
    head_line, *body = Path(saved.path()).read_text().splitlines()
    want_head, *want_body = exported.splitlines()
    assert body == want_body  # the same envelopes; the header differs only in its export time and signature
    assert json.loads(head_line)["digests"] == json.loads(want_head)["digests"]
    # fork a what-if at the live head: its links are listed, and the new game has the same history
    k.tab_to("#fork")
    page.keyboard.press("Space")
    page.wait_for_selector(".disputes-out .links li[data-role='umpire'] a")
    forked = page.inner_text(".disputes-out p").split()[2]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        first = http.get(f"/v1/games/{forked}/events").json()["events"][0]
        assert first["data"]["forked_from"] == gid and first["data"]["forked_at"] == head, first
        assert http.get(f"/v1/games/{forked}").json()["state"] == http.get(f"/v1/games/{gid}").json()["state"]
    # one step back with ← (focus on a button, not the map): the page shows history, the rewind is offered
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#mode[data-mode=history]")
    k.stays_on("#fork")
    k.tab_to("#rewind")
    assert page.inner_text("#rewind") == f"Rewind to seq {head - 1}"
    page.keyboard.press("Enter")  # no reason yet: refused in the page, the reason field takes the focus
    page.wait_for_selector(".disputes-out .error:has-text('needs a reason')")
    k.stays_on("#rewind-reason")
    page.keyboard.type("disputed shot")
    k.tab_to("#rewind")
    page.keyboard.press("Enter")
    page.wait_for_selector(f".disputes-out:has-text('Rewound to seq {head - 1}')")
    with httpx.Client(base_url=server.url, timeout=30) as http:
        events = http.get(f"/v1/games/{gid}/events", headers={"Authorization": f"Bearer {umpire}"}).json()["events"]
    assert [e.get("superseded", False) for e in events if e["type"] == "tiny.shot"] == [False, False, True], events
    print("focus stops checked:", k.stops)
    assert console.unexpected() == [], console.unexpected()
