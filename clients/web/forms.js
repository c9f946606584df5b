// Orders composed piece by piece (docs/view-contract.md "Options and forms"): a Form lists, for each
// piece, the fields it fills; the page keeps a draft per piece, builds the one command exactly as
// service/domain/core/choices.py compose() does, and submits it once. Free moves: a `legs` field is
// edited with distance-and-turn controls (or by dragging its end on the map) and checked live against
// its limits; a `hexpath` field is built by tapping hexes on the map, its cost shown.
import { el, fmt } from "./dom.js";
import { legsPath, hexNeighbours, hexDistance, place, HEX_DIRS } from "./geometry.js";

/** @typedef {import("../types/salvo").Form} Form */
/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").Drawing} Drawing */
/** @typedef {import("../types/salvo").DrawBoard} DrawBoard */
/** @typedef {import("../types/salvo").XY} XY */
/** @typedef {import("../types/openapi").components["schemas"]["PieceChoices"]} PieceChoices */
/** @typedef {import("../types/openapi").components["schemas"]["Field"]} Field */
/** @typedef {import("../types/openapi").components["schemas"]["Leg"]} Leg */
/** @typedef {import("./board.js").Handle} Handle */
/** A hex as the limits and drafts give it: [q, r], {q, r} or {x, y} (GSC2's start is a point).
 * @typedef {number[] | {q?: number, r?: number, x?: number, y?: number}} HexLike */
/** The `limits` keys the page reads (the rules' move limits, docs/view-contract.md): a legs field's
 * (service/domain/gsc2/movement.py move_limits) and a hexpath field's (ASC, Starfinder options).
 * @typedef {{max_distance_left?: number, max_distance?: number, turn_degrees?: number, paid_turn_cost?: number,
 *   turn_distance?: number, free_turn_after?: number, end_of_move_turn?: boolean,
 *   start?: HexLike, facing?: number, turn_cost?: number, max_cost?: number, map_radius?: number,
 *   costs?: Record<string, number>, step_cost?: number}} Limits */
/** A piece's draft: field key -> value. @typedef {Record<string, unknown>} Draft */
/** A target's choice the tray offers (options.js targetActions). @typedef {{label: string, apply: () => void}} Setter */
/** A hex the path may take next, and what tapping it does. @typedef {{q: number, r: number, label: string, text: string, apply: () => void}} Cell */
/** What a piece's draft lays on the map (Board.render's decor) and the target setters.
 * @typedef {{targets: Map<string, string>, plan: {points: XY[], ok: boolean, marks: {at: XY, text: string}[]} | null,
 *   cells: Cell[], handle: Handle | null, setters: Map<string, Setter[]>}} FormDecor */
/** @typedef {(redraw: boolean) => void} OnChange */
/** Sets the field's draft value (and redraws unless told not to). @typedef {(x: unknown, redraw?: boolean) => void} SetValue */

const EPS = 1e-6;

/** @param {Field} field */
const limitsOf = (field) => /** @type {Limits} */ (field.limits || {});
/** The value a control's change event carries. @param {Event} e */
const valueOf = (e) => /** @type {HTMLInputElement | HTMLSelectElement} */ (e.target).value;

/** @param {Field} f @returns {unknown} */
export function defaultValue(f) {
  if (f.default != null) return structuredClone(f.default);
  // an optional choice (required: false, e.g. a final facing) starts unset, not at its first value
  if (f.kind === "choice") return f.required !== false && f.values && f.values.length ? f.values[0].value : null;
  if (f.kind === "number") return f.min != null ? f.min : 0;
  if (f.kind === "flag") return false;
  return [];
}

const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);
const hexOf = (/** @type {HexLike | null | undefined} */ h) => /** @type {XY | null} */ (Array.isArray(h) ? [h[0], h[1]] : h && typeof h === "object" ? [h.q ?? h.x, h.r ?? h.y] : null);

// ---- legs: live legality from the move limits (GSC2-MOV-3/4 as the limits describe them) ----------
/** @param {Leg[]} legs @param {Field} field */
export function checkLegs(legs, field) {
  const lim = limitsOf(field);
  const maxDist = lim.max_distance_left ?? lim.max_distance ?? field.max ?? Infinity;
  const deg = lim.turn_degrees;
  const paidCost = lim.paid_turn_cost;
  const turnDistance = lim.turn_distance;
  let need = lim.free_turn_after ?? 0; // distance still to go before a free turn
  let left = maxDist;
  let total = 0;
  /** @type {string[]} */
  const problems = [];
  legs.forEach((leg, i) => {
    const turn = Number(leg.turn) || 0, dist = Number(leg.distance) || 0;
    if (dist < 0) problems.push(`leg ${i + 1}: a ship cannot move backwards`);
    if (turn) {
      if (deg && Math.abs(turn) !== deg) problems.push(`leg ${i + 1}: turns are ${deg}° left or right`);
      const lastAtEnd = i === legs.length - 1 && dist === 0 && lim.end_of_move_turn;
      if (need <= EPS || lastAtEnd) { /* a free turn */ }
      else if (paidCost != null && left >= paidCost - EPS) left -= paidCost;
      else if (paidCost != null || lim.free_turn_after != null) {
        problems.push(`leg ${i + 1}: may turn after ${fmt(need)}" more${paidCost != null ? `, or by giving up ${fmt(paidCost)}"` : ""}`);
      }
      need = turnDistance ?? need;
    }
    if (dist > left + EPS) problems.push(`leg ${i + 1}: only ${fmt(Math.max(0, left))}" left`);
    left -= dist;
    need -= dist;
    total += dist;
  });
  return { ok: problems.length === 0, problems, total, left: Math.max(0, left), maxDist };
}

// ---- hexpath ---------------------------------------------------------------------------------------
/** @param {Limits} lim @param {XY} hex */
function stepCost(lim, hex) {
  const costs = lim.costs || {};
  return costs[`${hex[0]},${hex[1]}`] ?? lim.step_cost ?? 1;
}

// A path's cost: each hex's cost, plus (when the limits give a facing and a turn cost) the hexsides
// turned to face each step (ASC-MOV-2: half a point a hexside).
// A cost as a person reads it: thirds and halves to two decimals at most (1.33, not 1.3333333333333333).
/** @param {unknown} n */
export function num(n) { const x = Number(n); return Number.isFinite(x) ? String(+x.toFixed(2)) : String(n ?? ""); }

/** @param {XY[]} path @param {Field} field */
export function pathCost(path, field) {
  const lim = limitsOf(field);
  let cost = 0;
  let at = hexOf(lim.start);
  let facing = lim.facing;
  for (const h of path) {
    cost += stepCost(lim, h);
    if (at && facing != null && lim.turn_cost) {
      const d = HEX_DIRS.findIndex(([dq, dr]) => at[0] + dq === h[0] && at[1] + dr === h[1]);
      if (d >= 0) {
        const turn = Math.abs(d - facing) % 6;
        cost += Math.min(turn, 6 - turn) * lim.turn_cost;
        facing = d;
      }
    }
    at = h;
  }
  return cost;
}

/** @param {XY[]} path @param {Field} field @param {Pick<DrawBoard, "radius"> | null | undefined} board */
export function nextHexes(path, field, board) {
  const lim = limitsOf(field);
  const start = hexOf(lim.start) || [0, 0];
  const last = path.length ? path[path.length - 1] : start;
  const max = lim.max_cost ?? field.max ?? Infinity;
  const radius = lim.map_radius ?? (board && board.radius);
  return hexNeighbours(last).filter((h) => {
    if (radius != null && hexDistance(h, [0, 0]) > radius) return false;
    return !(h[0] === start[0] && h[1] === start[1]);
  }).map((h) => ({ hex: h, cost: pathCost([...path, h], field), max }))
    .filter((c) => c.cost <= max + EPS);
}

// ---- the drafts ------------------------------------------------------------------------------------
export class Drafts {
  constructor() {
    /** @type {Form[]} */
    this.forms = [];
    /** @type {Map<string, Draft>} key(form, piece) -> the piece's draft */
    this.values = new Map();
    /** @type {Map<string, boolean>} key(form, piece) -> in the command (forms with optional_pieces) */
    this.included = new Map();
    this.active = null;
    /** @type {string | null} the command whose hex path takes the map's taps */
    this.activePath = null;
  }

  /** @param {Form} form @param {string} piece */
  key(form, piece) { return `${form.command}|${form.label}|${piece}`; }

  /** @param {Form[] | null | undefined} forms */
  update(forms) {
    this.forms = forms || [];
    /** @type {Map<string, Draft>} */
    const keep = new Map();
    /** @type {Map<string, boolean>} */
    const inc = new Map();
    for (const form of this.forms) {
      for (const pc of form.pieces) {
        const k = this.key(form, pc.piece);
        const old = this.values.get(k) || {};
        /** @type {Draft} */
        const vals = {};
        for (const f of pc.fields) vals[f.key] = f.key in old && this.stillValid(f, old[f.key]) ? old[f.key] : defaultValue(f);
        keep.set(k, vals);
        inc.set(k, this.included.get(k) ?? !form.optional_pieces);
      }
    }
    this.values = keep;
    this.included = inc;
  }

  /** @param {Field} f @param {unknown} v */
  stillValid(f, v) {
    if (f.kind === "choice") return (f.values || []).some((x) => same(x.value, v));
    if (f.kind === "number") return typeof v === "number" && (f.min == null || v >= f.min) && (f.max == null || v <= f.max);
    return true;
  }

  /** @param {Form} form @param {PieceChoices} pc @param {Field} f @returns {unknown} */
  get(form, pc, f) { return (this.values.get(this.key(form, pc.piece)) || {})[f.key]; }

  /** @param {Form} form @param {PieceChoices} pc @param {Field} f @param {unknown} v */
  set(form, pc, f, v) {
    const k = this.key(form, pc.piece);
    if (f.kind === "hexpath") this.activePath = form.command;
    this.values.get(k)[f.key] = v;
    if (form.optional_pieces) this.included.set(k, true);
  }

  /** @param {Form} form @param {PieceChoices} pc @param {boolean} on */
  include(form, pc, on) { this.included.set(this.key(form, pc.piece), on); }
  /** @param {Form} form @param {PieceChoices} pc */
  isIncluded(form, pc) { return this.included.get(this.key(form, pc.piece)); }

  /** @param {Form} form */
  reset(form) {
    for (const pc of form.pieces) {
      const k = this.key(form, pc.piece);
      this.values.set(k, Object.fromEntries(pc.fields.map((f) => [f.key, defaultValue(f)])));
      this.included.set(k, !form.optional_pieces);
    }
  }

  // core.choices.compose, with the drafts as the picks
  /** @param {Form} form @returns {Command} the command as the form builds it (the server checks it as any command) */
  compose(form) {
    /** @type {Record<string, unknown>[]} */
    const entries = [];
    for (const pc of form.pieces) {
      if (!this.isIncluded(form, pc)) continue;
      /** @type {Record<string, unknown>} */
      const entry = { [form.piece_key || "id"]: pc.piece, ...(pc.fixed || {}) };
      for (const f of pc.fields) {
        const v = this.get(form, pc, f);
        if (v != null || f.required) entry[f.key] = v;
      }
      entries.push(entry);
    }
    /** @type {Record<string, unknown>} */
    const body = { type: form.command, ...(form.fixed || {}) };
    if (form.list_key != null) body[form.list_key] = entries;
    else if (entries.length) Object.assign(body, entries[0]);
    return /** @type {Command} */ (body);
  }

  // Every (form, piece choices) for a piece id
  /** @param {string} piece @returns {[Form, PieceChoices][]} */
  of(piece) {
    /** @type {[Form, PieceChoices][]} */
    const out = [];
    for (const form of this.forms) for (const pc of form.pieces) if (pc.piece === piece) out.push([form, pc]);
    return out;
  }
}

// ---- what a piece's draft puts on the map ----------------------------------------------------------
// decor for Board.render: form targets (choice values pointing at pieces), the legs plan with its drag
// handle, or the hexpath with its next hexes.
/** @param {Drafts} drafts @param {string | null | undefined} piece @param {Drawing} drawing @param {OnChange} onChange */
export function formDecor(drafts, piece, drawing, onChange) {
  /** @type {FormDecor} */
  const out = { targets: new Map(), plan: null, cells: [], handle: null, setters: new Map() };
  if (!piece) return out;
  const p = (drawing.pieces || []).find((x) => x.id === piece);
  const board = drawing.board;
  // one path takes the map's taps: the form last edited (drafts.activePath) if this piece has it, else the first
  const withPath = drafts.of(piece).filter(([, pc]) => pc.fields.some((f) => f.kind === "hexpath")).map(([form]) => form);
  const pathForm = withPath.find((form) => form.command === drafts.activePath) || withPath[0];
  for (const [form, pc] of drafts.of(piece)) {
    for (const f of pc.fields) {
      if (f.kind === "choice") {
        for (const v of f.values || []) {
          if (!v.piece) continue;
          out.targets.set(v.piece, `${f.label}: ${v.label}`);
          if (!out.setters.has(v.piece)) out.setters.set(v.piece, []);
          // a one-piece form's label says which of the piece's forms this is (one per weapon, say)
          const whose = form.pieces.length === 1 && form.label ? form.label : pc.label;
          out.setters.get(v.piece).push({ label: `${whose} — ${f.label}: ${v.label}`, apply: () => drafts.set(form, pc, f, v.value) });
        }
      } else if (f.kind === "legs" && p && board.kind === "plane") {
        const legs = /** @type {Leg[]} */ (drafts.get(form, pc, f) || []);
        const start = place(board, p.at);
        const { pts, heading } = legsPath(start, p.facing || 0, legs);
        const check = checkLegs(legs, f);
        let run = 0;
        /** @type {{at: XY, text: string}[]} */
        const marks = [];
        legs.forEach((leg, i) => {
          run += Number(leg.distance) || 0;
          if (leg.distance) marks.push({ at: legsPath(start, p.facing || 0, legs.slice(0, i + 1)).pts.at(-1), text: `${fmt(run)}"` });
        });
        out.plan = { points: pts, ok: check.ok, marks };
        const last = legs.length ? legs[legs.length - 1] : null;
        const end = pts[pts.length - 1];
        // no handle on the ship itself (it would take the ship's taps): add a leg first
        if (last && check.total > EPS) out.handle = {
          at: end, value: last ? last.distance : 0,
          label: `Drag to set the move's last leg: ${fmt(check.total)}" of ${fmt(check.maxDist)}", heading ${fmt(heading)}°`,
          onDrag: (ux, uy, done) => {
            const cur = [.../** @type {Leg[]} */ (drafts.get(form, pc, f) || [])];
            if (!cur.length) cur.push({ turn: 0, distance: 0 });
            const before = legsPath(start, p.facing || 0, cur.slice(0, -1));
            const h = (((before.heading + (Number(cur.at(-1).turn) || 0)) * Math.PI) / 180);
            const [bx, by] = before.pts.at(-1);
            const along = (ux - bx) * Math.sin(h) - (uy - by) * Math.cos(h);
            const room = checkLegs(cur.slice(0, -1), f).left;
            const d = Math.max(0, Math.min(room, Math.round(along * 10) / 10));
            cur[cur.length - 1] = { ...cur.at(-1), distance: d };
            drafts.set(form, pc, f, cur);
            onChange(done);
          },
          onKey: (k) => {
            const cur = [.../** @type {Leg[]} */ (drafts.get(form, pc, f) || [])];
            if (!cur.length) cur.push({ turn: 0, distance: 0 });
            const d = Number(cur.at(-1).distance) || 0;
            cur[cur.length - 1] = { ...cur.at(-1), distance: Math.max(0, d + (k === "ArrowUp" || k === "ArrowRight" ? 0.5 : -0.5)) };
            drafts.set(form, pc, f, cur);
            onChange(true);
          },
        };
      } else if (f.kind === "hexpath" && board.kind === "hex" && form === pathForm && !out.cells.length) {
        const path = /** @type {HexLike[]} */ (drafts.get(form, pc, f) || []).map(hexOf);
        const start = hexOf(limitsOf(f).start) || (p ? [p.at.x, p.at.y] : [0, 0]);
        out.plan = { points: [start, ...path].map((h) => place(board, { x: h[0], y: h[1] })), ok: true,
          marks: path.map((h, i) => ({ at: place(board, { x: h[0], y: h[1] }), text: num(pathCost(path.slice(0, i + 1), f)) })) };
        out.cells = nextHexes(path, f, board).map(({ hex, cost, max }) => ({
          q: hex[0], r: hex[1], text: num(cost),
          label: `Add hex ${hex[0]}, ${hex[1]} to ${pc.label}'s path: it costs ${num(cost)} of ${num(max)}`,
          apply: () => { drafts.set(form, pc, f, [.../** @type {HexLike[]} */ (drafts.get(form, pc, f) || []), [hex[0], hex[1]]]); },
        }));
      }
    }
  }
  return out;
}

// ---- the pane ------------------------------------------------------------------------------------
/** @param {Drafts} drafts @param {Form} form @param {PieceChoices} pc @param {Field} f @param {OnChange} onChange
 * @param {boolean} disabled */
function fieldControl(drafts, form, pc, f, onChange, disabled) {
  const id = `f-${form.command}-${pc.piece}-${f.key}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  const v = drafts.get(form, pc, f);
  /** @type {SetValue} */
  const set = (x, redraw = true) => { drafts.set(form, pc, f, x); onChange(redraw); };
  const label = el("label", { for: id }, f.label + (f.unit ? ` (${f.unit})` : ""));
  switch (f.kind) {
    case "choice": {
      const optional = f.required === false;
      const sel = el("select", { id, disabled, "data-key": f.key,
        onchange: (/** @type {Event} */ e) => set(valueOf(e) === "" ? null : f.values[Number(valueOf(e))].value) },
        optional ? el("option", { value: "", selected: v == null }, "—") : null,
        ...(f.values || []).map((x, i) => el("option", { value: i, selected: same(x.value, v) }, x.label)));
      return el("div", { class: "field" }, label, sel);
    }
    case "number": {
      const input = el("input", { id, type: "number", min: f.min, max: f.max, step: f.step ?? "any", value: v ?? "", disabled,
        "data-key": f.key, onchange: (/** @type {Event} */ e) => set(valueOf(e) === "" ? null : Number(valueOf(e))) });
      return el("div", { class: "field" }, label, input);
    }
    case "flag": {
      const box = el("input", { id, type: "checkbox", checked: !!v, disabled, "data-key": f.key, onchange: (/** @type {Event} */ e) => set(/** @type {HTMLInputElement} */ (e.target).checked) });
      // the whole row is the label: a finger-sized target around a small box
      return el("label", { class: "field flag", for: id }, box, f.label + (f.unit ? ` (${f.unit})` : ""));
    }
    case "legs": return legsEditor(id, drafts, form, pc, f, set, disabled);
    case "hexpath": {
      const path = /** @type {HexLike[]} */ (v || []);
      const cost = pathCost(path.map(hexOf), f);
      const max = limitsOf(f).max_cost ?? f.max;
      return el("div", { class: "field hexpath", "data-key": f.key },
        el("span", { class: "lbl" }, f.label),
        el("p", { class: "path-text", "aria-live": "polite" }, path.length
          ? `${path.map((h) => hexOf(h).join(",")).join(" → ")} · cost ${num(cost)}${max != null ? ` of ${num(max)}` : ""}`
          : "Tap the hexes on the map, one after another."),
        el("button", { type: "button", class: "small", disabled: disabled || !path.length, onclick: () => set(path.slice(0, -1)) }, "Undo hex"),
        el("button", { type: "button", class: "small", disabled: disabled || !path.length, onclick: () => set([]) }, "Clear path"));
    }
    default: return el("p", { class: "muted" }, `${f.label}: unsupported field kind ${f.kind}`);
  }
}

/** @param {string} id @param {Drafts} drafts @param {Form} form @param {PieceChoices} pc @param {Field} f
 * @param {SetValue} set @param {boolean} disabled */
function legsEditor(id, drafts, form, pc, f, set, disabled) {
  const legs = /** @type {Leg[]} */ (drafts.get(form, pc, f) || []);
  const lim = limitsOf(f);
  const deg = lim.turn_degrees || 45;
  const check = checkLegs(legs, f);
  const rows = legs.map((leg, i) => {
    const upd = (/** @type {Leg} */ patch, redraw = true) => { const next = legs.map((l, j) => (j === i ? { ...l, ...patch } : l)); set(next, redraw); };
    const turn = el("select", { id: `${id}-turn-${i}`, "aria-label": `Leg ${i + 1} turn`, disabled, class: "leg-turn",
      onchange: (/** @type {Event} */ e) => upd({ turn: Number(valueOf(e)) }) },
    ...[-deg, 0, deg].map((t) => el("option", { value: t, selected: (Number(leg.turn) || 0) === t },
      t === 0 ? "straight on" : `${Math.abs(t)}° ${t < 0 ? "left" : "right"}`)));
    const max = Math.max(0, check.left + (Number(leg.distance) || 0));
    const dist = el("input", { type: "number", id: `${id}-dist-${i}`, class: "leg-distance", "aria-label": `Leg ${i + 1} distance in inches`,
      min: 0, step: 0.1, value: leg.distance ?? 0, disabled, onchange: (/** @type {Event} */ e) => upd({ distance: Number(valueOf(e)) || 0 }) });
    const slider = el("input", { type: "range", class: "leg-slider", "aria-label": `Leg ${i + 1} distance`, min: 0, max: fmt(max, 2),
      step: 0.1, value: leg.distance ?? 0, disabled,
      oninput: (/** @type {Event} */ e) => { dist.value = valueOf(e); upd({ distance: Number(valueOf(e)) }, false); },
      onchange: (/** @type {Event} */ e) => upd({ distance: Number(valueOf(e)) }) });
    return el("li", { class: "leg", dataset: { i } }, el("span", { class: "lbl" }, `Leg ${i + 1}`), turn, dist, el("span", {}, '"'),
      slider, el("button", { type: "button", class: "small", "aria-label": `Remove leg ${i + 1}`, disabled, onclick: () => set(legs.filter((_, j) => j !== i)) }, "✕"));
  });
  return el("div", { class: "field legs", "data-key": f.key },
    el("span", { class: "lbl" }, f.label),
    el("ol", { class: "legs-list" }, ...rows),
    el("button", { type: "button", class: "small add-leg", disabled, onclick: () => set([...legs, { turn: 0, distance: Math.round(check.left * 10) / 10 }]) }, "+ Add a leg"),
    el("p", { class: `ruler-text${check.ok ? "" : " bad"}`, "aria-live": "polite" },
      `Moves ${fmt(check.total)}" of ${check.maxDist === Infinity ? "?" : fmt(check.maxDist)}"; ${fmt(check.left)}" left.`,
      ...check.problems.map((p) => el("span", { class: "problem" }, ` ${p}.`))));
}

// One form: a block per piece (only the selected piece's block open when there are many), one submit.
/** @param {Drafts} drafts @param {Form} form
 * @param {{selected?: string | null, disabled: boolean, onChange: OnChange, onSend: (command: Command, form: Form) => void,
 *   onShow: (piece: string) => void}} how */
export function formBlock(drafts, form, { selected, disabled, onChange, onSend, onShow }) {
  const many = form.pieces.length > 3;
  const blocks = form.pieces.map((pc) => {
    const inc = drafts.isIncluded(form, pc);
    const head = el("div", { class: "pc-head" },
      form.optional_pieces ? el("label", { class: "tick" }, el("input", { type: "checkbox", checked: inc, disabled, "aria-label": `Include ${pc.label}`,
        onchange: (/** @type {Event} */ e) => { drafts.include(form, pc, /** @type {HTMLInputElement} */ (e.target).checked); onChange(true); } })) : null,
      el("strong", {}, pc.label),
      el("button", { type: "button", class: "small show", disabled, "aria-label": `Show ${pc.label} on the map`, onclick: () => onShow(pc.piece) }, "Map"));
    const open = !many || pc.piece === selected;
    return el("div", { class: `pc${pc.piece === selected ? " selected" : ""}${inc ? "" : " left-out"}`, dataset: { piece: pc.piece } },
      head, open ? el("div", { class: "pc-fields" }, ...pc.fields.map((f) => fieldControl(drafts, form, pc, f, onChange, disabled)))
        : el("p", { class: "muted small" }, inc ? "Ordered — tap Map to edit." : "No new order."));
  });
  // a move the page already knows the rules refuse is not sent: Send waits, saying why (the legs' own lines)
  const problems = formProblems(drafts, form);
  const whyId = `why-${form.command}-${form.label}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  return el("section", { class: "form", dataset: { command: form.command, group: form.group || "" } },
    el("h4", {}, form.label),
    ...blocks,
    problems.length ? el("p", { class: "send-why problem", id: whyId, role: "status" },
      `Cannot send yet: ${problems.join("; ")}.`) : null,
    el("button", { type: "button", class: "primary send-form", disabled: disabled || problems.length > 0,
      "aria-describedby": problems.length ? whyId : null, dataset: { command: form.command },
      onclick: () => onSend(drafts.compose(form), form) }, `Send: ${form.label}`));
}

// What the move limits already refuse in a form's drafts (checkLegs), piece by piece; the numbering is the
// editor's and the server's (leg 1 is the first).
/** @param {Drafts} drafts @param {Form} form @returns {string[]} */
export function formProblems(drafts, form) {
  /** @type {string[]} */
  const out = [];
  for (const pc of form.pieces) {
    if (!drafts.isIncluded(form, pc)) continue;
    for (const f of pc.fields) {
      if (f.kind !== "legs") continue;
      const check = checkLegs(/** @type {Leg[]} */ (drafts.get(form, pc, f) || []), f);
      out.push(...check.problems.map((p) => (form.pieces.length > 1 ? `${pc.label} ${p}` : p)));
    }
  }
  return out;
}
