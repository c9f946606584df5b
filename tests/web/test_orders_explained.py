"""Orders the rules refuse are explained, not offered (issue 38), on a phone (390×844):

- GSC2-MOV-3: the legs editor's Send is disabled while a leg is illegal, the reason beside it, and the
  page's leg numbers are the server's (the same command sent anyway is refused naming the same leg).
- GSC2-BEAM-3: a shot labelled "(cannot hit)" is shown disabled with the reason, on the Orders pane and in
  the map's tray.
"""

from __future__ import annotations

import httpx

from tests.web.support import PHONE, Console, evaluate_in_fresh_page, page_url

FORM = "section.form[data-command='gsc2.move']"


def _post(server, game: str, token: str, command: dict) -> httpx.Response:
    return httpx.post(
        f"{server.url}/v1/games/{game}/commands",
        json={"command": command},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _to_movement(server, created: dict) -> str:
    """Start the duel and settle who moves first; returns the seat whose move form is open."""
    game, seats = created["game_id"], created["seats"]
    for _ in range(12):
        for seat, token in seats.items():
            got = httpx.get(
                f"{server.url}/v1/games/{game}/options", headers={"Authorization": f"Bearer {token}"}, timeout=30
            ).json()
            if any(f["command"] == "gsc2.move" for f in got["forms"]):
                return seat
            wanted = [o for o in got["options"] if o["command"]["type"] in ("gsc2.start", "gsc2.choose_order")]
            if wanted:
                assert _post(server, game, token, wanted[0]["command"]).status_code == 201
                break
    raise AssertionError("no seat came to move")


def test_gsc2_mov_3_an_illegal_leg_disables_send_with_the_reason_and_the_server_numbers_it_alike(browser, server):
    created = httpx.post(
        f"{server.url}/v1/games", json={"ruleset": "gsc2", "scenario": "duel", "options": {}}, timeout=30
    ).json()
    mover = _to_movement(server, created)
    console = Console()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        page = console.watch(ctx.new_page(), mover)
        page.goto(page_url(server.url, created["game_id"], created["seats"][mover]))
        page.wait_for_selector(f"{FORM} .add-leg")
        page.tap(f"{FORM} .add-leg")  # leg 1: every inch the ship has
        page.wait_for_selector(f"{FORM} .leg[data-i='0']")
        assert page.is_enabled(f"{FORM} .send-form") and not page.query_selector(f"{FORM} .send-why")
        page.tap(f"{FORM} .add-leg")  # leg 2: 0" (nothing left), then 3"
        page.fill(f"{FORM} .leg[data-i='1'] .leg-distance", "3")
        page.dispatch_event(f"{FORM} .leg[data-i='1'] .leg-distance", "change")
        page.wait_for_selector(f"{FORM} .send-why")
        why = page.inner_text(f"{FORM} .send-why")
        assert 'leg 2: only 0" left' in why, why
        assert not page.is_enabled(f"{FORM} .send-form")
        described = page.get_attribute(f"{FORM} .send-form", "aria-describedby")
        assert described == page.get_attribute(f"{FORM} .send-why", "id")
        # the same command sent anyway: the server names the same leg
        command = page.evaluate("() => salvo.drafts.compose(salvo.forms.find((f) => f.command === 'gsc2.move'))")
        r = _post(server, created["game_id"], created["seats"][mover], command)
        assert r.status_code == 422 and r.json()["rule"] == "GSC2-MOV-3", r.text
        assert r.json()["detail"].startswith("leg 2: "), r.json()["detail"]
        # the leg removed, Send is back
        page.tap(f"{FORM} .leg[data-i='1'] button[aria-label^='Remove']")
        page.wait_for_selector(f"{FORM} .send-why", state="detached")
        assert page.is_enabled(f"{FORM} .send-form")
    finally:
        ctx.close()
    assert console.unexpected() == []


CANNOT_HIT_JS = """async () => {
  const { optionsBlock, targetActions } = await import('/static/options.js');
  const fire = (label) => ({ command: { type: 'gsc2.fire', ship: 'hood', battery: 'a', target: 'bismarck' },
    label, piece: 'hood', target: 'bismarck', group: 'fire', rule: 'GSC2-BEAM-3' });
  const options = [fire('Hood: A (2×1) at Bismarck, 30" (cannot hit)'),
    fire('Hood: B (2×1) at Bismarck, 8" (hits on ≤ 5)')];
  const box = document.createElement('div');
  box.append(...optionsBlock(options, { selected: 'hood', disabled: false, onSend: () => {}, pieceLabel: (x) => x }));
  const buttons = [...box.querySelectorAll('button.opt')];
  const tray = targetActions(options, new Map(), 'hood', 'bismarck');
  return { buttons: buttons.map((b) => ({ disabled: b.disabled, text: b.textContent })),
    tray: tray.map((a) => ({ label: a.label, why: a.why })) };
}"""


def test_gsc2_beam_3_a_shot_that_cannot_hit_is_shown_disabled_with_the_reason(browser, server):
    got, console = evaluate_in_fresh_page(browser, server.url, "cannot-hit", CANNOT_HIT_JS, None)
    assert console.unexpected() == []
    pointless, fair = got["buttons"]
    assert pointless["disabled"]
    assert "cannot hit: after range and modifiers no roll succeeds (GSC2-BEAM-3)" in pointless["text"]
    assert not fair["disabled"] and "hits on ≤ 5" in fair["text"]
    assert got["tray"][0]["why"] and "(cannot hit)" not in got["tray"][0]["label"]
    assert got["tray"][1]["why"] is None
