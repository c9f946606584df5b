// Hex rulesets (ASC): a flat-topped axial grid (service/domain/core/hexgrid.py), facings 0..5 = N, NE,
// SE, S, SW, NW. Draws whatever in the view has a "hex": vessels with facings, bogeys as tokens.
import { svg, clear, sideColor } from "./dom.js";

const SQ3 = Math.sqrt(3);
// service/domain/core/hexgrid.py DIRECTIONS: the axial step through hexside k (0 = N, clockwise)
const DIRS = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];

export function hexCenter(q, r) { return [1.5 * q, SQ3 * (r + q / 2)]; }

function asHex(h) {
  if (Array.isArray(h) && h.length >= 2 && h.every((n) => typeof n === "number")) return [h[0], h[1]];
  if (h && typeof h === "object" && typeof h.q === "number" && typeof h.r === "number") return [h.q, h.r];
  return null;
}

function corners(cx, cy, size = 1) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    pts.push(`${(cx + size * Math.cos(a)).toFixed(3)},${(cy + size * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

// Where an asc.move path (F = forward, L/R = one hexside anticlockwise/clockwise) ends, and facing.
export function pathEnd(hex, facing, path) {
  let [q, r] = hex;
  let f = ((facing % 6) + 6) % 6;
  for (const step of path || []) {
    if (step === "F") { q += DIRS[f][0]; r += DIRS[f][1]; }
    else if (step === "L") f = (f + 5) % 6;
    else if (step === "R") f = (f + 1) % 6;
  }
  return { hex: [q, r], facing: f };
}

// Every object in the view (one or two levels deep) that stands on a hex.
export function hexItems(view) {
  const out = [];
  const visit = (value, group, key, depth) => {
    if (!value || typeof value !== "object" || depth > 3) return;
    if (Array.isArray(value)) { value.forEach((v) => visit(v, group, undefined, depth + 1)); return; }
    const hex = asHex(value.hex);
    if (hex) { out.push({ ...value, id: value.id ?? value.vessel ?? value.bogey ?? key, _hex: hex, _group: group }); return; }
    for (const [k, v] of Object.entries(value)) {
      if (v && typeof v === "object") visit(v, depth === 0 ? k : group, k, depth + 1);
    }
  };
  visit(view, undefined, undefined, 0);
  return out;
}

export function renderHex(root, view, ctx) {
  clear(root);
  delete root.dataset.full;
  root.setAttribute("data-ruleset", view.ruleset || "hex");
  const items = hexItems(view);
  const planets = (view.planet_hexes || (view.map && view.map.planet_hexes) || []).map(asHex).filter(Boolean);
  let radius = view.map_radius ?? (view.map && view.map.radius);
  if (typeof radius !== "number") {
    radius = 4;
    for (const it of items) radius = Math.max(radius, (Math.abs(it._hex[0]) + Math.abs(it._hex[1]) + Math.abs(it._hex[0] + it._hex[1])) / 2 + 1);
  }
  const ext = 1.5 * radius + 1.5;
  const exty = SQ3 * (radius + 0.5) + 0.5;
  root.setAttribute("viewBox", `${-ext} ${-exty} ${2 * ext} ${2 * exty}`);
  // the ASC view has sides as {advantaged: {...}, disadvantaged: {...}}; older shapes a list or side_names
  const sides = Array.isArray(view.sides) ? view.sides : Object.keys(view.sides || view.side_names || {});

  const grid = svg("g", { class: "hexgrid" });
  const planetSet = new Set(planets.map(([q, r]) => `${q},${r}`));
  const moveTargets = new Map();
  const selectedItem = items.find((it) => it.id === ctx.selected && it.bogey == null);
  for (const o of ctx.options || []) {
    let h = asHex(o.hex) || asHex(o.to);
    // asc.move carries a path, not a destination: trace it from the selected vessel (options come
    // shortest first, so the first path to reach a hex is the one a click sends)
    if (!h && Array.isArray(o.path) && selectedItem && o.vessel === ctx.selected) {
      const end = pathEnd(selectedItem._hex, typeof selectedItem.facing === "number" ? selectedItem.facing : 0, o.path);
      if (end.hex[0] !== selectedItem._hex[0] || end.hex[1] !== selectedItem._hex[1]) h = end.hex;
    }
    const key = h && `${h[0]},${h[1]}`;
    if (h && (!o.vessel || o.vessel === ctx.selected) && !moveTargets.has(key)) moveTargets.set(key, o);
  }
  for (let q = -radius; q <= radius; q++) {
    for (let r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) {
      const [cx, cy] = hexCenter(q, r);
      const key = `${q},${r}`;
      const cmd = moveTargets.get(key);
      grid.append(svg("polygon", {
        points: corners(cx, cy, 0.98),
        class: `hex${planetSet.has(key) ? " planet" : ""}${cmd ? " move-target" : ""}`,
        dataset: { q, r },
        onclick: cmd ? (e) => { e.stopPropagation(); ctx.onCommand(cmd); } : null,
      }, svg("title", {}, `hex ${q},${r}${cmd && ctx.label ? " — " + ctx.label(cmd) : ""}`)));
    }
  }
  root.append(grid);

  // several pieces in one hex (stacks, a bogey sharing a hex with a vessel) are fanned out, not overdrawn
  const perHex = new Map();
  for (const it of items) {
    const key = `${it._hex[0]},${it._hex[1]}`;
    perHex.set(key, [...(perHex.get(key) || []), it]);
  }
  const layer = svg("g", { class: "ships" });
  for (const it of items) {
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
    const g = svg("g", {
      class: `ship hex-piece${isBogey ? " bogey" : ""}${it.destroyed ? " destroyed" : ""}${selected ? " selected" : ""}`,
      role: "button", tabindex: 0,
      dataset: { id: it.id, side: it.side || "", q: it._hex[0], r: it._hex[1] },
      transform: `translate(${cx} ${cy})${scale !== 1 ? ` scale(${scale})` : ""}`,
      onclick: (e) => { e.stopPropagation(); ctx.onSelect(it.id); },
    }, svg("title", {}, `${it.name || it.id}${it.side ? ` (${it.side})` : ""} at ${it._hex.join(",")}`),
    svg("circle", { class: "halo", r: 0.85 }));
    if (isBogey) {
      g.append(svg("circle", { r: 0.5, fill: color, class: "hull" }), svg("text", { class: "label", y: 0.22 }, "?"));
    } else {
      const facing = typeof it.facing === "number" ? it.facing : 0;
      g.append(svg("g", { transform: `rotate(${facing * 60})` },
        svg("path", { class: "hull", d: "M 0 -0.62 L 0.42 0.5 L 0 0.3 L -0.42 0.5 Z", fill: color })));
    }
    g.append(svg("text", { class: "label small", y: 0.95 }, isBogey ? String(it.bogey ?? it.id) : (it.name || it.id)));
    layer.append(g);
  }
  root.append(layer);
}

export function hexPieces(view) {
  return hexItems(view).map((it) => ({ id: it.id, name: it.name || it.bogey || it.id, side: it.side, status: it.destroyed ? "destroyed" : "" }));
}
