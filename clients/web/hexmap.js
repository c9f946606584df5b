// Hex rulesets (ASC, Starfinder): a flat-topped axial grid (service/domain/core/hexgrid.py), facings 0..5 =
// N, NE, SE, S, SW, NW. Draws whatever in the view has a "hex": vessels with facings, bogeys as tokens,
// and, for Starfinder, ships with shield quadrants and hull, the focused ship's weapon arcs, projectiles in
// flight, enemy ships a gunner may fire at, and every hex a pilot's helm options reach (click to move there).
import { svg, clear, sideColor } from "./dom.js";

/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").Envelope} Envelope */
/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/salvo").XY} XY */
/** What a map renderer (renderHex, renderGsc2, renderStarmap) is handed by the game page.
 * @typedef {{viewer?: string, selected?: string | null, options?: Command[], events?: Envelope[], at?: number | null,
 *   label?: (cmd: Command) => string, onSelect: (id: string) => void, onCommand: (cmd: Command) => void,
 *   onChoose?: (cmds: Command[], title: string) => void}} MapCtx */
/** The parts of a hex ruleset's view (ASC, Starfinder) this map reads; the views are not in the OpenAPI document.
 * @typedef {{ruleset?: string, map_radius?: number, planet_hexes?: unknown[],
 *   map?: {radius?: number, planet_hexes?: unknown[]}, sides?: string[] | Record<string, unknown>,
 *   side_names?: Record<string, unknown>}} HexView */
/** A Starfinder weapon on a ship's data sheet. @typedef {{id: string, name?: string, arc?: string, range?: string,
 *   damage?: string, linked?: boolean, kind?: string}} Weapon */
/** An object of the view that stands on a hex, as hexItems finds it (its own fields, plus the hex and the
 * view key it was under): a vessel, a bogey, a Starfinder ship or projectile.
 * @typedef {{id: string, _hex: XY, _group?: string, name?: string, side?: string, facing?: number,
 *   status?: unknown, destroyed?: boolean, bogey?: string | number | null, vessel?: string,
 *   hull?: number, max_hull?: number, shields?: Record<string, number>, max_shields?: number,
 *   data_sheet?: {shields?: Record<string, number>, weapons?: Weapon[]}, effects?: {barrel_roll?: unknown},
 *   fired?: string[], battle_stations?: boolean, ship?: string, target?: string, weapon?: string}} HexItem */
/** The command fields the map reads to place a move or a shot (hex, to, path, ...).
 * @typedef {{type: string, seat?: string, hex?: unknown, to?: unknown, path?: string[], vessel?: string,
 *   target?: string, hexes?: number, side?: string}} MapCommand */
/** A hex a move option reaches: the commands that go there, and the facings they end with.
 * @typedef {{hex: XY, cmds: Command[], facings: Set<number>}} MoveTarget */
/** An end of a move. @typedef {{hex: XY, facing: number}} MoveEnd */

const SQ3 = Math.sqrt(3);
// service/domain/core/hexgrid.py DIRECTIONS: the axial step through hexside k (0 = N, clockwise)
const DIRS = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
const FACINGS = ["N", "NE", "SE", "S", "SW", "NW"];
// Starfinder arcs and shield quadrants, degrees clockwise from the bow (SF-GUN-3/4): forward and aft are
// 120° wide, port and starboard 60°
/** @type {Record<string, [number, number]>} */
const QUADRANTS = { forward: [-60, 60], starboard: [60, 120], aft: [120, 240], port: [240, 300] };
/** @type {Record<string, number>} */
const RANGE_HEXES = { short: 5, medium: 10, long: 20 }; // SF-GUN-5 range increments
const ARC_COLORS = ["#f5a524", "#58a6ff", "#30a46c", "#e5484d", "#8e4ec6", "#12a594"];
const FIRE = "starfinder.fire";
const SHIELD = "#4cc9f0";
/** @type {Record<string, string>} */
const HULL_COLORS = { ok: "#30a46c", warn: "#f5a524", bad: "#e5484d" };

/** @param {number} q @param {number} r @returns {XY} */
export function hexCenter(q, r) { return [1.5 * q, SQ3 * (r + q / 2)]; }

/** @param {unknown} h @returns {XY | null} */
function asHex(h) {
  if (Array.isArray(h) && h.length >= 2 && h.every((n) => typeof n === "number")) return [h[0], h[1]];
  const o = /** @type {{q?: unknown, r?: unknown}} */ (h);
  if (h && typeof h === "object" && typeof o.q === "number" && typeof o.r === "number") return [o.q, o.r];
  return null;
}

/** @param {number} cx @param {number} cy @param {number} [size] */
function corners(cx, cy, size = 1) {
  /** @type {string[]} */
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    pts.push(`${(cx + size * Math.cos(a)).toFixed(3)},${(cy + size * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

/** @param {XY} a @param {XY} b */
function distance(a, b) {
  const dq = a[0] - b[0], dr = a[1] - b[1];
  return (Math.abs(dq) + Math.abs(dr) + Math.abs(dq + dr)) / 2;
}

/** @param {XY} hex @param {number} dir @param {number} [n] @returns {XY} */
function step(hex, dir, n = 1) {
  const d = DIRS[((dir % 6) + 6) % 6];
  return [hex[0] + d[0] * n, hex[1] + d[1] * n];
}

// Where a move path (F = forward, L/R = one hexside anticlockwise/clockwise) ends, and facing: asc.move,
// and starfinder.move / evade / flyby.
/** @param {XY} hex @param {number} facing @param {string[] | null | undefined} path @returns {MoveEnd} */
export function pathEnd(hex, facing, path) {
  let [q, r] = hex;
  let f = ((facing % 6) + 6) % 6;
  for (const s of path || []) {
    if (s === "F") { q += DIRS[f][0]; r += DIRS[f][1]; }
    else if (s === "L") f = (f + 5) % 6;
    else if (s === "R") f = (f + 1) % 6;
  }
  return { hex: [q, r], facing: f };
}

// Where a Starfinder helm option would leave the ship if it succeeds (null: it does not leave its hex).
/** @param {Partial<HexItem> & {hex?: unknown}} ship @param {MapCommand} cmd @returns {MoveEnd | null} */
export function helmEnd(ship, cmd) {
  const hex = ship._hex || asHex(ship.hex);
  const f = typeof ship.facing === "number" ? ship.facing : 0;
  /** @type {MoveEnd} */
  let end = null;
  switch (cmd.type) {
    case "starfinder.move": case "starfinder.evade": case "starfinder.flyby":
      end = pathEnd(hex, f, cmd.path); break;
    case "starfinder.back_off": end = { hex: step(hex, f + 3, cmd.hexes), facing: f }; break;
    case "starfinder.barrel_roll": end = { hex: step(hex, f, cmd.hexes), facing: f }; break;
    case "starfinder.flip_and_burn": end = { hex: step(hex, f, cmd.hexes), facing: (f + 3) % 6 }; break;
    case "starfinder.slide": end = { hex: step(hex, f + (cmd.side === "starboard" ? 1 : -1), cmd.hexes), facing: f }; break;
    default: return null;
  }
  return end.hex[0] === hex[0] && end.hex[1] === hex[1] ? null : end;
}

// Every object in the view (one or two levels deep) that stands on a hex.
/** @param {unknown} view @returns {HexItem[]} */
export function hexItems(view) {
  /** @type {HexItem[]} */
  const out = [];
  /** @param {unknown} value @param {string | undefined} group @param {string | undefined} key @param {number} depth */
  const visit = (value, group, key, depth) => {
    if (!value || typeof value !== "object" || depth > 3) return;
    if (Array.isArray(value)) { value.forEach((v) => visit(v, group, undefined, depth + 1)); return; }
    const obj = /** @type {Record<string, unknown>} */ (value);
    const hex = asHex(obj.hex);
    if (hex) { out.push(/** @type {HexItem} */ ({ ...obj, id: obj.id ?? obj.vessel ?? obj.bogey ?? key, _hex: hex, _group: group })); return; }
    for (const [k, v] of Object.entries(value)) {
      if (v && typeof v === "object") visit(v, depth === 0 ? k : group, k, depth + 1);
    }
  };
  visit(view, undefined, undefined, 0);
  return out;
}

/** @param {{ruleset?: unknown} | null | undefined} view */
function isStarfinder(view) { return view && view.ruleset === "starfinder"; }

// The ship a Starfinder seat crews: "sunrise/pilot" -> "sunrise" (from the viewer label or the seat's options).
/** @param {MapCtx} ctx */
function seatShip(ctx) {
  const viewer = typeof ctx.viewer === "string" ? ctx.viewer.replace(/^seat:/, "") : "";
  if (viewer.includes("/")) return viewer.split("/")[0];
  const o = /** @type {MapCommand[]} */ (ctx.options || []).find((c) => typeof c.seat === "string" && c.seat.includes("/"));
  return o ? o.seat.split("/")[0] : null;
}

// (x, y) on a circle of radius r at `deg` degrees clockwise from "up"
/** @param {number} r @param {number} deg @returns {XY} */
function polar(r, deg) {
  const a = (deg * Math.PI) / 180;
  return [r * Math.sin(a), -r * Math.cos(a)];
}

/** @param {number} r @param {number} a1 @param {number} a2 */
function ring(r, a1, a2) {
  const [x1, y1] = polar(r, a1), [x2, y2] = polar(r, a2);
  return `M ${x1.toFixed(3)} ${y1.toFixed(3)} A ${r} ${r} 0 ${a2 - a1 > 180 ? 1 : 0} 1 ${x2.toFixed(3)} ${y2.toFixed(3)}`;
}

/** @param {number} r @param {number} a1 @param {number} a2 */
function wedge(r, a1, a2) {
  const [x1, y1] = polar(r, a1), [x2, y2] = polar(r, a2);
  return `M 0 0 L ${x1.toFixed(3)} ${y1.toFixed(3)} A ${r} ${r} 0 ${a2 - a1 > 180 ? 1 : 0} 1 ${x2.toFixed(3)} ${y2.toFixed(3)} Z`;
}

// Clickable destinations: hex key -> {hex, cmds: [...], facings: Set}
/** @param {HexView} view @param {MapCtx} ctx @param {HexItem[]} items @returns {Map<string, MoveTarget>} */
function moveTargets(view, ctx, items) {
  /** @type {Map<string, MoveTarget>} */
  const targets = new Map();
  /** @param {XY} hex @param {Command} cmd @param {number} facing */
  const add = (hex, cmd, facing) => {
    const key = `${hex[0]},${hex[1]}`;
    if (!targets.has(key)) targets.set(key, { hex, cmds: [], facings: new Set() });
    const t = targets.get(key);
    t.cmds.push(cmd);
    if (typeof facing === "number") t.facings.add(facing);
  };
  if (isStarfinder(view)) {
    for (const cmd of ctx.options || []) {
      const o = /** @type {MapCommand} */ (cmd);
      if (typeof o.seat !== "string") continue;
      const ship = items.find((it) => it._group === "ships" && it.id === o.seat.split("/")[0]);
      const end = ship && helmEnd(ship, o);
      if (end) add(end.hex, cmd, end.facing);
    }
    return targets;
  }
  const selectedItem = items.find((it) => it.id === ctx.selected && it.bogey == null);
  for (const cmd of ctx.options || []) {
    const o = /** @type {MapCommand} */ (cmd);
    let h = asHex(o.hex) || asHex(o.to);
    // asc.move carries a path, not a destination: trace it from the selected vessel (options come
    // shortest first, so the first path to reach a hex is the one a click sends)
    if (!h && Array.isArray(o.path) && selectedItem && o.vessel === ctx.selected) {
      const end = pathEnd(selectedItem._hex, typeof selectedItem.facing === "number" ? selectedItem.facing : 0, o.path);
      if (end.hex[0] !== selectedItem._hex[0] || end.hex[1] !== selectedItem._hex[1]) h = end.hex;
    }
    const key = h && `${h[0]},${h[1]}`;
    if (h && (!o.vessel || o.vessel === ctx.selected) && !targets.has(key)) targets.set(key, { hex: h, cmds: [cmd], facings: new Set() });
  }
  return targets;
}

// The hexes to draw: a hexagon of `radius` round the centre (the ASC map), or the box round everything of
// interest with a margin (Starfinder's open space, where ships wander far from where they started).
/** @param {number | null} radius @param {XY[]} interest @param {number} aspect
 * @returns {{hexes: XY[], box: number[]}} */
function gridHexes(radius, interest, aspect) {
  /** @type {XY[]} */
  const hexes = [];
  if (typeof radius === "number") {
    for (let q = -radius; q <= radius; q++) {
      for (let r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) hexes.push([q, r]);
    }
    const ext = 1.5 * radius + 1.5, exty = SQ3 * (radius + 0.5) + 0.5;
    return { hexes, box: [-ext, -exty, 2 * ext, 2 * exty] };
  }
  const pts = (interest.length ? interest : [/** @type {XY} */ ([0, 0])]).map((h) => hexCenter(...h));
  let x0 = Math.min(...pts.map((p) => p[0])), x1 = Math.max(...pts.map((p) => p[0]));
  let y0 = Math.min(...pts.map((p) => p[1])), y1 = Math.max(...pts.map((p) => p[1]));
  const pad = 2.6;
  x0 -= pad; x1 += pad; y0 -= pad; y1 += pad;
  const minSide = 12; // never zoomed in closer than about seven hexes across
  if (x1 - x0 < minSide) { const c = (x0 + x1) / 2; x0 = c - minSide / 2; x1 = c + minSide / 2; }
  if (y1 - y0 < minSide) { const c = (y0 + y1) / 2; y0 = c - minSide / 2; y1 = c + minSide / 2; }
  if (aspect > 0) { // fill the board's shape with grid rather than leave bare margins
    if ((x1 - x0) / (y1 - y0) < aspect) { const c = (x0 + x1) / 2, w = (y1 - y0) * aspect; x0 = c - w / 2; x1 = c + w / 2; }
    else { const c = (y0 + y1) / 2, h = (x1 - x0) / aspect; y0 = c - h / 2; y1 = c + h / 2; }
  }
  for (let q = Math.floor(x0 / 1.5) - 1; q <= Math.ceil(x1 / 1.5) + 1; q++) {
    for (let r = Math.floor(y0 / SQ3 - q / 2) - 1; r <= Math.ceil(y1 / SQ3 - q / 2) + 1; r++) {
      const [cx, cy] = hexCenter(q, r);
      if (cx >= x0 - 1 && cx <= x1 + 1 && cy >= y0 - 1 && cy <= y1 + 1) hexes.push([q, r]);
    }
  }
  return { hexes, box: [x0, y0, x1 - x0, y1 - y0] };
}

/** @param {SVGSVGElement} root @param {GameView} state @param {MapCtx} ctx */
export function renderHex(root, state, ctx) {
  const view = /** @type {HexView} */ (state);
  clear(root);
  delete root.dataset.full;
  root.setAttribute("data-ruleset", view.ruleset || "hex");
  const sf = isStarfinder(view);
  const items = hexItems(state);
  const planets = (view.planet_hexes || (view.map && view.map.planet_hexes) || []).map(asHex).filter(Boolean);
  const targets = moveTargets(view, ctx, items);
  let radius = view.map_radius ?? (view.map && view.map.radius);
  if (typeof radius !== "number" && !sf) {
    radius = 4;
    for (const it of items) radius = Math.max(radius, distance(it._hex, [0, 0]) + 1);
    for (const t of targets.values()) radius = Math.max(radius, distance(t.hex, [0, 0]) + 1);
  }
  const { hexes, box } = gridHexes(typeof radius === "number" ? radius : null,
    [...items.map((it) => it._hex), ...[...targets.values()].map((t) => t.hex)],
    root.clientWidth > 0 && root.clientHeight > 0 ? root.clientWidth / root.clientHeight : 0);
  root.setAttribute("viewBox", box.map((n) => +n.toFixed(3)).join(" "));
  // the ASC view has sides as {advantaged: {...}, disadvantaged: {...}}; older shapes a list or side_names
  const sides = Array.isArray(view.sides) ? view.sides : Object.keys(view.sides || view.side_names || {});
  const ships = items.filter((it) => it._group === "ships" || !sf);
  const byId = new Map(ships.map((it) => [it.id, it]));
  const mine = sf ? seatShip(ctx) : null;
  const focus = byId.get(ctx.selected) || (mine && byId.get(mine)) || null;

  /** @param {Command[]} cmds @param {string} title */
  const send = (cmds, title) => {
    if (cmds.length > 1 && ctx.onChoose) ctx.onChoose(cmds, title);
    else ctx.onCommand(cmds[0]);
  };

  const grid = svg("g", { class: "hexgrid" });
  const planetSet = new Set(planets.map(([q, r]) => `${q},${r}`));
  for (const [q, r] of hexes) {
    const [cx, cy] = hexCenter(q, r);
    const key = `${q},${r}`;
    const t = targets.get(key);
    const label = t && ctx.label ? ` — ${t.cmds.map((c) => ctx.label(c)).join(" / ")}` : "";
    grid.append(svg("polygon", {
      points: corners(cx, cy, 0.98),
      class: `hex${planetSet.has(key) ? " planet" : ""}${t ? " move-target" : ""}`,
      dataset: t ? { q, r, moves: t.cmds.length } : { q, r },
      onclick: t ? (/** @type {MouseEvent} */ e) => { e.stopPropagation(); send(t.cmds, `Move to ${q},${r}`); } : null,
    }, svg("title", {}, `hex ${q},${r}${label}`)));
  }
  root.append(grid);

  if (sf && focus) root.append(weaponArcs(focus, view));
  if (sf && targets.size) root.append(destinations(targets));
  if (sf) root.append(projectiles(items, byId, sides));

  // which enemy ships the seat's gunner may fire at now (tap one: choose the weapon)
  /** @type {Map<string, Command[]>} target -> the fire options at it */
  const fires = new Map();
  for (const cmd of ctx.options || []) {
    const o = /** @type {MapCommand} */ (cmd);
    if (o.type === FIRE && o.target) fires.set(o.target, [...(fires.get(o.target) || []), cmd]);
  }

  // several pieces in one hex (stacks, a bogey sharing a hex with a vessel) are fanned out, not overdrawn
  const drawn = sf ? ships : items;
  /** @type {Map<string, HexItem[]>} */
  const perHex = new Map();
  for (const it of drawn) {
    const key = `${it._hex[0]},${it._hex[1]}`;
    perHex.set(key, [...(perHex.get(key) || []), it]);
  }
  const layer = svg("g", { class: "ships" });
  for (const it of drawn) {
    let [cx, cy] = hexCenter(...it._hex);
    const stack = perHex.get(`${it._hex[0]},${it._hex[1]}`);
    const scale = stack.length > 1 ? 0.55 : 1;
    if (stack.length > 1) {
      const a = (2 * Math.PI * stack.indexOf(it)) / stack.length - Math.PI / 2;
      cx += 0.42 * Math.cos(a);
      cy += 0.42 * Math.sin(a);
    }
    const isBogey = it.bogey != null || it._group === "bogeys";
    const color = isBogey ? "#9aa4b2" : sideColor(it.side, sides);
    const selected = it.id === ctx.selected;
    const status = typeof it.status === "string" ? it.status : it.destroyed ? "destroyed" : "";
    const target = fires.get(it.id);
    const cls = ["ship", "hex-piece", isBogey && "bogey", status === "destroyed" && "destroyed",
      status === "disabled" && "disabled", selected && "selected", sf && it.id === mine && "mine",
      sf && focus && it.id === focus.id && "focus", target && "target"].filter(Boolean).join(" ");
    const g = svg("g", {
      class: cls,
      role: "button", tabindex: 0,
      dataset: { id: it.id, side: it.side || "", q: it._hex[0], r: it._hex[1],
        ...(sf ? { facing: it.facing, status, hull: it.hull } : {}) },
      transform: `translate(${cx} ${cy})${scale !== 1 ? ` scale(${scale})` : ""}`,
      style: status === "disabled" ? "opacity:0.6" : null,
      onclick: (/** @type {MouseEvent} */ e) => {
        e.stopPropagation();
        if (target) send(target, `Fire at ${it.name || it.id}`);
        else ctx.onSelect(it.id);
      },
    }, svg("title", {}, sf ? shipTitle(it, target) : `${it.name || it.id}${it.side ? ` (${it.side})` : ""} at ${it._hex.join(",")}`),
    svg("circle", { class: "halo", r: 0.85 }));
    if (isBogey) {
      g.append(svg("circle", { r: 0.5, fill: color, class: "hull" }), svg("text", { class: "label", y: 0.22 }, "?"));
    } else {
      const facing = typeof it.facing === "number" ? it.facing : 0;
      const rot = svg("g", { transform: `rotate(${facing * 60})` });
      if (sf) rot.append(shieldRing(it));
      rot.append(svg("path", { class: "hull", d: "M 0 -0.62 L 0.42 0.5 L 0 0.3 L -0.42 0.5 Z", fill: color }));
      g.append(rot);
      if (sf) g.append(hullBar(it));
    }
    g.append(svg("text", { class: "label small", y: sf ? 1.12 : 0.95 }, isBogey ? String(it.bogey ?? it.id) : (it.name || it.id)));
    layer.append(g);
  }
  root.append(layer);
}

/** @param {HexItem} it @param {Command[] | undefined} target */
function shipTitle(it, target) {
  const sh = it.shields || {};
  const shields = Object.keys(QUADRANTS).map((q) => `${q[0].toUpperCase()}${sh[q] ?? 0}`).join(" ");
  const facing = FACINGS[((it.facing % 6) + 6) % 6] || it.facing;
  const parts = [`${it.name || it.id} (${it.side}) at ${it._hex.join(",")} facing ${facing}`,
    `hull ${it.hull}/${it.max_hull}`, `shields ${shields}`, it.status && it.status !== "active" ? it.status : null,
    it.battle_stations ? "at battle stations" : null, target ? "tap to fire at it" : null];
  return parts.filter(Boolean).join(" — ");
}

// Four shield quadrants round the hull, each as strong as its points against the ship's starting share.
/** @param {HexItem} it */
function shieldRing(it) {
  const g = svg("g", { class: "shields" });
  const now = it.shields || {};
  const start = (it.data_sheet && it.data_sheet.shields) || {};
  const share = Math.max(1, (it.max_shields || 0) / 4);
  for (const [q, [a1, a2]] of Object.entries(QUADRANTS)) {
    const pts = now[q] ?? 0;
    const frac = Math.max(0, Math.min(1, pts / Math.max(1, start[q] ?? share)));
    g.append(svg("path", {
      class: `shield${pts > 0 ? "" : " down"}`, d: ring(0.78, a1 + 4, a2 - 4), fill: "none",
      stroke: pts > 0 ? SHIELD : "#f85149", "stroke-dasharray": pts > 0 ? null : "0.08 0.08",
      "stroke-linecap": "round", "pointer-events": "none",
      "stroke-width": (0.05 + 0.11 * frac).toFixed(3), "stroke-opacity": (0.3 + 0.7 * frac).toFixed(2),
      dataset: { quadrant: q, points: pts },
    }, svg("title", {}, `${q} shields ${pts}`)));
  }
  return g;
}

/** @param {HexItem} it */
function hullBar(it) {
  const max = Math.max(1, it.max_hull || it.hull || 1);
  const frac = Math.max(0, Math.min(1, (it.hull || 0) / max));
  const level = frac > 0.5 ? "ok" : frac > 0.2 ? "warn" : "bad";
  return svg("g", { class: "hullbar", transform: "translate(-0.5 0.7)", "pointer-events": "none" },
    svg("rect", { class: "bg", width: 1, height: 0.12, fill: "#00000099", stroke: "#ffffff55", "stroke-width": 0.02 }),
    svg("rect", { class: `fill ${level}`, width: frac.toFixed(3), height: 0.12, fill: HULL_COLORS[level],
      dataset: { hull: it.hull, max } }));
}

// The focused ship's weapons: one sector per weapon out to its first range increment (no range penalty);
// a turret is a circle. A barrel roll swaps port and starboard (SF-STUNT-2); a fired weapon is dashed.
/** @param {HexItem} ship @param {HexView} view */
function weaponArcs(ship, view) {
  const [cx, cy] = hexCenter(...ship._hex);
  const facing = typeof ship.facing === "number" ? ship.facing : 0;
  const g = svg("g", { class: "arcs", transform: `translate(${cx} ${cy}) rotate(${facing * 60})`, dataset: { ship: ship.id } });
  const weapons = (ship.data_sheet && ship.data_sheet.weapons) || [];
  const rolled = ship.effects && ship.effects.barrel_roll;
  const fired = ship.fired || [];
  weapons.forEach((w, i) => {
    let arc = w.arc;
    if (rolled && (arc === "port" || arc === "starboard")) arc = arc === "port" ? "starboard" : "port";
    const r = SQ3 * (RANGE_HEXES[w.range] || 5);
    const color = ARC_COLORS[i % ARC_COLORS.length];
    const used = fired.includes(w.id);
    const cls = `arc${used ? " used" : ""}${ship.status !== "active" ? " out" : ""}`;
    const title = svg("title", {}, `${w.name || w.id} (${w.id}): ${arc} arc, ${w.damage}${w.linked ? " linked" : ""}, ` +
      `${w.range} range (${RANGE_HEXES[w.range] || "?"} hexes per increment)${w.kind === "tracking" ? ", tracking" : ""}${used ? ", fired this round" : ""}`);
    const attrs = { class: cls, fill: color, stroke: color, dataset: { weapon: w.id, arc } };
    if (arc === "turret") g.append(svg("circle", { ...attrs, r }, title));
    else if (QUADRANTS[arc]) g.append(svg("path", { ...attrs, d: wedge(r, ...QUADRANTS[arc]) }, title));
  });
  return g;
}

// A tick per facing the ship would end with in each clickable destination.
/** @param {Map<string, MoveTarget>} targets */
function destinations(targets) {
  const g = svg("g", { class: "destinations" });
  for (const t of targets.values()) {
    const [cx, cy] = hexCenter(...t.hex);
    for (const f of t.facings) {
      g.append(svg("path", { class: "dest-facing", d: "M 0 -0.55 L 0.16 -0.3 L -0.16 -0.3 Z", fill: "#58a6ffcc",
        "pointer-events": "none", transform: `translate(${cx} ${cy}) rotate(${f * 60})` }));
    }
  }
  return g;
}

// Tracking projectiles in flight (SF-GUN-8): a diamond in the launcher's colour, a dashed line to the target.
/** @param {HexItem[]} items @param {Map<string, HexItem>} ships @param {string[]} sides */
function projectiles(items, ships, sides) {
  const g = svg("g", { class: "projectiles" });
  for (const p of items.filter((it) => it._group === "projectiles")) {
    const [cx, cy] = hexCenter(...p._hex);
    const from = ships.get(p.ship);
    const to = ships.get(p.target);
    const color = sideColor(from && from.side, sides);
    if (to) {
      const [tx, ty] = hexCenter(...to._hex);
      g.append(svg("line", { class: "track", x1: cx, y1: cy, x2: tx, y2: ty, stroke: color, "stroke-width": 0.06,
        "stroke-dasharray": "0.25 0.2", opacity: 0.7, "pointer-events": "none" }));
    }
    g.append(svg("g", { class: "projectile", transform: `translate(${cx} ${cy})`, dataset: { id: p.id, q: p._hex[0], r: p._hex[1] } },
      svg("title", {}, `projectile ${p.id}: ${p.ship}'s ${p.weapon} tracking ${p.target}`),
      svg("path", { d: "M 0 -0.3 L 0.22 0 L 0 0.3 L -0.22 0 Z", fill: color }),
      svg("text", { class: "label small", y: 0.62, style: "font-size:0.3px" }, p.id)));
  }
  return g;
}

/** @param {GameView} view */
export function hexPieces(view) {
  const sf = isStarfinder(/** @type {HexView} */ (view));
  return hexItems(view).filter((it) => !sf || it._group === "ships").map((it) => ({
    id: it.id, name: it.name || it.bogey || it.id, side: it.side,
    status: typeof it.status === "string" && it.status !== "active" ? it.status : it.destroyed ? "destroyed" : "",
  }));
}
