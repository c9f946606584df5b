"""Fire on the map stays legible at every zoom (issue 16 follow-up: ASC fire lines were thin at whole-map
zoom on a desktop, and hit/miss markers sat on the pieces). board.js draws a shot as a dark casing under a
bright core, both stroked in screen pixels; a shot's result stands off its target, towards the shooter.
Measured in the browser at the whole map and zoomed in 4×, on a wide table (a whole ASC map's scale).
"""

from __future__ import annotations

from tests.web.support import evaluate_in_fresh_page

HIT_RADIUS = 24  # board.js: a piece's hit area, in CSS px

DRAWING = {
    "board": {"kind": "plane", "width": 240, "height": 120},
    "sides": ["red", "blue"],
    "pieces": [
        {"id": "a", "label": "Alpha", "side": "red", "kind": "ship", "at": {"x": 20, "y": 60}, "status": "active"},
        {"id": "b", "label": "Bravo", "side": "blue", "kind": "ship", "at": {"x": 220, "y": 60}, "status": "active"},
    ],
    "effects": [
        {"n": 1, "kind": "fire", "text": "Alpha fires at Bravo", "source": "a", "target": "b"},
        {"n": 2, "kind": "hit", "text": "hit: 3 damage", "source": "a", "target": "b", "amount": 3},
    ],
}

MEASURE_JS = """async (drawing) => {
  const { Board } = await import('/static/board.js');
  const root = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  root.id = 'board';
  root.setAttribute('style', 'width: 1400px; height: 700px; display: block');
  document.body.replaceChildren(root);
  const board = new Board(root, {});
  board.render(drawing, {});
  board.render(drawing, {});  // the effects are no longer new: their resting look, not the flash
  const measure = () => {
    const line = root.querySelector('line.fx'), casing = root.querySelector('line.fx-casing');
    const cs = getComputedStyle(line), cc = getComputedStyle(casing);
    const centre = (n) => { const r = n.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
    const target = centre(root.querySelector(".piece[data-id='b'] .hit"));
    const mark = centre(root.querySelector(".fx[data-kind='hit'] .fx-text"));
    return {
      core: [cs.strokeWidth, cs.vectorEffect, Number(cs.opacity)],
      casing: [cc.strokeWidth, cc.vectorEffect, Number(cc.opacity)],
      below: casing.compareDocumentPosition(line) & Node.DOCUMENT_POSITION_FOLLOWING,
      apart: Math.hypot(mark[0] - target[0], mark[1] - target[1]),
      towards: mark[0] < target[0],  // the shooter stands to the left
    };
  };
  const whole = measure();
  const b = root.querySelector(".piece[data-id='b'] .hit").getBoundingClientRect();
  board.zoomAt(4, b.x + b.width / 2, b.y + b.height / 2);  // about the target: it stays in view
  return { whole, zoomed: measure() };
}"""


def test_fire_lines_and_results_are_legible_at_every_zoom(browser, server):
    got, console = evaluate_in_fresh_page(browser, server.url, "board effects", MEASURE_JS, DRAWING)
    for zoom in ("whole", "zoomed"):
        m = got[zoom]
        width, effect, opacity = m["core"]
        assert effect == "non-scaling-stroke" and float(width.removesuffix("px")) >= 3 and opacity >= 0.8, (zoom, m)
        width, effect, _ = m["casing"]
        assert effect == "non-scaling-stroke" and float(width.removesuffix("px")) >= 6, (zoom, m)
        assert m["below"], (zoom, m)  # the casing is drawn first, under the core
        assert m["apart"] > HIT_RADIUS and m["towards"], (zoom, m)  # the result is off the piece, on the line
    assert console.unexpected() == [], console.unexpected()
