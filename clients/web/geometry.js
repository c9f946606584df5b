// Board geometry from the drawing contract (docs/view-contract.md, service/domain/core/drawing.py):
// where a position of each board kind lands in the SVG's own units, hex cells and their neighbours,
// headings and arcs. No DOM here.

/** @typedef {import("../types/salvo").DrawBoard} DrawBoard */
/** @typedef {import("../types/salvo").Drawing} Drawing */
/** @typedef {import("../types/salvo").Point2} Point2 */
/** @typedef {import("../types/salvo").XY} XY */

const SQ3 = Math.sqrt(3);
// axial steps through hexside k, 0 = the first facing, clockwise (service/domain/core/hexgrid.py)
/** @type {XY[]} */
export const HEX_DIRS = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];

/** @param {Pick<DrawBoard, "orientation">} board @param {number} q @param {number} r
 * @returns {XY} the centre of hex (q, r) in SVG units */
export function hexCentre(board, q, r) {
  return board.orientation === "pointy" ? [SQ3 * (q + r / 2), 1.5 * r] : [1.5 * q, SQ3 * (r + q / 2)];
}

/** Steps between two axial hexes. @param {XY} a @param {XY} b */
export function hexDistance(a, b) {
  const dq = a[0] - b[0], dr = a[1] - b[1];
  return (Math.abs(dq) + Math.abs(dr) + Math.abs(dq + dr)) / 2;
}

/** @param {XY} hex @returns {XY[]} */
export function hexNeighbours([q, r]) { return HEX_DIRS.map(([dq, dr]) => [q + dq, r + dr]); }

/** An SVG points list. @param {Pick<DrawBoard, "orientation">} board @param {number} cx @param {number} cy @param {number} [size] */
export function hexCorners(board, cx, cy, size = 1) {
  const offset = board.orientation === "pointy" ? 30 : 0;
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = ((60 * k + offset) * Math.PI) / 180;
    pts.push(`${(cx + size * Math.cos(a)).toFixed(3)},${(cy + size * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

// A Point2 ({x, y}, or a pair) in SVG units.
/** @param {Pick<DrawBoard, "kind" | "orientation">} board @param {Point2 | XY | null | undefined} at
 * @returns {XY | null} */
export function place(board, at) {
  if (!at) return null;
  const x = Array.isArray(at) ? at[0] : at.x, y = Array.isArray(at) ? at[1] : at.y;
  if (typeof x !== "number" || typeof y !== "number") return null;
  return board.kind === "hex" ? hexCentre(board, x, y) : [x, y];
}

// A piece's facing in screen degrees clockwise from up (plane: degrees; hex: facing index).
/** @param {Pick<DrawBoard, "kind" | "orientation">} board @param {unknown} facing @returns {number | null} */
export function headingDeg(board, facing) {
  if (typeof facing !== "number") return null;
  if (board.kind !== "hex") return facing;
  return facing * 60 + (board.orientation === "pointy" ? 30 : 0);
}

// One SVG unit of the board in board units (hex ranges are in hexes: centre to centre is √3).
/** @param {Pick<DrawBoard, "kind">} board @param {number} range */
export function rangeUnits(board, range) { return board.kind === "hex" ? range * SQ3 : range; }

// Every hex cell to draw: the board's radius, or around what is on it when unbounded.
/** @param {Pick<DrawBoard, "radius">} board @param {Pick<Drawing, "pieces" | "markers">} drawing @returns {XY[]} */
export function hexCells(board, drawing) {
  /** @type {XY[]} */
  const cells = [];
  if (board.radius != null) {
    const n = board.radius;
    for (let q = -n; q <= n; q++) {
      for (let r = Math.max(-n, -q - n); r <= Math.min(n, -q + n); r++) cells.push([q, r]);
    }
    return cells;
  }
  /** @type {XY[]} */
  const pts = [...(drawing.pieces || []).map((p) => p.at), ...(drawing.markers || []).map((m) => m.at)]
    .filter(Boolean).map((a) => [a.x, a.y]);
  if (!pts.length) pts.push([0, 0]);
  /** @type {XY} */
  const c = [Math.round(pts.reduce((a, p) => a + p[0], 0) / pts.length),
    Math.round(pts.reduce((a, p) => a + p[1], 0) / pts.length)];
  const n = Math.min(30, Math.max(...pts.map((p) => hexDistance(p, c))) + 3);
  for (let q = -n; q <= n; q++) {
    for (let r = Math.max(-n, -q - n); r <= Math.min(n, -q + n); r++) cells.push([c[0] + q, c[1] + r]);
  }
  return cells;
}

// The drawing's extent in SVG units: [x, y, w, h] with a margin.
/** @param {Drawing} drawing @returns {[number, number, number, number]} */
export function extent(drawing) {
  const b = drawing.board;
  if (b.kind === "plane" && b.width && b.height) {
    // the table, and any piece beyond its edge (a ship that left it) stays in view
    const xs = [0, b.width, ...(drawing.pieces || []).map((p) => p.at && p.at.x).filter(Number.isFinite)];
    const ys = [0, b.height, ...(drawing.pieces || []).map((p) => p.at && p.at.y).filter(Number.isFinite)];
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const m = Math.max(x1 - x0, y1 - y0) * 0.03;
    return [x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m];
  }
  /** @type {XY[]} */
  let pts = [];
  if (b.kind === "hex") pts = hexCells(b, drawing).map(([q, r]) => hexCentre(b, q, r));
  if (b.kind === "starmap") pts = (b.nodes || []).map((n) => place(b, n.at));
  pts.push(...(drawing.pieces || []).map((p) => place(b, p.at)).filter(Boolean));
  if (!pts.length) pts = [[0, 0], [10, 10]];
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const m = Math.max(1.5, 0.06 * Math.max(x1 - x0, y1 - y0));
  return [x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m];
}

// (x, y) at `deg` degrees clockwise from up, r away from (cx, cy)
/** @param {number} cx @param {number} cy @param {number} r @param {number} deg @returns {XY} */
export function polar(cx, cy, r, deg) {
  const a = (deg * Math.PI) / 180;
  return [cx + r * Math.sin(a), cy - r * Math.cos(a)];
}

/** An SVG path: the sector from `fromDeg` to `toDeg` (clockwise from up), or a whole circle.
 * @param {number} cx @param {number} cy @param {number} r @param {number} fromDeg @param {number} toDeg */
export function wedgePath(cx, cy, r, fromDeg, toDeg) {
  let span = toDeg - fromDeg;
  while (span <= 0) span += 360;
  if (span >= 359.9) {
    return `M ${cx - r} ${cy} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0 Z`;
  }
  const [x1, y1] = polar(cx, cy, r, fromDeg), [x2, y2] = polar(cx, cy, r, fromDeg + span);
  return `M ${cx} ${cy} L ${x1.toFixed(3)} ${y1.toFixed(3)} A ${r} ${r} 0 ${span > 180 ? 1 : 0} 1 ${x2.toFixed(3)} ${y2.toFixed(3)} Z`;
}

// A GSC2-style free move on the plane: each leg turns, then goes ahead (heading clockwise from up, y down).
/** @param {XY} start @param {number | null | undefined} heading
 * @param {{turn?: unknown, distance?: unknown}[] | null | undefined} legs @returns {{pts: XY[], heading: number}} */
export function legsPath(start, heading, legs) {
  let [x, y] = start;
  let h = heading || 0;
  /** @type {XY[]} */
  const pts = [[x, y]];
  for (const leg of legs || []) {
    h += Number(leg.turn) || 0;
    const d = Number(leg.distance) || 0;
    if (d) { [x, y] = polar(x, y, d, h); pts.push([x, y]); }
  }
  return { pts, heading: ((h % 360) + 360) % 360 };
}
