// Side panel: the selected piece's data sheet and damage (GSC2 ships in detail, anything else generically).
import { el, clear, fmt, humanize, sideColor } from "./dom.js";
import { isStarfinder, starfinderSheet } from "./starfinder-ui.js";

/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("./starfinder-ui.js").SfShip} SfShip */
/** A system's state on a GSC2 ship (a beam battery's too). @typedef {{kind?: string, level?: number, max?: number,
 *   hits?: number, damaged?: boolean, destroyed?: boolean}} SysState */
/** A GSC2 ship's data sheet as the view shows it.
 * @typedef {{crew?: number, speed?: number, armor?: unknown, aspect?: unknown, size?: number, turn_distance?: number,
 *   beams?: {id: string, name?: string, class?: string, arc?: string, weapons?: number, damage?: string, targeting?: number}[],
 *   missiles?: {id: string, name?: string, missiles?: number, damage?: string}[], chart?: string[][]}} Gsc2Sheet */
/** A GSC2 ship as the view shows it (GSC2's ShipState, with its sheet and limits spelled out for the page).
 * @typedef {{id: string, name?: string, side?: string, status?: string, captured_by?: string | null, hull?: number,
 *   max_hull?: number, crew?: number, speed?: number, heading?: number, moved?: number, move_state?: string,
 *   shield_pool?: number, held?: boolean, systems?: Record<string, SysState>, used_this_turn?: string[],
 *   missiles_left?: Record<string, number>, boarders?: Record<string, {assault?: number, heavy?: number}>,
 *   move_limits?: {max_distance_left?: number, turn_degrees?: number, free_turn_after?: number, paid_turn_cost?: number},
 *   data_sheet?: Gsc2Sheet}} Gsc2Ship */
/** The piece the panel shows: any view object with an id (a GSC2 or Starfinder ship has a data sheet).
 * @typedef {{id: string, name?: string, bogey?: unknown, data_sheet?: object} & Record<string, unknown>} Piece */
/** A chip in the piece list (a bogey is named by its number). @typedef {{id: string, name?: string | number, side?: string, status?: string}} PieceChip */

/** @param {number} value @param {number} max @param {string} [cls] */
function bar(value, max, cls = "") {
  const pct = max > 0 ? Math.max(0, Math.min(100, (100 * value) / max)) : 0;
  return el("div", { class: `bar ${cls}`, role: "meter", "aria-valuenow": value, "aria-valuemax": max },
    el("span", { style: `width:${pct}%` }), el("em", {}, `${value} / ${max}`));
}

/** @param {SysState} sys @returns {[string, string]} the state's words and class */
function sysState(sys) {
  if (sys.destroyed) return ["destroyed", "bad"];
  if (sys.damaged) return ["damaged", "warn"];
  if (sys.level < sys.max) return [`reduced`, "warn"];
  if (sys.hits) return [`${sys.hits} hit(s)`, "warn"];
  return ["ok", "ok"];
}

/** @param {Gsc2Ship} ship @param {{sides?: string[] | Record<string, unknown>}} view */
function gsc2Sheet(ship, view) {
  /** @type {Gsc2Sheet} */
  const sheet = ship.data_sheet || {};
  /** @type {HTMLElement[]} */
  const out = [];
  out.push(el("h3", {}, el("span", { class: "dot", style: `background:${sideColor(ship.side, view.sides || [])}` }),
    `${ship.name || ship.id} `, el("small", {}, `${ship.side} · ${ship.status}${ship.captured_by ? ` by ${ship.captured_by}` : ""}`)));
  out.push(el("div", { class: "stat" }, el("label", {}, "Hull"), bar(ship.hull, ship.max_hull, "hull")));
  out.push(el("dl", { class: "facts" },
    .../** @type {[string, unknown][]} */ ([["Crew", `${ship.crew} / ${sheet.crew ?? "?"}`], ["Speed", `${ship.speed} (sheet ${sheet.speed ?? "?"})`],
      ["Heading", `${fmt(ship.heading)}°`], ["Moved", `${fmt(ship.moved || 0)}" (${humanize(ship.move_state || "")})`],
      ["Shield pool", ship.shield_pool], ["Armor", sheet.armor], ["Aspect", sheet.aspect], ["Size", sheet.size],
      ["Turn distance", sheet.turn_distance != null ? `${fmt(sheet.turn_distance)}"` : null],
      ["Held by tractor", ship.held ? "yes" : null],
    ]).filter(([, v]) => v != null && v !== "").flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])));
  if (ship.move_limits) {
    const ml = ship.move_limits;
    out.push(el("p", { class: "muted" }, `May still move ${fmt(ml.max_distance_left)}"; free ${ml.turn_degrees}° turn after ${fmt(ml.free_turn_after)}"; paid turn costs ${fmt(ml.paid_turn_cost)}".`));
  }
  const beams = sheet.beams || [];
  if (beams.length) {
    out.push(el("h4", {}, "Beam batteries"));
    out.push(el("table", { class: "sheet" },
      el("tr", {}, ...["", "Battery", "Arc", "Wpn", "Dmg", "Tgt", "State"].map((h) => el("th", {}, h))),
      ...beams.map((b) => {
        const sys = (ship.systems || {})[b.id] || { level: 1, max: 1 };
        const [state, cls] = sysState(sys);
        const used = (ship.used_this_turn || []).includes(b.id);
        return el("tr", { dataset: { battery: b.id } }, el("td", {}, b.id), el("td", {}, `${b.name || ""} (${b.class})`),
          el("td", {}, b.arc), el("td", {}, b.weapons), el("td", {}, b.damage), el("td", {}, `≤${b.targeting}`),
          el("td", { class: cls }, used && cls === "ok" ? "fired" : state));
      })));
  }
  const missiles = sheet.missiles || [];
  if (missiles.length) {
    out.push(el("h4", {}, "Missile batteries"));
    out.push(el("ul", {}, ...missiles.map((m) => el("li", {},
      `${m.name || m.id} (${m.id}): ${m.missiles} per launch, dmg ${m.damage}, left ${(ship.missiles_left || {})[m.id] ?? "?"}`))));
  }
  const systems = Object.entries(ship.systems || {}).filter(([, s]) => s.kind !== "beam");
  if (systems.length) {
    out.push(el("h4", {}, "Systems and damage"));
    out.push(el("table", { class: "sheet" },
      el("tr", {}, ...["System", "Level", "Hits", "State"].map((h) => el("th", {}, h))),
      ...systems.map(([id, s]) => {
        const [state, cls] = sysState(s);
        return el("tr", { dataset: { system: id } }, el("td", {}, humanize(id)), el("td", {}, `${s.level}/${s.max}`),
          el("td", {}, s.hits || 0), el("td", { class: cls }, state));
      })));
  }
  const boarders = Object.entries(ship.boarders || {});
  if (boarders.length) {
    out.push(el("h4", {}, "Enemy troops aboard"));
    out.push(el("ul", {}, ...boarders.map(([side, t]) => el("li", {}, `${side}: ${t.assault || 0} assault, ${t.heavy || 0} heavy`))));
  }
  if (sheet.chart && sheet.chart.length) {
    out.push(el("details", {}, el("summary", {}, "Damage chart"),
      el("ol", { class: "chart" }, ...sheet.chart.map((row) => el("li", {}, row.map(humanize).join(" · "))))));
  }
  return out;
}

// extra: { viewer } (the viewer label, e.g. "seat:sunrise/pilot": marks the seat in a Starfinder crew list)
/** @param {HTMLElement} root @param {GameView} state @param {Piece | null} piece @param {PieceChip[]} pieces
 * @param {(id: string) => void} onSelect @param {{viewer?: string | null}} [extra] */
export function renderPanel(root, state, piece, pieces, onSelect, extra = {}) {
  const view = /** @type {{sides?: string[] | Record<string, unknown>}} */ (state);
  clear(root);
  const list = el("div", { class: "piece-list" });
  for (const p of pieces) {
    list.append(el("button", {
      type: "button", class: `chip${piece && p.id === piece.id ? " active" : ""}${p.status ? ` status-${p.status}` : ""}`,
      dataset: { id: p.id }, onclick: () => onSelect(p.id),
    }, el("span", { class: "dot", style: `background:${sideColor(p.side, view.sides || [])}` }), p.name));
  }
  root.append(list);
  if (!piece) { root.append(el("p", { class: "muted" }, "Tap a ship on the map to see its data sheet.")); return; }
  root.append(...(isStarfinder(state, piece) && piece.data_sheet ? starfinderSheet(/** @type {SfShip} */ (piece), state, extra)
    : gsc2Sheet(/** @type {Gsc2Ship} */ (piece), view)));
}
