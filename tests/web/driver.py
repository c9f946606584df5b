"""Playing a game through the page alone, as a person would: taps on the map and clicks on the labelled
orders and forms (never the JSON box). A Seat wraps one browser page; ``act`` presses something and
waits until the page has the game's next version (or shows a rejection)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.web.support import ARTIFACTS

# what the page knows, read from the GameView instance the page exposes as window.salvo
VERSION_JS = "() => (window.salvo && salvo.live && !salvo.sending) ? salvo.live.version : -1"
STATE_JS = """() => {
  const d = salvo.live && salvo.live.state && salvo.live.state.draw;
  return { version: salvo.live.version, over: salvo.live.over, phase: salvo.live.phase, turn: salvo.live.turn,
    mustAct: !!(d && d.status.you && d.status.you.must_act),
    options: salvo.labelled.length, forms: salvo.forms.length };
}"""


class Rejected(AssertionError):
    pass


@dataclass
class Seat:
    page: object
    name: str
    touch: bool = False
    actions: list[str] = field(default_factory=list)

    def state(self) -> dict:
        return self.page.evaluate(STATE_JS)

    def version(self) -> int:
        return int(self.page.evaluate(VERSION_JS))

    def sync(self, version: int) -> None:
        """Wait until the page has the game at ``version`` (or later). A step hidden from this viewer (a
        sealed fire declaration) sends it no event, but a caught_up at the new head: it catches up too."""
        self.page.wait_for_function(f"() => ({VERSION_JS})() >= {version}", polling=50)

    def press(self, selector: str) -> None:
        """A tap on a phone, a click on a desktop."""
        loc = self.page.locator(selector).first
        self.page.bring_to_front()  # a background tab gets its input (and frames) late
        try:
            if self.touch:
                loc.tap()
            else:
                loc.click()
        except Exception:
            ARTIFACTS.mkdir(exist_ok=True)
            self.page.screenshot(path=str(ARTIFACTS / f"failed-press-{self.name}.png"))
            raise

    def act(self, selector: str, what: str) -> int:
        """Press something that sends a command; wait for the next version. Returns it."""
        before = self.version()
        self.press(selector)
        self.page.wait_for_function(
            f"() => ({VERSION_JS})() > {before} || !document.querySelector('#rejection').hidden", polling=50
        )
        if not self.page.is_hidden("#rejection"):
            raise Rejected(f"{self.name}: {what}: {self.page.inner_text('#rejection')}")
        self.actions.append(what)
        return self.version()

    def has(self, selector: str) -> bool:
        return self.page.query_selector(selector) is not None

    # ---- map -------------------------------------------------------------------------------
    def in_view(self, selector: str) -> bool:
        return self.page.evaluate(
            """(sel) => {
          const n = document.querySelector(sel), b = document.querySelector('#board').getBoundingClientRect();
          if (!n) return false;
          const r = n.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
          return x > b.left && x < b.right && y > b.top && y < b.bottom;
        }""",
            selector,
        )

    def uncovered(self, selector: str) -> bool:
        """Scrolled to the middle of the window, the thing's centre is the thing itself, not something
        drawn over it (the game bar over a piece at the map's top edge, say)."""
        return self.page.evaluate(
            """(sel) => {
          const n = document.querySelector(sel);
          if (!n) return false;
          let r = n.getBoundingClientRect();
          window.scrollBy(0, r.top + r.height / 2 - innerHeight / 2);
          r = n.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return !!top && (top === n || n.contains(top) || n.parentNode.contains(top));
        }""",
            selector,
        )

    def see(self, selector: str) -> None:
        """As a player would: zoom out to the whole map when what to tap is off screen or covered."""
        if not self.in_view(selector) or not self.uncovered(selector):
            self.press("button[aria-label='Whole map']")

    def select(self, piece: str) -> None:
        self.see(f"#board .piece[data-id='{piece}'] > .hit")
        self.press(f"#board .piece[data-id='{piece}'] > .hit")
        self.page.wait_for_selector(f"#board .piece.selected[data-id='{piece}']", state="attached")

    def target(self, piece: str, choose: str | None = None) -> int:
        """Tap a highlighted target on the map, then one of the actions the tray offers for it."""
        self.see(f"#board .target[data-id='{piece}'] > .hit")
        self.press(f"#board .target[data-id='{piece}'] > .hit")
        self.page.wait_for_selector("#tray:not([hidden]) .tray-act")
        pick = "#tray .tray-act:not(:disabled)" + (f":has-text('{choose}')" if choose else "")
        return self.act(pick, f"target {piece}")

    def option(self, command_type: str, text: str | None = None) -> int:
        sel = f"#commands button.opt[data-type='{command_type}']:not(:disabled)"
        sel += f":has-text('{text}')" if text else ""
        return self.act(sel, f"{command_type} {text or ''}".strip())

    def option_types(self) -> list[str]:
        # what may be pressed: an option shown refused (a shot that cannot hit) is not one
        return self.page.eval_on_selector_all(
            "#commands button.opt:not(.refused)", "els => els.map((e) => e.dataset.type)"
        )

    def send_form(self, command: str, piece: str | None = None) -> int:
        scope = f"section.form[data-command='{command}']" + (f":has(.pc[data-piece='{piece}'])" if piece else "")
        return self.act(f"{scope} button.send-form", f"form {command} {piece or ''}".strip())


def play_loop(seats: list[Seat], spectator: Seat, plan, max_actions: int = 300, until=None) -> int:
    """Let each seat that has something to do act (``plan(seat)`` presses one thing), the spectator
    following every step. Ends when the game is over, ``until()`` holds, or fails on a stall."""
    latest = max(s.version() for s in seats)
    for n in range(max_actions):
        for s in (*seats, spectator):
            s.sync(latest)  # every page follows every step, the ones hidden from it included
        if seats[0].state()["over"] or (until and until()):
            return n
        for s in seats:
            st = s.state()
            if st["options"] or st["forms"]:
                latest = plan(s, st)
                break
        else:
            # a page may have moved the game on by itself (a phase with nothing to do ended for its seat):
            # follow it before calling this a stall
            for s in seats:
                s.page.wait_for_function(f"() => ({VERSION_JS})() >= 0", polling=50)
            moved = max(s.version() for s in seats)
            if moved > latest:
                latest = moved
                continue
            raise AssertionError(f"no seat has anything to do at v{latest}: a stall")
    raise AssertionError(f"still playing after {max_actions} actions")
