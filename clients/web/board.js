// The one board renderer: draws a view's `draw` (docs/view-contract.md) on a plane, a hex map or a star
// map, for seats, spectators and replays alike. Positions are in board units; everything a finger or an
// eye must meet (tokens, hit areas, labels, effect numbers) is drawn in screen pixels inside a group
// scaled by the current zoom, so it keeps its size at any zoom: a ship never shrinks to a speck and a
// label stays readable. Drag or pinch pans and zooms; a drag never counts as a tap.
import { svg, clear } from "./dom.js";
import { place, headingDeg, rangeUnits, hexCells, hexCentre, hexCorners, extent, wedgePath } from "./geometry.js";

/** @typedef {import("../types/salvo").Drawing} Drawing */
/** @typedef {import("../types/salvo").Piece} Piece */
/** @typedef {import("../types/salvo").XY} XY */
/** @typedef {import("./dom.js").Attrs} Attrs */
/** @typedef {{x: number, y: number}} Point2Like */
/** @typedef {import("./dom.js").Child} Child */
/** What the page does when a map element is pressed.
 * @typedef {{onPiece?: (id: string) => void, onTarget?: (id: string) => void, onNode?: (id: string) => void,
 *   onCell?: (q: number, r: number) => void}} Handlers */
/** A draggable end of a move (forms.js): its place, name and value, and what a drag or an arrow key does.
 * @typedef {{at: XY, label: string, value?: number | null, onDrag: (x: number, y: number, done: boolean) => void,
 *   onKey?: (key: string) => void}} Handle */
/** What the page lays over a drawing: the selection, tap targets, hexes to add to a path, a planned move.
 * @typedef {{selected?: string | null, targets?: Map<string, string>, cells?: {q: number, r: number, label: string, text?: string}[],
 *   plan?: {points?: XY[], ok?: boolean, marks?: {at: XY, text: string}[]} | null, handle?: Handle | null}} Decor */
/** A pointer down on the map: where it is and where it started (client px). @typedef {{x: number, y: number, x0: number, y0: number}} Pointer */

export const HIT_RADIUS = 24; // px: every actionable element is at least 48×48 CSS px
const LABEL_PX = 13;
const NEUTRAL = "#9aa4b2";
const PALETTE = ["#ff6b6b", "#4dabf7", "#51cf66", "#fcc419", "#cc5de8", "#22b8cf", "#ff922b", "#94d82d"];

/** @param {Pick<Drawing, "sides">} drawing @param {string | null | undefined} side */
export function sideColour(drawing, side) {
  if (side == null) return NEUTRAL;
  const i = (drawing.sides || []).indexOf(side);
  return PALETTE[(i < 0 ? 0 : i) % PALETTE.length];
}

/** @param {Piece} p */
function pieceWords(p) {
  return [p.label, p.side ? `side ${p.side}` : (p.kind === "terrain" ? "" : "no known side"),
    p.status && p.status !== "active" ? p.status : "", p.mine ? "yours" : "",
    ...(p.bars || []).map((b) => `${b.label} ${b.value} of ${b.max}`), p.detail || ""].filter(Boolean).join(", ");
}

/** @param {Point2Like | null | undefined} at */
const key = (at) => at ? `${at.x},${at.y}` : "";

export class Board {
  /** @param {SVGSVGElement} root @param {Handlers} [handlers] */
  constructor(root, handlers = {}) {
    this.root = root;
    this.h = handlers;
    /** @type {number[] | null} the view box shown: x, y, w, h in SVG units */
    this.vb = null;
    /** @type {number[] | null} the whole drawing's extent */
    this.full = null;
    this.fullKey = "";
    /** @type {Set<number>} effect counters already animated */
    this.seen = new Set();
    this.active = false;
    /** @type {Map<number, Pointer>} */
    this.pointers = new Map();
    this.dragged = false;
    /** @type {Drawing | null} */
    this.drawing = null;
    /** @type {Decor} */
    this.decor = {};
    /** @type {Map<string, XY>} id -> SVG units, for pieces and nodes */
    this.pos = new Map();
    this.bind();
  }

  // ---- viewport -------------------------------------------------------------------------------
  bind() {
    const r = this.root;
    r.addEventListener("pointerdown", (e) => {
      if (!this.active || /** @type {Element} */ (e.target).closest("[data-handle]")) return;
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
      if (this.pointers.size === 1) this.dragged = false;
    });
    r.addEventListener("pointermove", (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p || !this.active) return;
      const k = this.k();
      if (this.pointers.size === 1) {
        if (!this.dragged && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < 8) return;
        if (!this.dragged) { this.dragged = true; r.setPointerCapture?.(e.pointerId); }
        this.vb[0] -= (e.clientX - p.x) * k;
        this.vb[1] -= (e.clientY - p.y) * k;
      } else if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        p.x = e.clientX; p.y = e.clientY;
        const after = Math.hypot(a.x - b.x, a.y - b.y);
        this.dragged = true;
        if (before > 0 && after > 0) this.zoomAt(after / before, (a.x + b.x) / 2, (a.y + b.y) / 2);
        return;
      }
      p.x = e.clientX; p.y = e.clientY;
      this.applyView();
    });
    const up = (/** @type {PointerEvent} */ e) => { this.pointers.delete(e.pointerId); };
    r.addEventListener("pointerup", up);
    r.addEventListener("pointercancel", up);
    // a drag or pinch ends with a click on whatever is under the finger: swallow it
    r.addEventListener("click", (e) => {
      if (this.active && this.dragged) { e.stopPropagation(); e.preventDefault(); this.dragged = false; }
    }, true);
    r.addEventListener("wheel", (e) => {
      if (!this.active) return;
      e.preventDefault();
      this.zoomAt(e.deltaY < 0 ? 1.25 : 0.8, e.clientX, e.clientY);
    }, { passive: false });
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this.active && this.rescale()).observe(r);
  }

  k() {
    const rect = this.root.getBoundingClientRect();
    if (!this.vb || !rect.width || !rect.height) return 0.05;
    return Math.max(this.vb[2] / rect.width, this.vb[3] / rect.height);
  }

  /** @param {number} clientX @param {number} clientY @returns {XY} */
  toUnits(clientX, clientY) {
    const m = this.root.getScreenCTM();
    if (!m) return [0, 0];
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  /** Zoom by `f` about a client point (or the view's centre). @param {number} f @param {number} [clientX] @param {number} [clientY] */
  zoomAt(f, clientX, clientY) {
    if (!this.vb) return;
    const [ux, uy] = clientX == null ? [this.vb[0] + this.vb[2] / 2, this.vb[1] + this.vb[3] / 2] : this.toUnits(clientX, clientY);
    const [, , W, H] = this.full;
    const w = Math.max(W / 24, Math.min(W * 1.2, this.vb[2] / f));
    const s = w / this.vb[2];
    this.vb = [ux - (ux - this.vb[0]) * s, uy - (uy - this.vb[1]) * s, w, this.vb[3] * s];
    this.applyView();
  }

  /** @param {number} f */
  zoom(f) { this.zoomAt(f); }
  /** Pan by a fraction of the view (keyboard: game.js mapKey). @param {number} fx @param {number} fy */
  pan(fx, fy) {
    if (!this.vb) return;
    this.vb[0] += this.vb[2] * fx;
    this.vb[1] += this.vb[3] * fy;
    this.applyView();
  }
  whole() { if (this.full) { this.vb = [...this.full]; this.applyView(); } }

  // Centre on a point (SVG units) zoomed in so that `apart` units are at least `px` pixels apart. A
  // finger-sized map keeps its zoom, and pans only when the point is off screen or at its edge (a
  // path tapped hex by hex walks on: its next hexes stay in view).
  /** @param {XY} at @param {number} apart @param {number} [px] */
  focus([ux, uy], apart, px = 50) {
    if (!this.vb) return;
    const k = this.k();
    if (apart / k < px) {
      const s = (apart / px) / k;
      this.vb = [this.vb[0], this.vb[1], this.vb[2] * s, this.vb[3] * s];
    } else {
      const [x, y, w, h] = this.vb, m = 0.15;
      if (ux > x + w * m && ux < x + w * (1 - m) && uy > y + h * m && uy < y + h * (1 - m)) return;
    }
    this.vb[0] = ux - this.vb[2] / 2;
    this.vb[1] = uy - this.vb[3] / 2;
    this.applyView();
  }

  // Zoom back out to the whole board if any of these pieces is off screen (a target must be tappable).
  /** @param {string[]} ids */
  reveal(ids) {
    if (!this.vb || !this.pos) return;
    const [x, y, w, h] = this.vb;
    const off = ids.some((id) => { const p = this.pos.get(id); return p && (p[0] < x || p[0] > x + w || p[1] < y || p[1] > y + h); });
    if (off) this.whole();
  }

  applyView() {
    if (!this.vb) return;
    const [fx, fy, fw, fh] = this.full;
    const [, , w, h] = this.vb;
    // keep the board's centre reachable, never lose it off screen
    this.vb[0] = Math.min(Math.max(this.vb[0], fx - w / 2), fx + fw - w / 2);
    this.vb[1] = Math.min(Math.max(this.vb[1], fy - h / 2), fy + fh - h / 2);
    this.root.setAttribute("viewBox", this.vb.map((n) => n.toFixed(3)).join(" "));
    this.rescale();
  }

  // ---- drawing ----------------------------------------------------------------------------------
  // decor: {selected, targets: Map(id -> label), cells: [{q, r, label}], plan: {points, ok, marks}, handle}
  /** @param {Drawing} drawing @param {Decor} [decor] */
  render(drawing, decor = {}) {
    this.active = true;
    this.drawing = drawing;
    this.decor = decor;
    const root = this.root;
    clear(root);
    delete root.dataset.full;
    root.dataset.board = drawing.board.kind;
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", `${drawing.board.kind === "starmap" ? "Star map" : "Battle map"}: ${(drawing.pieces || []).length} pieces`);
    const full = extent(drawing);
    const fullKey = full.map((n) => n.toFixed(2)).join(" ");
    if (fullKey !== this.fullKey || !this.vb) { this.full = full; this.fullKey = fullKey; this.vb = [...full]; }
    root.setAttribute("viewBox", this.vb.join(" "));
    root.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const b = drawing.board;
    this.pos = new Map(); // id -> [x, y] SVG units, for pieces and nodes
    for (const n of b.nodes || []) this.pos.set(n.id, place(b, n.at));
    for (const p of drawing.pieces || []) { const at = place(b, p.at); if (at) this.pos.set(p.id, at); }

    root.append(this.background(drawing), this.arcLayer(drawing), this.trackLayer(drawing), this.planLayer(),
      this.markerLayer(drawing), this.pieceLayer(drawing), this.effectLayer(drawing), this.cellLayer(), this.handleLayer());
    root.dataset.drawn = String(Date.now());
    this.rescale();
  }

  /** @param {Drawing} d */
  background(d) {
    const b = d.board;
    const g = svg("g", { class: "bg", "aria-hidden": "true" });
    if (b.kind === "plane") {
      g.append(svg("rect", { class: "table", x: 0, y: 0, width: b.width || 0, height: b.height || 0 }));
      const step = (b.width || 0) > 60 ? 12 : 6;
      for (let x = step; x < (b.width || 0); x += step) g.append(svg("line", { class: "grid", x1: x, y1: 0, x2: x, y2: b.height }));
      for (let y = step; y < (b.height || 0); y += step) g.append(svg("line", { class: "grid", x1: 0, y1: y, x2: b.width, y2: y }));
      for (const p of d.pieces || []) {
        const at = place(b, p.at);
        if (p.size && at) g.append(svg("circle", { class: `area ${p.kind}`, cx: at[0], cy: at[1], r: p.size }));
      }
    } else if (b.kind === "hex") {
      for (const [q, r] of hexCells(b, d)) {
        const [x, y] = hexCentre(b, q, r);
        g.append(svg("polygon", { class: "hex", points: hexCorners(b, x, y, 0.98) }));
      }
    } else {
      for (const l of b.links || []) {
        const a = this.pos.get(l.a), c = this.pos.get(l.b);
        if (a && c) g.append(svg("line", { class: "link", x1: a[0], y1: a[1], x2: c[0], y2: c[1] }));
      }
    }
    return g;
  }

  /** @param {Drawing} d */
  arcLayer(d) {
    const b = d.board;
    const g = svg("g", { class: "arcs", "aria-hidden": "true" });
    const byId = new Map((d.pieces || []).map((p) => [p.id, p]));
    // the selected piece's arcs only: every vessel's arcs at once hide the map
    (d.arcs || []).forEach((a, i) => {
      if (a.piece !== this.decor.selected) return;
      const at = this.pos.get(a.piece);
      if (!at) return;
      const p = byId.get(a.piece);
      const base = b.kind === "hex" ? (b.orientation === "pointy" ? 30 : 0) : (p && typeof p.facing === "number" ? p.facing : 0);
      g.append(svg("path", { class: `arc ${a.kind}`, "data-piece": a.piece, "data-i": i,
        d: wedgePath(at[0], at[1], rangeUnits(b, a.range), base + a.from_deg, base + a.to_deg),
        stroke: PALETTE[i % PALETTE.length], fill: PALETTE[i % PALETTE.length] }, svg("title", {}, a.label)));
    });
    return g;
  }

  /** @param {Drawing} d */
  trackLayer(d) {
    const g = svg("g", { class: "tracks", "aria-hidden": "true" });
    const sideOf = new Map((d.pieces || []).map((p) => [p.id, p.side]));
    for (const t of d.tracks || []) {
      const pts = (t.points || []).map((p) => place(d.board, p)).filter(Boolean);
      if (pts.length < 2) continue;
      g.append(svg("polyline", { class: `track ${t.kind}`, points: pts.map((p) => p.join(",")).join(" "),
        stroke: sideColour(d, sideOf.get(t.piece)), "data-piece": t.piece || "" }, t.label ? svg("title", {}, t.label) : null));
    }
    return g;
  }

  planLayer() {
    const g = svg("g", { class: "plan" });
    const plan = this.decor.plan;
    if (!plan || !plan.points || plan.points.length < 1) return g;
    g.append(svg("polyline", { class: `plan-line${plan.ok === false ? " bad" : ""}`,
      points: plan.points.map((p) => p.join(",")).join(" ") }));
    for (const m of plan.marks || []) {
      g.append(this.px(m.at, { class: "plan-mark", "aria-hidden": "true" },
        svg("circle", { r: 4 }), svg("text", { class: "ruler", y: -9 }, m.text)));
    }
    return g;
  }

  /** @param {Drawing} d */
  markerLayer(d) {
    const g = svg("g", { class: "markers" });
    for (const m of d.markers || []) {
      const at = place(d.board, m.at);
      if (!at) continue;
      g.append(this.px(at, { class: `marker ${m.kind}`, "data-kind": m.kind, "aria-label": m.label, role: "img" },
        svg("title", {}, m.label), svg("path", { d: "M 0 -7 L 7 0 L 0 7 L -7 0 Z" }),
        svg("text", { class: "plabel", y: 20, "data-label": "1" }, m.label)));
    }
    return g;
  }

  cellLayer() {
    const g = svg("g", { class: "cells" });
    const b = this.drawing.board;
    const targets = this.decor.targets || new Map();
    const taken = [...targets.keys()].map((id) => this.pos.get(id)).filter(Boolean);
    for (const c of this.decor.cells || []) {
      const [x, y] = b.kind === "hex" ? hexCentre(b, c.q, c.r) : [c.q, c.r];
      // a target stands there: its tap offers this hex too (game.js tapTarget)
      if (taken.some(([tx, ty]) => Math.abs(tx - x) < 1e-6 && Math.abs(ty - y) < 1e-6)) continue;
      if (b.kind === "hex") g.append(svg("polygon", { class: "cell-hex", points: hexCorners(b, x, y, 0.9), "aria-hidden": "true" }));
      const node = this.px([x, y], { class: "cell actionable", role: "button", tabindex: 0, "aria-label": c.label,
        "data-q": c.q, "data-r": c.r },
      svg("title", {}, c.label), svg("circle", { class: "hit", r: HIT_RADIUS }), svg("circle", { class: "dot", r: 6 }),
      c.text ? svg("text", { class: "ruler", y: 4 }, c.text) : null);
      this.activate(node, () => this.h.onCell && this.h.onCell(c.q, c.r));
      g.append(node);
    }
    return g;
  }

  /** @param {Drawing} d */
  pieceLayer(d) {
    const g = svg("g", { class: "pieces" });
    const b = d.board;
    const targets = this.decor.targets || new Map();
    for (const n of b.nodes || []) {
      const at = this.pos.get(n.id);
      const target = targets.get(n.id);
      const words = [n.label, n.owner ? `held by ${n.owner}` : "", n.detail || "", target || ""].filter(Boolean).join(", ");
      const node = this.px(at, { class: `node actionable${target ? " target" : ""}`, role: "button", tabindex: 0,
        "aria-label": words, "data-id": n.id, "data-node": "1", "data-owner": n.owner || "" },
      svg("title", {}, words), svg("circle", { class: "hit", r: HIT_RADIUS }), svg("circle", { class: "ring", r: 17 }),
      svg("circle", { class: "world", r: 9, fill: n.owner ? sideColour(d, n.owner) : "#5c6b80" }),
      svg("text", { class: "plabel", y: 28, "data-label": "1" }, n.label));
      this.activate(node, () => target ? this.h.onTarget && this.h.onTarget(n.id) : this.h.onNode && this.h.onNode(n.id));
      g.append(node);
    }
    for (const p of d.pieces || []) {
      const at = this.pos.get(p.id);
      if (!at) continue;
      const colour = sideColour(d, p.side);
      const target = targets.get(p.id);
      const cls = ["piece", "actionable", p.kind, `status-${p.status}`, p.mine ? "mine" : "",
        p.id === this.decor.selected ? "selected" : "", target ? "target" : ""].filter(Boolean).join(" ");
      const words = pieceWords(p) + (target ? `. ${target}` : "");
      const hd = headingDeg(b, p.facing);
      const node = this.px(at, { class: cls, role: "button", tabindex: 0, "aria-label": words,
        "aria-pressed": p.id === this.decor.selected ? "true" : null,
        "data-id": p.id, "data-kind": p.kind, "data-side": p.side ?? "", "data-x": p.at.x, "data-y": p.at.y,
        "data-status": p.status },
      svg("title", {}, words),
      svg("line", { class: "leader", x1: 0, y1: 0, x2: 0, y2: 0 }),
      svg("circle", { class: "hit", r: HIT_RADIUS }),
      svg("circle", { class: "ring", r: 18 }),
      this.icon(p, colour, hd),
      ...this.bars(p),
      p.status === "destroyed" ? svg("path", { class: "wreck", d: "M -9 -9 L 9 9 M 9 -9 L -9 9" }) : null,
      svg("text", { class: "plabel", y: 32, "data-label": "1" }, p.label));
      this.activate(node, () => target ? this.h.onTarget && this.h.onTarget(p.id) : this.h.onPiece && this.h.onPiece(p.id));
      g.append(node);
    }
    return g;
  }

  /** @param {Piece} p @param {string} colour @param {number | null} hd */
  icon(p, colour, hd) {
    const rot = hd == null ? null : `rotate(${hd})`;
    switch (p.kind) {
      case "ship": case "vessel":
        return svg("g", { class: "icon", transform: rot },
          svg("path", { d: "M 0 -13 L 9 10 L 0 5 L -9 10 Z", fill: colour }),
          hd == null ? null : svg("line", { class: "bow", x1: 0, y1: -13, x2: 0, y2: -20, stroke: colour }));
      case "bogey":
        return svg("g", { class: "icon" }, svg("circle", { r: 10, fill: "#2b3340", stroke: colour }),
          svg("text", { class: "glyph", y: 5 }, "?"));
      case "missile": case "salvo": case "projectile": case "torpedo":
        return svg("g", { class: "icon", transform: rot }, svg("path", { d: "M 0 -8 L 5 6 L -5 6 Z", fill: colour }));
      case "group": case "fleet":
        return svg("g", { class: "icon" }, svg("rect", { x: -9, y: -8, width: 18, height: 16, rx: 3, fill: colour }));
      case "terrain": case "asteroid":
        return svg("g", { class: "icon" }, svg("circle", { r: 7, fill: "#7a6a58" }));
      default:
        return svg("g", { class: "icon", transform: rot }, svg("circle", { r: 8, fill: colour }),
          hd == null ? null : svg("line", { class: "bow", x1: 0, y1: -8, x2: 0, y2: -16, stroke: colour }));
    }
  }

  /** @param {Piece} p */
  bars(p) {
    const first = (p.bars || [])[0];
    if (!first || !(first.max > 0)) return [];
    const f = Math.max(0, Math.min(1, first.value / first.max));
    return [svg("rect", { class: "bar-bg", x: -12, y: 14, width: 24, height: 4 }),
      svg("rect", { class: `bar-fg${f <= 0.34 ? " low" : ""}`, x: -12, y: 14, width: 24 * f, height: 4 })];
  }

  /** @param {Drawing} d */
  effectLayer(d) {
    const g = svg("g", { class: "effects", "aria-hidden": "true" });
    const stack = new Map();
    for (const e of d.effects || []) {
      const fresh = !this.seen.has(e.n);
      this.seen.add(e.n);
      const cls = `fx ${e.kind}${fresh ? " fx-new" : ""}`;
      const src = e.source && this.pos.get(e.source);
      const tgt = (e.target && this.pos.get(e.target)) || (e.at && place(d.board, e.at));
      if ((e.kind === "fire" || e.kind === "launch") && src && tgt) {
        // a dark casing under a bright core, both in screen pixels (non-scaling strokes, style.css): the
        // line reads over any map at any zoom, a whole ASC map on a desktop included
        const ends = { x1: src[0], y1: src[1], x2: tgt[0], y2: tgt[1] };
        g.append(svg("line", { class: "fx-casing", ...ends }),
          svg("line", { class: cls, ...ends, "data-n": e.n }, svg("title", {}, e.text)));
        continue;
      }
      const at = tgt || src;
      if (!at) continue;
      const i = stack.get(key({ x: at[0], y: at[1] })) || 0;
      stack.set(key({ x: at[0], y: at[1] }), i + 1);
      const burst = e.kind === "destroyed" || e.kind === "explosion" ? svg("circle", { class: "burst", r: 20 })
        : e.kind === "detected" ? svg("circle", { class: "ping", r: 22 }) : null;
      // a shot's result stands off its target, on the line towards the shooter: never on the piece or its label
      const toward = src && tgt && !burst ? offTowards(tgt, src, FX_OFFSET_PX) : null;
      g.append(this.px(at, { class: cls, "data-n": e.n, "data-kind": e.kind,
        ...(toward ? { "data-ox": toward[0], "data-oy": toward[1] } : {}) }, burst,
      svg("text", { class: "fx-text", y: (toward ? 5 : -26) - 16 * i }, e.kind === "damage" && e.amount != null ? `−${e.amount}` : e.text)));
    }
    return g;
  }

  handleLayer() {
    const g = svg("g", { class: "handles" });
    const h = this.decor.handle;
    if (!h) return g;
    const node = this.px(h.at, { class: "handle actionable", role: "slider", tabindex: 0, "aria-label": h.label,
      "data-handle": "1", "aria-valuenow": h.value ?? null },
    svg("circle", { class: "hit", r: HIT_RADIUS }), svg("circle", { class: "knob", r: 9 }));
    node.addEventListener("pointerdown", (e) => {
      e.stopPropagation();
      e.preventDefault();
      // on the window: every move redraws the board (this node included)
      const move = (/** @type {PointerEvent} */ ev) => { if (ev.pointerId === e.pointerId) h.onDrag(...this.toUnits(ev.clientX, ev.clientY), false); };
      const end = (/** @type {PointerEvent} */ ev) => {
        if (ev.pointerId !== e.pointerId) return;
        window.removeEventListener("pointermove", move);
        window.removeEventListener("pointerup", end);
        window.removeEventListener("pointercancel", end);
        h.onDrag(...this.toUnits(ev.clientX, ev.clientY), true);
      };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", end);
      window.addEventListener("pointercancel", end);
    });
    node.addEventListener("keydown", (e) => {
      if (h.onKey && ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].includes(e.key)) { e.preventDefault(); h.onKey(e.key); }
    });
    g.append(node);
    return g;
  }

  // A group drawn in screen pixels at a board position (see rescale).
  /** @param {XY} at @param {Attrs} attrs @param {...Child} children */
  px(at, attrs, ...children) {
    return svg("g", { ...attrs, "data-px": "1", "data-ux": at[0], "data-uy": at[1] }, ...children);
  }

  /** @param {Element} node @param {() => void} fn */
  activate(node, fn) {
    node.addEventListener("click", (e) => { e.stopPropagation(); fn(); });
    node.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); }
    });
  }

  // Re-apply the pixel scale after a zoom, pan or resize: spread pieces that would sit on each other,
  // then place labels where they do not overlap (a label with no free place is left to the tooltip).
  rescale() {
    if (!this.active || !this.vb) return;
    const k = this.k();
    const vb = this.vb;
    const nodes = /** @type {SVGGElement[]} */ ([...this.root.querySelectorAll("[data-px]")]); // px() groups
    /** @type {(ux: number, uy: number) => XY} */
    const toScreen = (ux, uy) => [(ux - vb[0]) / k, (uy - vb[1]) / k];
    // the board's visible area in those screen units, a hit radius in from each edge ("meet": the
    // viewBox is centred in the element): a fanned-out cluster is kept inside it
    const rect = this.root.getBoundingClientRect(), cw = vb[2] / k, ch = vb[3] / k;
    const inside = [(cw - rect.width) / 2 + HIT_RADIUS, (ch - rect.height) / 2 + HIT_RADIUS,
      (cw + rect.width) / 2 - HIT_RADIUS, (ch + rect.height) / 2 - HIT_RADIUS];
    const offsets = this.spread(nodes.filter((n) => n.classList.contains("piece")), toScreen, inside);
    /** @type {number[][]} screen boxes taken: pieces, nodes, labels placed */
    const boxes = [];
    /** @type {[SVGGElement, number, number][]} each node and its screen place */
    const placed = [];
    for (const n of nodes) {
      const ux = Number(n.dataset.ux), uy = Number(n.dataset.uy);
      const [dx, dy] = offsets.get(n) || [Number(n.dataset.ox || 0), Number(n.dataset.oy || 0)];
      n.setAttribute("transform", `translate(${(ux + dx * k).toFixed(4)} ${(uy + dy * k).toFixed(4)}) scale(${k.toFixed(5)})`);
      const leader = n.querySelector(":scope > .leader");
      if (leader) { leader.setAttribute("x2", String(-dx)); leader.setAttribute("y2", String(-dy)); }
      const [sx, sy] = toScreen(ux, uy);
      placed.push([n, sx + dx, sy + dy]);
      if (n.classList.contains("piece") || n.classList.contains("node")) boxes.push([sx + dx - 12, sy + dy - 12, 24, 24]);
    }
    // a hex to add to a path never covers a piece's centre (a target's tap offers that hex)
    const targetSpots = placed.filter(([n]) => n.classList.contains("piece"));
    for (const [n, sx, sy] of placed) {
      if (!n.classList.contains("cell")) continue;
      const hide = targetSpots.some(([, tx, ty]) => Math.hypot(tx - sx, ty - sy) < HIT_RADIUS + 2);
      n.style.display = hide ? "none" : "";
    }
    for (const [n, sx, sy] of placed) {
      const label = n.querySelector(":scope > text[data-label]");
      if (!label) continue;
      const w = Math.min(220, 7.4 * label.textContent.length + 6), h = LABEL_PX + 4;
      const spots = [[0, 30], [0, -24], [18 + w / 2, 5], [-18 - w / 2, 5], [0, 46], [0, -40]];
      /** @type {[number, number, number[]] | null} */
      let best = null;
      for (const [ox, oy] of spots) {
        const box = [sx + ox - w / 2, sy + oy - h + 4, w, h];
        if (!boxes.some((b) => overlap(b, box))) { best = [ox, oy, box]; break; }
      }
      if (best) {
        label.setAttribute("x", String(best[0]));
        label.setAttribute("y", String(best[1]));
        label.removeAttribute("visibility");
        boxes.push(best[2]);
      } else {
        label.setAttribute("visibility", "hidden");
      }
    }
  }

  // Pieces whose hit areas would overlap on screen are fanned out around their common centre (px
  // offsets), far enough apart that each keeps its whole hit area; clusters that still touch merge. A
  // fan that would reach past `inside` ([x0, y0, x1, y1], screen units) is moved in whole, so a cluster
  // at the board's edge (ships that left the table) is not fanned out under what borders the board.
  /** @param {SVGElement[]} nodes @param {(ux: number, uy: number) => XY} toScreen @param {number[]} [inside]
   * @returns {Map<SVGElement, XY>} */
  spread(nodes, toScreen, inside) {
    const near = 2 * HIT_RADIUS + 2;
    const home = nodes.map((n) => toScreen(Number(n.dataset.ux), Number(n.dataset.uy)));
    let groups = nodes.map((_, i) => [i]);
    let spots = home.map((p) => [...p]);
    for (let round = 0; round < 6; round++) {
      let merged = false;
      for (let a = 0; a < groups.length && !merged; a++) {
        for (let b = a + 1; b < groups.length && !merged; b++) {
          if (groups[a].some((i) => groups[b].some((j) => Math.hypot(spots[i][0] - spots[j][0], spots[i][1] - spots[j][1]) < near))) {
            groups[a] = [...groups[a], ...groups[b]];
            groups.splice(b, 1);
            merged = true;
          }
        }
      }
      if (!merged) break;
      spots = home.map((p) => [...p]);
      for (const g of groups) {
        if (g.length < 2) continue;
        const cx = g.reduce((s, i) => s + home[i][0], 0) / g.length, cy = g.reduce((s, i) => s + home[i][1], 0) / g.length;
        const r = near / (2 * Math.sin(Math.PI / g.length));
        g.forEach((i, k) => {
          const ang = (2 * Math.PI * k) / g.length - Math.PI / 2;
          spots[i] = [cx + r * Math.cos(ang), cy + r * Math.sin(ang)];
        });
        if (inside) inwards(g.map((i) => spots[i]), inside);
      }
    }
    const out = new Map();
    nodes.forEach((n, i) => {
      const dx = spots[i][0] - home[i][0], dy = spots[i][1] - home[i][1];
      if (dx || dy) out.set(n, [dx, dy]);
    });
    return out;
  }
}

const FX_OFFSET_PX = 46; // past a piece's hit area (HIT_RADIUS) and its ring

// A screen offset of `px` from `from` towards `to` (board units scale alike on both axes).
/** @param {XY} from @param {XY} to @param {number} px @returns {XY | null} */
function offTowards(from, to, px) {
  const dx = to[0] - from[0], dy = to[1] - from[1], d = Math.hypot(dx, dy);
  if (!(d > 0)) return null;
  return [Number((dx / d * px).toFixed(2)), Number((dy / d * px).toFixed(2))];
}

/** Move these points together (in place) so that all lie inside [x0, y0, x1, y1], where they fit.
 * @param {number[][]} points @param {number[]} inside */
function inwards(points, [x0, y0, x1, y1]) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  /** @type {(lo: number, hi: number, min: number, max: number) => number} */
  const shift = (lo, hi, min, max) => (max - min > hi - lo ? 0 : min < lo ? lo - min : max > hi ? hi - max : 0);
  const dx = shift(x0, x1, Math.min(...xs), Math.max(...xs)), dy = shift(y0, y1, Math.min(...ys), Math.max(...ys));
  for (const p of points) { p[0] += dx; p[1] += dy; }
}

/** Do two boxes [x, y, w, h] overlap? @param {number[]} a @param {number[]} b */
function overlap(a, b) {
  return a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
}
