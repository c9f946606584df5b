"""The page's small helpers for issue 38, run in a real page: several seats' tokens in one link (readLink,
pageUrl), the one order a phase with nothing to do leaves (onlyEnd: GSC2-SEQ-1, ASC-SEQ-1, SF-R-3; never a
start, SF-R-21), and path costs in words (1.33, not 1.3333333333333333)."""

from __future__ import annotations

from tests.web.support import evaluate_in_fresh_page

SCRIPT = """async () => {
  const links = await import('/static/links.js');
  const game = await import('/static/game.js');
  const forms = await import('/static/forms.js');
  const url = links.pageUrl('g_1', ['aaa', 'bbb', 'ccc']);
  const opt = (type, group, label) => ({ command: { type }, group, label });
  return {
    url, read: links.readLink(url), one: links.readLink(links.pageUrl('g_1', 'aaa')),
    legacy: links.readLink('/?game=g_2&token=old'),
    ends: [
      game.onlyEnd([opt('gsc2.end_phase', 'phase', 'End the boarding phase')], []),
      game.onlyEnd([opt('starfinder.pass', 'phase', 'Pass: take no gunnery action this round'),
                    opt('starfinder.change_role', 'role', 'Take the pilot role from next round')], []),
      game.onlyEnd([opt('starfinder.pass', 'phase', 'Begin the battle (nobody acts in round 1)')], []),
      game.onlyEnd([opt('gsc2.end_phase', 'phase', 'End the beams phase'), opt('gsc2.fire', 'fire', 'Fire')], []),
      game.onlyEnd([opt('gsc2.end_phase', 'phase', 'End the movement phase')], [{ command: 'gsc2.move' }]),
      game.onlyEnd([opt('gsc2.start', 'phase', 'Start the game')], []),
    ].map((o) => o && o.command.type),
    costs: [forms.num(4 / 3), forms.num(2), forms.num(0.5), forms.num(undefined)],
  };
}"""


def test_links_hold_several_seats_and_a_phase_with_nothing_to_do_is_recognised(browser, server):
    got, console = evaluate_in_fresh_page(browser, server.url, "helpers", SCRIPT, None)
    assert got["url"].endswith("?game=g_1#token=aaa&token=bbb&token=ccc"), got["url"]
    assert got["read"]["tokens"] == ["aaa", "bbb", "ccc"] and got["read"]["token"] == "aaa"
    assert got["one"]["tokens"] == ["aaa"]
    assert got["legacy"]["tokens"] == ["old"] and got["legacy"]["legacy"] is True
    # GSC2-SEQ-1 and SF-R-3 ends are taken for the seat; SF-R-21's opening, a start, a phase with a shot or a
    # form left are not
    assert got["ends"] == ["gsc2.end_phase", "starfinder.pass", None, None, None, None], got["ends"]
    assert got["costs"] == ["1.33", "2", "0.5", ""], got["costs"]
    assert console.unexpected() == [], console.unexpected()
