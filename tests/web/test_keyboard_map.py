"""The map by keyboard alone (issue 16 follow-ups): the map box takes focus, its arrow keys pan, + and −
zoom, 0 shows the whole map (and none of them steps the replay); the old per-ruleset renderers (a view
with no ``draw``) answer Enter like the board and keep focus on the piece across their redraw.
"""

from __future__ import annotations

from tests.web.support import ARTIFACTS, Console
from tests.web.test_keyboard_play import _create, _open

VIEWBOX_JS = "() => document.querySelector('#board').getAttribute('viewBox').split(/\\s+/).map(Number)"


def _view_box(k) -> list[float]:
    return k.page.evaluate(VIEWBOX_JS)


def _key_moves_view(k, key: str, before: list[float]) -> list[float]:
    k.page.keyboard.press(key)
    k.page.wait_for_function(
        f"(b) => ({VIEWBOX_JS})().some((n, i) => Math.abs(n - b[i]) > 1e-6)", arg=before, polling=50
    )
    k.stays_on(".board-wrap")
    return _view_box(k)


def test_the_map_pans_and_zooms_by_keyboard(browser, server, desk):
    console = Console()
    created = _create(server, "gsc2", "duel")
    k = _open(console, desk, server, created, "red")
    k.tab_to(".board-wrap")  # named ("Map: arrow keys pan ...") and outlined, as every stop is checked
    assert "arrow keys pan" in k.page.get_attribute(".board-wrap", "aria-label")
    whole = _view_box(k)
    x, y, w, h = whole
    right = _key_moves_view(k, "ArrowRight", whole)
    assert abs(right[0] - (x + 0.2 * w)) < 1e-2 and right[1:] == whole[1:], (whole, right)  # a fifth of the view
    down = _key_moves_view(k, "ArrowDown", right)
    assert abs(down[1] - (y + 0.2 * h)) < 1e-2 and down[0] == right[0], (right, down)
    left = _key_moves_view(k, "ArrowLeft", down)
    up = _key_moves_view(k, "ArrowUp", left)
    assert all(abs(a - b) < 1e-2 for a, b in zip(up, whole, strict=True)), (whole, up)  # back where it started
    closer = _key_moves_view(k, "+", up)
    assert abs(closer[2] - w / 1.6) < 1e-2 and abs(closer[3] - h / 1.6) < 1e-2, closer  # zoomed in about the centre
    assert abs((closer[0] + closer[2] / 2) - (x + w / 2)) < 1e-2
    panned = _key_moves_view(k, "ArrowRight", closer)
    assert abs(panned[0] - (closer[0] + 0.2 * closer[2])) < 1e-2, panned  # a fifth of the zoomed view
    farther = _key_moves_view(k, "-", panned)
    assert abs(farther[2] - w) < 1e-2, farther
    again = _key_moves_view(k, "+", farther)
    shown = _key_moves_view(k, "0", again)
    assert all(abs(a - b) < 1e-2 for a, b in zip(shown, whole, strict=True)), (whole, shown)  # 0: the whole map
    # the map's arrows are its own: no replay step was taken, the page is still live
    assert k.page.get_attribute("#mode", "data-mode") == "live"
    ARTIFACTS.mkdir(exist_ok=True)
    k.page.screenshot(path=str(ARTIFACTS / "keyboard-map-focus-1440x900.png"))
    assert console.unexpected() == [], console.unexpected()
