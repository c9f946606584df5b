// Full Thrust campaign (ruleset "ftcampaign"): the strategic star map drawn from the caller's view.
// Flat-topped axial hexes (as hexmap.js); worlds with their (known) owners, charted routes, the viewer's own
// task groups, other players' groups as last-seen markers "as of turn N" (FTC-TG-3), and who has sealed
// orders this turn. A click on a world or a group selects it; its details show under the map.
import { svg, el, fill, humanize, sideColor } from "./dom.js";

/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/salvo").XY} XY */
/** @typedef {import("./hexmap.js").MapCtx} MapCtx */
/** @typedef {import("../types/openapi").components["schemas"]["StrategicOrder"]} StrategicOrder */
/** The parts of a campaign view the star map reads (the views are not in the OpenAPI document; the
 * shapes follow CampaignState's worlds, groups and sightings).
 * @typedef {{id: string, hex: number[], owner?: string | null, route?: boolean, income?: number, idp?: number,
 *   idp_full?: number, capital?: boolean, interdicted?: boolean, closed?: boolean}} StarWorld */
/** @typedef {{id: string, name?: string, size_class?: string, design?: string, hull?: number, hull_lost?: number,
 *   systems?: {damaged?: boolean}[]}} StarShip */
/** @typedef {{id: string, hex: number[], owner?: string, posture?: string, dummy?: boolean, cloaked?: boolean,
 *   ftl_to?: number[] | null, ships?: StarShip[]}} StarGroup */
/** A contact's counter as last seen. @typedef {{group: string, owner?: string, posture?: string, ships?: string[]}} StarCounter */
/** @typedef {{hex: number[], turn?: number, counters?: StarCounter[]}} StarSighting */
/** @typedef {{title?: string, turn?: number, economic_turn?: number, phase?: string, over?: boolean,
 *   map?: {side?: number, worlds?: StarWorld[], routes?: number[][][]},
 *   players?: {id: string, name?: string, orders_sealed?: boolean, ready?: boolean}[],
 *   groups?: StarGroup[], sightings?: StarSighting[],
 *   economy?: {cash?: number, maintenance?: unknown, keels?: unknown[]}}} StarView */
/** Something selectable on the star map: a world, an own group, or a sighted counter (id "seen:<group>").
 * @typedef {(StarWorld & {kind: "world"}) | (StarGroup & {kind: "group"})
 *   | (StarCounter & {id: string, kind: "sighting", hex: number[], as_of?: number})} StarItem */

const SQ3 = Math.sqrt(3);

/** @param {number[]} h @returns {XY} */
function center(h) { return [1.5 * h[0], SQ3 * (h[1] + h[0] / 2)]; }

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

const hkey = (/** @type {number[]} */ h) => `${h[0]},${h[1]}`;
const isHex = (/** @type {unknown} */ h) => Array.isArray(h) && h.length >= 2 && typeof h[0] === "number" && typeof h[1] === "number";

// Every selectable thing on the star map, by id: worlds ("q,r"), own groups, sighted counters.
/** @param {GameView | StarView | null | undefined} state @returns {StarItem[]} */
export function starmapItems(state) {
  const view = /** @type {StarView} */ (state);
  const map = (view && view.map) || {};
  /** @type {StarItem[]} */
  const out = [];
  for (const w of map.worlds || []) if (isHex(w.hex)) out.push({ ...w, kind: "world" });
  for (const g of (view && view.groups) || []) if (isHex(g.hex)) out.push({ ...g, kind: "group" });
  for (const s of (view && view.sightings) || []) {
    for (const c of s.counters || []) {
      out.push({ ...c, id: `seen:${c.group}`, kind: "sighting", hex: s.hex, as_of: s.turn });
    }
  }
  return out;
}

/** @param {Element} board */
function infoBox(board) {
  let box = document.getElementById("starmap-info");
  const wrap = /** @type {Element | null} */ (board.parentNode);
  if (!box && wrap && wrap.parentNode) {
    box = el("div", { id: "starmap-info", class: "starmap-info" });
    wrap.after(box);
  }
  return box;
}

/** @param {[string, unknown][]} rows */
function dl(rows) {
  return el("dl", { class: "facts" }, ...rows.filter(([, v]) => v != null && v !== "")
    .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

/** @param {StarItem | null} item @param {StarView} view @param {(id: string) => string} playerName */
function details(item, view, playerName) {
  if (!item) return [el("p", { class: "muted" }, "Tap a world or a task group on the star map for its details.")];
  if (item.kind === "world") {
    return [el("h4", {}, `World ${item.id}`), dl([
      ["Owner", item.owner ? playerName(item.owner) : "neutral / unknown"], ["Charted route", item.route ? "yes" : null],
      ["Income", item.income], ["IDP", item.idp != null ? `${item.idp} / ${item.idp_full}` : null],
      ["Capital", item.capital ? "yes" : null], ["Interdicted", item.interdicted ? "yes" : null],
      ["Route closed", item.closed ? "yes" : null]])];
  }
  if (item.kind === "group") {
    const ships = (item.ships || []).map((s) => el("li", { dataset: { ship: s.id } },
      `${s.name || s.id} (${s.size_class || s.design}) hull ${s.hull - (s.hull_lost || 0)}/${s.hull}` +
      `${(s.systems || []).some((x) => x.damaged) ? " · damaged systems" : ""}`));
    return [el("h4", {}, `Task group ${item.id}`), dl([
      ["Owner", playerName(item.owner)], ["At", hkey(item.hex)], ["Posture", humanize(item.posture)],
      ["Dummy", item.dummy ? "yes" : null], ["Cloaked", item.cloaked ? "yes" : null],
      ["In FTL to", item.ftl_to ? hkey(item.ftl_to) : null]]),
    ships.length ? el("ul", { class: "ships" }, ...ships) : el("p", { class: "muted" }, "No ships.")];
  }
  return [el("h4", {}, `Contact ${item.group}`), dl([
    ["Owner", playerName(item.owner)], ["Last seen at", hkey(item.hex)], ["As of turn", item.as_of],
    ["Posture", item.posture ? humanize(item.posture) : "unknown"],
    ["Ships", item.ships ? item.ships.join(", ") : "unknown"]])];
}

/** @param {SVGSVGElement} root @param {GameView} state @param {MapCtx} ctx */
export function renderStarmap(root, state, ctx) {
  const view = /** @type {StarView} */ (state);
  while (root.firstChild) root.removeChild(root.firstChild);
  delete root.dataset.full;
  root.setAttribute("data-ruleset", "ftcampaign");
  root.setAttribute("aria-label", "Star map");
  const map = view.map || {};
  const radius = Math.max(1, (map.side || 4) - 1);
  const players = (view.players || []).map((p) => p.id);
  const names = Object.fromEntries((view.players || []).map((p) => [p.id, p.name || p.id]));
  const playerName = (/** @type {string} */ id) => names[id] || id || "?";
  const color = (/** @type {string | null | undefined} */ id) => (id ? sideColor(id, players) : "#6e7681");
  const ext = 1.5 * radius + 1.5;
  const exty = SQ3 * (radius + 0.5) + 0.5;
  root.setAttribute("viewBox", `${-ext} ${-exty} ${2 * ext} ${2 * exty}`);
  const select = (/** @type {string} */ id) => (/** @type {MouseEvent} */ e) => { e.stopPropagation(); ctx.onSelect(id); };

  // orders destinations of the selected own group (the single-order submit_orders options)
  /** @type {Map<string, import("../types/salvo").Command>} hex -> the order that sends the group there */
  const targets = new Map();
  for (const o of ctx.options || []) {
    const order = o.type === "ftcampaign.submit_orders" && o.orders && o.orders.length === 1 ? o.orders[0] : null;
    if (order && order.group === ctx.selected && order.posture === "stand_off" && isHex(order.to)) {
      if (!targets.has(hkey(order.to))) targets.set(hkey(order.to), o);
    }
  }

  const grid = svg("g", { class: "hexgrid" });
  for (let q = -radius; q <= radius; q++) {
    for (let r = Math.max(-radius, -q - radius); r <= Math.min(radius, -q + radius); r++) {
      const [cx, cy] = center([q, r]);
      const cmd = targets.get(`${q},${r}`);
      grid.append(svg("polygon", {
        points: corners(cx, cy, 0.98), class: `hex${cmd ? " move-target" : ""}`, dataset: { q, r },
        onclick: cmd ? (/** @type {MouseEvent} */ e) => { e.stopPropagation(); ctx.onCommand(cmd); } : null,
      }, svg("title", {}, `hex ${q},${r}${cmd && ctx.label ? " — " + ctx.label(cmd) : ""}`)));
    }
  }
  root.append(grid);

  const routes = svg("g", { class: "routes" });
  for (const [a, b] of map.routes || []) {
    if (!isHex(a) || !isHex(b)) continue;
    const [x1, y1] = center(a), [x2, y2] = center(b);
    routes.append(svg("line", { class: "route", x1, y1, x2, y2, stroke: "#d29922", "stroke-width": 0.12,
      "stroke-dasharray": "0.35 0.2" }));
  }
  root.append(routes);

  const worlds = svg("g", { class: "worlds" });
  for (const w of map.worlds || []) {
    if (!isHex(w.hex)) continue;
    const [cx, cy] = center(w.hex);
    worlds.append(svg("g", {
      class: `world${w.id === ctx.selected ? " selected" : ""}${w.capital ? " capital" : ""}`, role: "button",
      tabindex: 0, dataset: { id: w.id, owner: w.owner || "", q: w.hex[0], r: w.hex[1] },
      transform: `translate(${cx} ${cy})`, onclick: select(w.id),
    }, svg("title", {}, `World ${w.id}: ${w.owner ? playerName(w.owner) : "neutral or unknown"}` +
      `${w.income != null ? `, income ${w.income}` : ""}${w.route ? ", charted route" : ""}`),
    svg("circle", { class: "halo", r: 0.8, fill: "transparent" }),
    svg("circle", { class: "planet", r: w.capital ? 0.42 : 0.32, fill: color(w.owner), stroke: "#fff",
      "stroke-width": w.route ? 0.1 : 0.04 }),
    svg("text", { class: "label small", y: 0.78, style: "font-size:0.34px" },
      w.income != null ? `${w.id} · ${w.income}` : w.id)));
  }
  root.append(worlds);

  // own groups (and, for the umpire, everyone's) and last-seen contacts, fanned out per hex
  /** @type {{id: string, hex: number[], owner?: string, own: boolean, g?: StarGroup, c?: StarCounter, asOf?: number}[]} */
  const pieces = [];
  for (const g of view.groups || []) if (isHex(g.hex)) pieces.push({ id: g.id, hex: g.hex, owner: g.owner, own: true, g });
  for (const s of view.sightings || []) {
    for (const c of s.counters || []) {
      if (isHex(s.hex)) pieces.push({ id: `seen:${c.group}`, hex: s.hex, owner: c.owner, own: false, c, asOf: s.turn });
    }
  }
  /** @type {Map<string, typeof pieces>} */
  const perHex = new Map();
  for (const p of pieces) perHex.set(hkey(p.hex), [...(perHex.get(hkey(p.hex)) || []), p]);
  const layer = svg("g", { class: "groups" });
  for (const p of pieces) {
    let [cx, cy] = center(p.hex);
    const stack = perHex.get(hkey(p.hex));
    const a = (2 * Math.PI * stack.indexOf(p)) / stack.length + Math.PI / 4;
    cx += 0.55 * Math.cos(a);
    cy += 0.55 * Math.sin(a);
    const title = p.own
      ? `Task group ${p.id} (${playerName(p.owner)}), ${(p.g.ships || []).length} ship(s), ${humanize(p.g.posture)}`
      : `${playerName(p.owner)}'s group ${p.c.group}, last seen here as of turn ${p.asOf}`;
    const node = svg("g", {
      class: `ship tg${p.own ? " own" : " sighting"}${p.id === ctx.selected ? " selected" : ""}`, role: "button",
      tabindex: 0, dataset: { id: p.id, owner: p.owner || "", q: p.hex[0], r: p.hex[1], asOf: p.asOf ?? "" },
      transform: `translate(${cx} ${cy}) scale(0.6)`, onclick: select(p.id),
    }, svg("title", {}, title), svg("circle", { class: "halo", r: 0.8 }));
    if (p.own) {
      node.append(svg("path", { class: "hull", d: "M 0 -0.55 L 0.48 0.42 L -0.48 0.42 Z", fill: color(p.owner) }));
    } else {
      node.append(svg("rect", { class: "hull", x: -0.42, y: -0.42, width: 0.84, height: 0.84, fill: color(p.owner),
        "fill-opacity": 0.45, "stroke-dasharray": "0.15 0.1" }),
      svg("text", { class: "label", y: 0.25, style: "font-size:0.7px" }, "?"),
      svg("text", { class: "label small as-of", y: 1.15, style: "font-size:0.55px" }, `as of T${p.asOf}`));
    }
    layer.append(node);
  }
  root.append(layer);

  const box = infoBox(root);
  if (!box) return;
  const selected = starmapItems(view).find((x) => x.id === ctx.selected) || null;
  const sealed = el("ul", { class: "sealed-orders" }, ...(view.players || []).map((p) => el("li", {
    dataset: { player: p.id, sealed: String(!!p.orders_sealed) } },
  el("span", { class: "dot", style: `background:${color(p.id)}` }), ` ${p.name || p.id}: `,
  view.phase === "deployment" ? (p.ready ? "ready" : "spending") : p.orders_sealed ? "orders sealed" : "no orders yet")));
  const eco = view.economy;
  fill(box,
    el("div", { class: "starmap-head" }, el("strong", {}, view.title || "Campaign"),
      ` · week ${view.turn ?? 0}, economic turn ${view.economic_turn ?? 0} · ${humanize(view.phase)}`,
      view.over ? el("span", { class: "badge over" }, "Campaign over") : null),
    sealed,
    eco ? el("p", { class: "economy" }, `Your treasury: ${eco.cash} · maintenance ${eco.maintenance}` +
      `${eco.keels && eco.keels.length ? ` · ${eco.keels.length} keel(s) laid` : ""}`) : null,
    el("div", { class: "starmap-details", id: "starmap-details" }, ...details(selected, view, playerName)));
}
