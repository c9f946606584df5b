// Starfinder in the side panel: the ship sheet (hull, shields per quadrant, crew, weapons, critical conditions,
// speed). (The orders' words come from the server's options.)
import { el, humanize, sideColor } from "./dom.js";

/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").GameView} GameView */
/** A weapon on a ship's data sheet. @typedef {{id: string, name?: string, arc?: string, range?: string,
 *   damage?: string, linked?: boolean, kind?: string, speed?: number}} SfWeapon */
/** A crew member on the ship's data sheet: its id and skill bonuses. @typedef {{id: string} & Record<string, unknown>} SfCrewSpec */
/** A seat crewing a ship (seat "ship/role"). @typedef {{seat: string, name?: string, role?: string,
 *   next_role?: string, acted?: boolean, bonus?: number}} SfCrew */
/** @typedef {{tier?: number, size?: string, speed?: number, maneuverability?: string, dt?: number, pcu?: number,
 *   armor?: number, countermeasures?: number, shields?: Record<string, number>, crew?: SfCrewSpec[],
 *   weapons?: SfWeapon[]}} SfSheet */
/** A Starfinder ship as the view shows it.
 * @typedef {{id: string, name?: string, side?: string, status?: string, hull?: number, max_hull?: number,
 *   shields?: Record<string, number>, max_shields?: number, speed?: number, facing?: number, ac?: number, tl?: number,
 *   dt?: number, critical_threshold?: number, battle_stations?: boolean,
 *   effects?: {defence?: number, barrel_roll?: boolean, speed_bonus?: number, flyby?: string, lock_on?: string[],
 *     countermeasures?: string[]},
 *   crew?: SfCrew[], fired?: string[], arc_picks?: Record<string, string>,
 *   critical_damage?: Record<string, {condition?: string, patched?: number, counts_as?: string}>,
 *   data_sheet?: SfSheet}} SfShip */
/** The parts of a Starfinder view this module reads (the views are not in the OpenAPI document).
 * @typedef {{ruleset?: string, phase?: string, ships?: SfShip[], map?: {facings?: string[]},
 *   sides?: string[] | Record<string, unknown>, awaiting?: string[], acting_ship?: string}} SfView */
/** A view as the page holds it, read here as a Starfinder one. @typedef {GameView | SfView | null | undefined} AnyView */

const QUADRANTS = ["forward", "port", "starboard", "aft"];
const FACINGS = ["N", "NE", "SE", "S", "SW", "NW"];
/** @type {Record<string, number>} */
const RANGE_HEXES = { short: 5, medium: 10, long: 20 };
/** @type {Record<string, string>} */
const CONDITION_CLASS = { nominal: "ok", glitching: "warn", malfunctioning: "warn", wrecked: "bad" };

const cap = (/** @type {unknown} */ s) => { const t = humanize(s); return t.charAt(0).toUpperCase() + t.slice(1); };

/** @param {AnyView} state @param {Partial<SfShip> | null | undefined} piece */
export function isStarfinder(state, piece) {
  const view = /** @type {SfView} */ (state);
  if (view && view.ruleset === "starfinder") return true;
  return !!(piece && piece.shields && typeof piece.shields === "object" && Array.isArray(piece.crew)
    && piece.data_sheet && Array.isArray(piece.data_sheet.weapons));
}

// "sunrise/pilot" (or "seat:sunrise/pilot") -> "sunrise"
/** @param {string | null | undefined} seat */
export function seatShipId(seat) {
  const s = String(seat || "").replace(/^seat:/, "");
  return s.includes("/") ? s.split("/")[0] : null;
}

/** @param {AnyView} view @returns {SfShip[]} */
function ships(view) { const v = /** @type {SfView} */ (view); return (v && Array.isArray(v.ships)) ? v.ships : []; }
/** @param {AnyView} view @param {string} id */
function shipOf(view, id) { return ships(view).find((s) => s.id === id) || null; }
/** @param {AnyView} view @param {string} id */
export function shipName(view, id) { const s = shipOf(view, id); return (s && s.name) || id; }

/** @param {AnyView} view @param {string} seat */
function crewMember(view, seat) {
  const ship = shipOf(view, seatShipId(seat));
  return ship && Array.isArray(ship.crew) ? ship.crew.find((c) => c.seat === seat) || null : null;
}

/** @param {AnyView} view @param {string} seat @param {string} wid */
function weaponOf(view, seat, wid) {
  const ship = shipOf(view, seatShipId(seat));
  const ws = (ship && ship.data_sheet && ship.data_sheet.weapons) || [];
  return ws.find((w) => w.id === wid) || null;
}

/** @param {{name?: string} | null | undefined} w @param {string} id */
export function weaponName(w, id) { return (w && w.name) || humanize(id); }

// "FFRF" -> "ahead 2, turn to starboard, ahead 1"
/** @param {string | null | undefined} path */
export function describePath(path) {
  if (!path) return "hold position";
  /** @type {string[]} */
  const parts = [];
  for (const m of path.match(/F+|L+|R+/g) || []) {
    if (m[0] === "F") parts.push(`ahead ${m.length}`);
    else parts.push(`turn ${m.length > 1 ? `${m.length}× ` : ""}to ${m[0] === "L" ? "port" : "starboard"}`);
  }
  return parts.join(", ");
}


/** @param {number} value @param {number} max @param {string} [cls] */
function bar(value, max, cls = "") {
  const pct = max > 0 ? Math.max(0, Math.min(100, (100 * value) / max)) : 0;
  return el("div", { class: `bar ${cls}`, role: "meter", "aria-valuenow": value, "aria-valuemax": max },
    el("span", { style: `width:${pct}%` }), el("em", {}, `${value} / ${max}`));
}

/** @param {[string, unknown][]} pairs */
function facts(pairs) {
  return el("dl", { class: "facts" }, ...pairs.filter(([, v]) => v != null && v !== "" && v !== false)
    .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

/** @param {SfShip} ship @param {AnyView} state @param {{viewer?: string | null}} [how] */
export function starfinderSheet(ship, state, { viewer = "" } = {}) {
  const view = /** @type {SfView} */ (state);
  /** @type {SfSheet} */
  const sheet = ship.data_sheet || {};
  const me = String(viewer || "").replace(/^seat:/, "");
  /** @type {HTMLElement[]} */
  const out = [];
  out.push(el("h3", { class: "sf-ship", dataset: { ship: ship.id } },
    el("span", { class: "dot", style: `background:${sideColor(ship.side, view.sides || [])}` }),
    `${ship.name || ship.id} `,
    el("small", {}, [ship.side, ship.status, sheet.tier != null ? `tier ${sheet.tier}` : "", sheet.size].filter(Boolean).join(" · "))));
  out.push(el("div", { class: "stat", style: "grid-template-columns:6.5em 1fr" }, el("label", {}, "Hull"),
    bar(ship.hull, ship.max_hull, "hull")));

  // shields per quadrant; a quadrant's bar is measured against its share of the maximum
  const shields = ship.shields || {};
  const maxTotal = ship.max_shields || 0;
  const total = QUADRANTS.reduce((a, q) => a + (shields[q] || 0), 0);
  out.push(el("h4", {}, `Shields ${total} / ${maxTotal}`));
  out.push(el("div", { class: "sf-shields" }, ...QUADRANTS.map((q) => {
    const v = shields[q] || 0;
    const m = Math.max(v, (sheet.shields || {})[q] || Math.round(maxTotal / 4));
    return el("div", { class: "stat", style: "grid-template-columns:6.5em 1fr", dataset: { quadrant: q, points: v } },
      el("label", {}, cap(q)), bar(v, m, v ? "" : "down"));
  })));

  const eff = ship.effects || {};
  const sp = ship.speed ?? sheet.speed;
  out.push(facts([
    ["Speed", sheet.speed != null && sp !== sheet.speed ? `${sp} hexes (sheet ${sheet.speed})` : `${sp} hexes`],
    ["Manoeuvrability", sheet.maneuverability ? cap(sheet.maneuverability) : null],
    ["Facing", (view.map && view.map.facings || FACINGS)[ship.facing] ?? ship.facing],
    ["AC / TL", ship.ac != null ? `${ship.ac} / ${ship.tl}` : null],
    ["Damage threshold", ship.dt || sheet.dt || null],
    ["Critical threshold", ship.critical_threshold || null],
    ["Power core", sheet.pcu ? `${sheet.pcu} PCU` : null],
    ["Armour / countermeasures", sheet.armor != null || sheet.countermeasures != null ? `+${sheet.armor || 0} / +${sheet.countermeasures || 0}` : null],
    ["Battle stations", ship.battle_stations ? "yes (targeting active)" : "no"],
  ]));
  const active = [eff.defence ? `defence ${eff.defence}` : "", eff.barrel_roll ? "barrel rolled" : "",
    eff.speed_bonus ? `+${eff.speed_bonus} speed` : "", eff.flyby ? `flyby past ${shipName(view, eff.flyby)}` : "",
    ...(eff.lock_on || []).map((t) => `locked on ${shipName(view, t)}`),
    ...(eff.countermeasures || []).map((t) => `countermeasures vs ${shipName(view, t)}`)].filter(Boolean);
  if (active.length) out.push(el("p", { class: "muted sf-effects" }, `This round: ${active.join("; ")}.`));

  // crew: the live roles (and next round's), whether they have acted, and their skills from the sheet
  const specs = new Map((sheet.crew || []).map((c) => [c.id, c]));
  const crew = Array.isArray(ship.crew) ? ship.crew : [];
  if (crew.length) {
    out.push(el("h4", {}, "Crew"));
    out.push(el("table", { class: "sheet sf-crew" },
      el("tr", {}, ...["Name", "Role", "Skills", "State"].map((h) => el("th", {}, h))),
      ...crew.map((c) => {
        /** @type {Record<string, unknown>} */
        const spec = specs.get(String(c.seat).split("/").slice(1).join("/")) || {};
        const skills = ["piloting", "gunnery", "engineering", "computers", "diplomacy"]
          .filter((k) => spec[k]).map((k) => `${cap(k)} +${spec[k]}`).join(", ");
        const state = [c.acted ? "acted" : "", c.bonus ? `+${c.bonus} encouraged` : "",
          c.next_role && c.next_role !== c.role ? `→ ${humanize(c.next_role)} next round` : ""].filter(Boolean).join("; ");
        return el("tr", { dataset: { seat: c.seat, role: c.role }, class: c.seat === me ? "mine" : null },
          el("td", {}, `${c.name || c.seat}${c.seat === me ? " (you)" : ""}`), el("td", {}, cap(c.role)),
          el("td", {}, skills || "—"), el("td", { class: c.acted ? "muted" : "" }, state || "ready"));
      })));
  }

  const weapons = sheet.weapons || [];
  if (weapons.length) {
    const fired = new Set(ship.fired || []);
    out.push(el("h4", {}, "Weapons"));
    out.push(el("table", { class: "sheet sf-weapons" },
      el("tr", {}, ...["Weapon", "Arc", "Range", "Damage", "State"].map((h) => el("th", {}, h))),
      ...weapons.map((w) => el("tr", { dataset: { weapon: w.id } },
        el("td", {}, weaponName(w, w.id), w.kind === "tracking" ? el("small", { class: "muted" }, ` tracking, speed ${w.speed}`) : null,
          w.linked ? el("small", { class: "muted" }, " linked") : null),
        el("td", {}, cap(w.arc) + ((ship.arc_picks || {})[w.id] ? ` (→ ${ship.arc_picks[w.id]})` : "")),
        el("td", {}, `${cap(w.range || "short")}${RANGE_HEXES[w.range || "short"] ? ` (${RANGE_HEXES[w.range || "short"]})` : ""}`),
        el("td", {}, w.damage),
        el("td", { class: fired.has(w.id) ? "muted" : "ok" }, fired.has(w.id) ? "fired" : "ready")))));
  }

  out.push(el("h4", {}, "Systems"));
  const crit = Object.entries(ship.critical_damage || {});
  if (!crit.length) out.push(el("p", { class: "ok sf-systems" }, "All systems nominal."));
  else {
    out.push(el("table", { class: "sheet sf-systems" },
      el("tr", {}, ...["System", "Condition", "Patched", "Counts as"].map((h) => el("th", {}, h))),
      ...crit.map(([sys, d]) => el("tr", { dataset: { system: sys } }, el("td", {}, cap(sys)),
        el("td", { class: CONDITION_CLASS[d.condition] || "" }, d.condition), el("td", {}, d.patched || 0),
        el("td", { class: CONDITION_CLASS[d.counts_as] || "" }, d.counts_as)))));
  }
  return out;
}

