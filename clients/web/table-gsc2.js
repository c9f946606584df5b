// GSC2: the open table in inches. y grows up the table; headings are degrees, 0 = up, clockwise.
import { svg, clear, fmt, sideColor } from "./dom.js";

/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/openapi").components["schemas"]["Leg"]} Leg */
/** @typedef {import("../types/openapi").components["schemas"]["Gsc2Move"]} Gsc2Move */
/** @typedef {import("../types/openapi").components["schemas"]["Gsc2ShipMoved"]} ShipMoved */
/** @typedef {import("./hexmap.js").MapCtx} MapCtx */
/** A GSC2 ship on the table: the panel's ship, where it stands (inches, y up). @typedef {import("./panel.js").Gsc2Ship & {x: number, y: number}} TableShip */
/** The parts of a GSC2 view the table draws (the views are not in the OpenAPI document).
 * @typedef {{table?: {width?: number, height?: number}, sides?: string[] | Record<string, unknown>, ships?: TableShip[],
 *   terrain?: {id: string, kind?: string, x: number, y: number, radius?: number}[],
 *   missiles?: {id: string, side?: string, target?: string, x: number, y: number, count?: number}[],
 *   pods?: {id: string, side?: string, x: number, y: number, squad?: string}[], moving?: string | null, turn?: number}} Gsc2View */

// arc code -> [centre relative to heading, width] (service/domain/gsc2/ships.py ARCS, GSC2-BEAM-2)
/** @type {Record<string, [number, number]>} */
export const ARCS = {
  F: [0, 90], A: [180, 90], L: [-90, 90], R: [90, 90],
  FS: [0, 180], AS: [180, 180], LS: [-90, 180], RS: [90, 180], T: [0, 360],
};
// normal range per beam class (GSC2-BEAM-4): the arc wedge is drawn that far, long range dashed beyond
/** @type {Record<string, number>} */
const NORMAL = { light: 12, medium: 24, heavy: 36 };
const ARC_COLORS = ["#f5a524", "#12a594", "#8e4ec6", "#e93d82", "#0090ff", "#46a758"];

/** @param {number[]} at @param {number} heading @param {number} d @returns {[number, number]} */
function advance([x, y], heading, d) {
  const r = (heading * Math.PI) / 180;
  return [x + d * Math.sin(r), y + d * Math.cos(r)];
}

// The path a move command would take: each leg turns, then goes ahead.
/** @param {{x: number, y: number, heading?: number}} ship @param {Leg[] | null | undefined} legs */
export function legsPath(ship, legs) {
  /** @type {number[]} */
  let pos = [ship.x, ship.y];
  let heading = ship.heading || 0;
  const pts = [pos];
  for (const leg of legs || []) {
    heading += leg.turn || 0;
    if (leg.distance) { pos = advance(pos, heading, leg.distance); pts.push(pos); }
  }
  return { pts, heading };
}

/** @param {number} cx @param {number} cy @param {number} r @param {number} fromDeg @param {number} toDeg */
function wedge(cx, cy, r, fromDeg, toDeg) {
  const p = (/** @type {number} */ a) => {
    const rad = (a * Math.PI) / 180;
    return `${(cx + r * Math.sin(rad)).toFixed(3)} ${(cy - r * Math.cos(rad)).toFixed(3)}`;
  };
  const large = toDeg - fromDeg > 180 ? 1 : 0;
  return `M ${cx} ${cy} L ${p(fromDeg)} A ${r} ${r} 0 ${large} 1 ${p(toDeg)} Z`;
}

/** @param {SVGSVGElement} root @param {GameView} state @param {MapCtx} ctx */
export function renderGsc2(root, state, ctx) {
  const view = /** @type {Gsc2View} */ (state);
  clear(root);
  delete root.dataset.full;
  const W = (view.table && view.table.width) || 48;
  const H = (view.table && view.table.height) || 48;
  const sy = (/** @type {number} */ y) => H - y; // table y (up) -> screen y (down)
  const m = 1.5;
  root.setAttribute("viewBox", `${-m} ${-m} ${W + 2 * m} ${H + 2 * m}`);
  root.setAttribute("data-ruleset", "gsc2");
  const sides = view.sides || [];
  const ships = view.ships || [];
  const byId = Object.fromEntries(ships.map((s) => [s.id, s]));
  const selected = byId[ctx.selected];
  const options = ctx.options || [];

  // table and a 6" grid
  root.append(svg("defs", {}, svg("clipPath", { id: "table-clip" }, svg("rect", { x: 0, y: 0, width: W, height: H }))));
  root.append(svg("rect", { class: "table", x: 0, y: 0, width: W, height: H }));
  const grid = svg("g", { class: "grid" });
  for (let x = 6; x < W; x += 6) grid.append(svg("line", { x1: x, y1: 0, x2: x, y2: H }));
  for (let y = 6; y < H; y += 6) grid.append(svg("line", { x1: 0, y1: sy(y), x2: W, y2: sy(y) }));
  root.append(grid);

  // terrain
  const terrain = svg("g", { class: "terrain" });
  for (const t of view.terrain || []) {
    const r = t.radius || 1;
    const g = svg("g", { class: `terrain-item ${t.kind || ""}`, dataset: { id: t.id } },
      svg("title", {}, `${t.kind || "terrain"} ${t.id} (r ${fmt(r)}")`),
      svg("circle", { cx: t.x, cy: sy(t.y), r }));
    if (t.kind === "asteroid") {
      for (let i = 0; i < 3; i++) {
        const a = (i * 2.1) + (t.x || 0);
        g.append(svg("circle", { class: "rock", cx: t.x + r * 0.45 * Math.cos(a), cy: sy(t.y) + r * 0.45 * Math.sin(a), r: r * 0.22 }));
      }
    }
    g.append(svg("text", { x: t.x, y: sy(t.y) + r + 0.9, class: "label small" }, t.kind || t.id));
    terrain.append(g);
  }
  root.append(terrain);

  // firing arcs of the selected ship's batteries (beams; missiles have no arc)
  if (selected && selected.status === "active") {
    const arcs = svg("g", { class: "arcs", "clip-path": "url(#table-clip)" });
    const beams = (selected.data_sheet && selected.data_sheet.beams) || [];
    beams.forEach((b, i) => {
      const arc = ARCS[b.arc];
      if (!arc) return;
      const sys = (selected.systems || {})[b.id] || {};
      const out = sys.destroyed || sys.damaged;
      const used = (selected.used_this_turn || []).includes(b.id);
      const r = NORMAL[b.class] || 24;
      const color = ARC_COLORS[i % ARC_COLORS.length];
      const cx = selected.x, cy = sy(selected.y);
      const [c, w] = arc;
      const cls = `arc${out ? " out" : ""}${used ? " used" : ""}`;
      const title = svg("title", {}, `${b.name || b.id} (${b.id}) arc ${b.arc}, ${b.class}: normal range ${r}"${used ? ", fired" : ""}${out ? ", out of action" : ""}`);
      const shape = w >= 360
        ? svg("circle", { class: cls, cx, cy, r, fill: color, stroke: color, dataset: { battery: b.id } }, title)
        : svg("path", { class: cls, d: wedge(cx, cy, r, selected.heading + c - w / 2, selected.heading + c + w / 2),
          fill: color, stroke: color, dataset: { battery: b.id } }, title);
      arcs.append(shape);
    });
    root.append(arcs);
  }

  // this turn's movement trails (from the ship_moved events up to the shown point)
  const trails = svg("g", { class: "trails" });
  for (const ev of ctx.events || []) {
    if (ev.type !== "gsc2.ship_moved" || ev.turn !== view.turn || ev.seq > (ctx.at ?? Infinity)) continue;
    const moved = /** @type {ShipMoved} */ (/** @type {unknown} */ (ev.data));
    const path = (moved && moved.path) || [];
    if (path.length < 2) continue;
    const s = byId[moved.ship];
    trails.append(svg("polyline", {
      points: path.map(([x, y]) => `${x},${sy(y)}`).join(" "),
      stroke: sideColor(s && s.side, sides), dataset: { ship: ev.data.ship },
    }));
  }
  root.append(trails);

  // move options of the selected ship (or the ship in the middle of its move): click to move
  const moverId = view.moving || ctx.selected;
  const mover = byId[moverId];
  const moves = /** @type {Gsc2Move[]} */ (options.filter((o) => o.type === "gsc2.move" && o.ship === moverId && (o.legs || []).length));
  if (mover && moves.length) {
    const g = svg("g", { class: "move-options" });
    for (const cmd of moves) {
      const { pts, heading } = legsPath(mover, cmd.legs);
      const [ex, ey] = pts[pts.length - 1];
      const label = ctx.label ? ctx.label(cmd) : "move";
      const opt = svg("g", { class: "move-option", role: "button", tabindex: 0, dataset: { cmd: JSON.stringify(cmd) },
        onclick: (/** @type {MouseEvent} */ e) => { e.stopPropagation(); ctx.onCommand(cmd); } },
      svg("title", {}, label),
      svg("polyline", { points: pts.map(([x, y]) => `${x},${sy(y)}`).join(" ") }),
      svg("g", { transform: `translate(${ex} ${sy(ey)}) rotate(${heading})` },
        svg("circle", { r: 1.1, class: "hit" }),
        svg("path", { d: "M 0 -0.9 L 0.6 0.6 L 0 0.3 L -0.6 0.6 Z" })));
      g.append(opt);
    }
    root.append(g);
  }

  // missiles and pods
  const small = svg("g", { class: "missiles" });
  for (const m of view.missiles || []) {
    const color = sideColor(m.side, sides);
    const tgt = byId[m.target];
    if (tgt) small.append(svg("line", { class: "missile-line", x1: m.x, y1: sy(m.y), x2: tgt.x, y2: sy(tgt.y), stroke: color }));
    small.append(svg("g", { class: "missile", transform: `translate(${m.x} ${sy(m.y)})`, dataset: { id: m.id } },
      svg("title", {}, `salvo ${m.id}: ${m.count} missile(s) → ${m.target}`),
      svg("path", { d: "M 0 -0.6 L 0.45 0 L 0 0.6 L -0.45 0 Z", fill: color }),
      svg("text", { class: "label small", y: -0.9 }, `${m.count}`)));
  }
  for (const p of view.pods || []) {
    small.append(svg("circle", { class: "pod", cx: p.x, cy: sy(p.y), r: 0.35, fill: sideColor(p.side, sides) },
      svg("title", {}, `pod ${p.id} (${p.squad})`)));
  }
  root.append(small);

  // ships
  /** @type {Map<string, Command[]>} target id -> fire/launch options from the selected ship */
  const fireAt = new Map();
  for (const o of options) {
    if ((o.type === "gsc2.fire" || o.type === "gsc2.launch" || o.type === "gsc2.fire_tractor") && o.ship === ctx.selected) {
      if (!fireAt.has(o.target)) fireAt.set(o.target, []);
      fireAt.get(o.target).push(o);
    }
  }
  const shipLayer = svg("g", { class: "ships" });
  for (const s of ships) {
    const color = sideColor(s.side, sides);
    const size = 0.9 + Math.min(12, (s.data_sheet && s.data_sheet.size) || 6) / 10;
    const cmds = fireAt.get(s.id);
    const cls = ["ship", s.status || "", s.id === ctx.selected ? "selected" : "", cmds ? "target" : ""].join(" ").trim();
    const g = svg("g", {
      class: cls, role: "button", tabindex: 0,
      dataset: { id: s.id, side: s.side, x: s.x, y: s.y, heading: s.heading },
      transform: `translate(${s.x} ${sy(s.y)})`,
      onclick: (/** @type {MouseEvent} */ e) => {
        e.stopPropagation();
        if (cmds && cmds.length) ctx.onChoose(cmds, `Fire at ${s.name || s.id}`);
        else ctx.onSelect(s.id);
      },
    },
    svg("title", {}, `${s.name || s.id} (${s.side}) hull ${s.hull}/${s.max_hull}, heading ${fmt(s.heading)}°, moved ${fmt(s.moved || 0)}"`),
    svg("circle", { class: "halo", r: size * 1.6 }),
    svg("g", { transform: `rotate(${s.heading || 0})` },
      svg("path", { class: "hull", d: `M 0 ${-size} L ${size * 0.62} ${size * 0.8} L 0 ${size * 0.45} L ${-size * 0.62} ${size * 0.8} Z`, fill: color }),
      svg("line", { class: "heading", x1: 0, y1: -size, x2: 0, y2: -size * 1.9, stroke: color })),
    svg("text", { class: "label", y: size + 1.4 }, s.name || s.id),
    s.moved ? svg("text", { class: "label small moved", y: size + 2.5 }, `${fmt(s.moved)}" moved`) : null);
    shipLayer.append(g);
  }
  root.append(shipLayer);
}

// GSC2 ships for the side panel's ship list
/** @param {GameView} state */
export function gsc2Pieces(state) {
  const view = /** @type {Gsc2View} */ (state);
  return (view.ships || []).map((s) => ({ id: s.id, name: s.name || s.id, side: s.side, status: s.status }));
}
