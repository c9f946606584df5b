// The Full Thrust campaign in the order buttons and the side panel: readable labels and groups for
// "ftcampaign.*" commands, and a campaign sheet (players, the viewer's economy and task groups).
import { el, humanize } from "./dom.js";

/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/openapi").components["schemas"]["StrategicOrder"]} StrategicOrder */
/** The parts of a campaign player's or umpire's view this sheet reads (the views are not in the OpenAPI
 * document; the state's shapes are CampaignState's).
 * @typedef {{title?: string, turn?: number, phase?: string,
 *   players?: {id: string, name?: string, species?: string, orders_sealed?: boolean, ready?: boolean}[],
 *   map?: {worlds?: {id: string, hex?: number[]}[]}, economy?: Record<string, unknown>,
 *   groups?: {id: string, hex?: unknown, owner?: string, cloaked?: boolean, ships?: {id: string, name?: string, design?: string}[]}[],
 *   rulings?: (string | {text?: string})[]}} CampaignView */

/** @param {string} group @param {string[]} types @returns {Record<string, string>} */
const G = (group, types) => Object.fromEntries(types.map((t) => [`ftcampaign.${t}`, group]));
/** @type {Record<string, string>} command type -> its button group */
export const FTCAMPAIGN_GROUPS = {
  ...G("Set-up", ["generate_map", "claim_homeworld", "expand", "ready", "approve_technology", "approve_standard_navy"]),
  ...G("Orders", ["submit_orders", "split_group", "merge_groups", "set_cloak", "scout"]),
  ...G("Economy", ["buy_ship", "buy_module", "buy_spares", "buy_defences", "place_dummy", "set_maintenance", "lay_keel",
    "repair", "inspect_jury_rig", "refit", "swap_module", "rebuild_capture", "sell_capture", "rebuild_defences",
    "repair_repulse", "close_route"]),
  ...G("Contacts", ["engage", "choose_posture", "recon", "assault_defences", "hold_off", "declare_formation"]),
  ...G("Umpire", ["record_ruling", "close_turn", "record_battle", "resolve_disengagement", "end_campaign"]),
};

/** @param {GameView | CampaignView | null | undefined} view */
export function isCampaign(view) {
  const v = /** @type {CampaignView} */ (view);
  return !!(v && v.map && Array.isArray(v.map.worlds) && Array.isArray(v.players));
}

/** @param {CampaignView | null | undefined} view @param {string} id */
function playerName(view, id) {
  const p = ((view && view.players) || []).find((x) => x.id === id);
  return (p && p.name) || id;
}

/** @param {CampaignView | null | undefined} view @param {unknown} hex */
function place(view, hex) {
  if (!Array.isArray(hex)) return String(hex ?? "?");
  const w = ((view && view.map && view.map.worlds) || []).find((x) => x.hex && x.hex[0] === hex[0] && x.hex[1] === hex[1]);
  return w ? `${w.id} (${hex[0]},${hex[1]})` : `hex ${hex[0]},${hex[1]}`;
}

const list = (/** @type {string[] | null | undefined} */ xs) => (xs || []).map(humanize).join(", ");

/** @param {CampaignView | null | undefined} view @param {StrategicOrder} o */
function describeOrder(view, o) {
  const route = o.route ? ` by route ${humanize(o.route)}` : "";
  return `${o.group} → ${place(view, o.to)}${o.posture ? ` (${humanize(o.posture)})` : ""}${route}`;
}

/** @param {Command} cmd @param {GameView | CampaignView | null | undefined} state @returns {string | null} */
export function labelFtcampaign(cmd, state) {
  const view = /** @type {CampaignView} */ (state);
  const P = (/** @type {string} */ id) => playerName(view, id);
  switch (cmd.type) {
    case "ftcampaign.generate_map": return "Generate the star map";
    case "ftcampaign.claim_homeworld": return "Claim a homeworld";
    case "ftcampaign.expand": return `Expand from ${cmd.world}`;
    case "ftcampaign.ready": return "Ready: deployment done";
    case "ftcampaign.approve_technology": return `Approve ${P(cmd.player)}'s ${humanize(cmd.design)} design`;
    case "ftcampaign.approve_standard_navy": return `Approve ${P(cmd.player)}'s standard navy`;
    case "ftcampaign.submit_orders": {
      const orders = cmd.orders || [];
      return orders.length ? `Orders: ${orders.map((o) => describeOrder(view, o)).join("; ")}` : "Submit orders: every group holds";
    }
    case "ftcampaign.split_group": return `Split ${list(cmd.ships)} off ${cmd.group}`;
    case "ftcampaign.merge_groups": return `Merge ${cmd.other} into ${cmd.into}`;
    case "ftcampaign.set_cloak": return `${cmd.on ? "Cloak" : "Uncloak"} ${cmd.group}`;
    case "ftcampaign.scout": return `Scout with ${cmd.group}`;
    case "ftcampaign.buy_ship": return `Buy a ${humanize(cmd.design)} at ${cmd.world}${cmd.group ? ` into ${cmd.group}` : ""}`;
    case "ftcampaign.buy_module": return `Buy a ${humanize(cmd.module)} module at ${cmd.world}`;
    case "ftcampaign.buy_spares": return `Buy spares worth ${cmd.value} at ${cmd.world}`;
    case "ftcampaign.buy_defences": return `Buy ${cmd.points} defence points at ${cmd.world}`;
    case "ftcampaign.place_dummy": return `Place a dummy group at ${cmd.world}`;
    case "ftcampaign.set_maintenance": return `Set maintenance to ${cmd.rate}`;
    case "ftcampaign.lay_keel": return `Lay the keel of a ${humanize(cmd.design)} at ${cmd.world}`;
    case "ftcampaign.repair": {
      const what = [cmd.systems && cmd.systems.length ? list(cmd.systems) : "", cmd.hull ? `${cmd.hull} hull` : "",
        cmd.biomass ? `${cmd.biomass} biomass` : ""].filter(Boolean).join(" + ") || "nothing";
      const src = cmd.source && cmd.source !== "new" ? ` from ${cmd.source === "identical" && cmd.donor ? cmd.donor : cmd.source}` : "";
      return `Repair ${cmd.ship}: ${what}${src}${cmd.rush ? " (rush)" : ""}`;
    }
    case "ftcampaign.inspect_jury_rig": return `Inspect ${cmd.ship}'s jury rigs`;
    case "ftcampaign.refit": return `Refit ${cmd.ship}: ${humanize(cmd.remove)} → ${humanize((cmd.install && (cmd.install.kind || cmd.install.id)) || "?")}`;
    case "ftcampaign.swap_module": return `Swap ${cmd.ship}'s module for ${humanize(cmd.module)}`;
    case "ftcampaign.rebuild_capture": return `Rebuild the captured ${cmd.ship}`;
    case "ftcampaign.sell_capture": return `Sell the captured ${cmd.ship}`;
    case "ftcampaign.rebuild_defences": return `Rebuild ${cmd.thirds || 1} third(s) of ${cmd.world}'s defences`;
    case "ftcampaign.repair_repulse": return `Repair ${cmd.group}'s repulse`;
    case "ftcampaign.close_route": return `${cmd.closed === false ? "Reopen" : "Close"} the route at ${cmd.world}`;
    case "ftcampaign.engage": return cmd.stay ? `Stay and engage (${cmd.step})` : `Withdraw to ${place(view, cmd.to)} (${cmd.step})`;
    case "ftcampaign.choose_posture": return `Posture: ${humanize(cmd.posture)} (${cmd.step})`;
    case "ftcampaign.recon": return `After recon: ${humanize(cmd.choice)} (${cmd.step})`;
    case "ftcampaign.assault_defences": return `Assault the defences with ${(cmd.ships || []).length} ship(s) (${cmd.step})`;
    case "ftcampaign.hold_off": return `Hold off from the defences (${cmd.step})`;
    case "ftcampaign.declare_formation": return `Formation for ${cmd.battle}: ${humanize(cmd.formation)}, speed ${cmd.speed}`;
    case "ftcampaign.record_ruling": return `Record a ruling: “${cmd.text}”`;
    case "ftcampaign.close_turn": return "Close the turn";
    case "ftcampaign.end_campaign": return `End the campaign${cmd.reason ? ` (${cmd.reason})` : ""}`;
    case "ftcampaign.record_battle": {
      /** @type {string[]} */
      const bits = [];
      const ships = cmd.ships || [];
      const lost = ships.filter((s) => s.destroyed).map((s) => s.ship);
      const hurt = ships.filter((s) => !s.destroyed);
      if (lost.length) bits.push(`${lost.join(", ")} destroyed`);
      if (hurt.length) bits.push(`${hurt.map((s) => s.ship).join(", ")} damaged`);
      if ((cmd.captured || []).length) bits.push(`${cmd.captured.join(", ")} captured`);
      if ((cmd.left || []).length) bits.push(`${cmd.left.map((d) => d.group).join(", ")} left`);
      if (cmd.tactical_game_id) bits.push(`game ${cmd.tactical_game_id}`);
      return `Record ${cmd.battle}: ${cmd.victor ? `${P(cmd.victor)} wins` : "no victor"}${bits.length ? ` — ${bits.join("; ")}` : ""}`;
    }
    case "ftcampaign.resolve_disengagement":
      return `${cmd.group} disengages from ${cmd.battle} to ${place(view, cmd.to)} (${cmd.distance_inches}" apart, range ${cmd.weapons_range_inches}", ${cmd.separation})`;
    default: return null;
  }
}

/** @param {Record<string, unknown> | null | undefined} obj */
function scalarFacts(obj) {
  const rows = Object.entries(obj || {}).filter(([, v]) => v == null || typeof v !== "object");
  return el("dl", { class: "facts" }, ...rows.flatMap(([k, v]) => [el("dt", {}, humanize(k)), el("dd", {}, String(v ?? "—"))]));
}

// The panel for a campaign: players and their sealed orders, then (for a player) its economy and task groups.
/** @param {GameView | CampaignView} state */
export function campaignSheet(state) {
  const view = /** @type {CampaignView} */ (state);
  /** @type {HTMLElement[]} */
  const out = [el("h3", {}, view.title || "Campaign",
    el("small", {}, ` turn ${view.turn ?? "?"} · ${humanize(view.phase || "")}`))];
  out.push(el("h4", {}, "Players"));
  out.push(el("table", { class: "sheet ftc-players" },
    el("tr", {}, ...["Player", "Species", "Orders", "Ready"].map((h) => el("th", {}, h))),
    ...(view.players || []).map((p) => el("tr", { dataset: { player: p.id } }, el("td", {}, p.name || p.id),
      el("td", {}, humanize(p.species || "")), el("td", { class: p.orders_sealed ? "ok" : "muted" }, p.orders_sealed ? "sealed" : "—"),
      el("td", { class: p.ready ? "ok" : "muted" }, p.ready ? "yes" : "—")))));
  if (view.economy) {
    out.push(el("h4", {}, "Economy"));
    out.push(scalarFacts(view.economy));
  }
  const groups = view.groups || [];
  if (groups.length) {
    out.push(el("h4", {}, "Task groups"));
    out.push(el("ul", { class: "ftc-groups" }, ...groups.map((g) => el("li", { dataset: { group: g.id } },
      el("strong", {}, g.id), ` at ${place(view, g.hex)}${g.owner ? ` · ${playerName(view, g.owner)}` : ""}${g.cloaked ? " · cloaked" : ""}: `,
      (g.ships || []).map((s) => `${s.name || s.id}${s.design ? ` (${humanize(s.design)})` : ""}`).join(", ") || "no ships"))));
  }
  if ((view.rulings || []).length) {
    out.push(el("details", {}, el("summary", {}, `Rulings (${view.rulings.length})`),
      el("ul", {}, ...view.rulings.map((r) => el("li", {}, typeof r === "string" ? r : r.text || JSON.stringify(r))))));
  }
  return out;
}

// ---- what a player's Orders pane adds in a campaign (issue 38) ---------------------------------------
const pts = (/** @type {unknown} */ n) => `${Number(n).toLocaleString("en")} pts`;

/** The treasury above a player's orders (every purchase's label names its price).
 * @param {GameView | CampaignView | null | undefined} state @returns {HTMLElement | null} */
export function treasuryLine(state) {
  const view = /** @type {CampaignView} */ (state);
  const e = /** @type {{cash?: number, ship_spending?: number, maintenance?: string} | undefined} */ (view && view.economy);
  if (!isCampaign(view) || !e || typeof e.cash !== "number") return null;
  return el("p", { id: "treasury", class: "treasury" }, el("strong", {}, `Treasury: ${pts(e.cash)}`),
    view.phase === "deployment" && e.ship_spending != null ? ` · spent on ships at set-up: ${pts(e.ship_spending)}` : "",
    e.maintenance ? ` · maintenance ${e.maintenance}` : "");
}

/** Why a one-tap campaign order needs a second tap (it cannot be taken back), or null.
 * @param {Command} cmd @param {GameView | CampaignView | null | undefined} state @param {string | null} seat */
export function confirmFirst(cmd, state, seat) {
  const view = /** @type {CampaignView} */ (state);
  if (cmd.type === "ftcampaign.end_campaign") {
    return "This ends the campaign for every player at once, with the standings as they are now. It cannot be undone.";
  }
  if (cmd.type === "ftcampaign.ready") {
    const ships = (view.groups || []).filter((g) => g.owner === seat).reduce((n, g) => n + (g.ships || []).length, 0);
    const cash = view.economy && typeof view.economy.cash === "number" ? ` and ${pts(view.economy.cash)} unspent` : "";
    return `This ends your set-up spending for good${ships ? "" : ": you have bought no ships"}${cash}.`;
  }
  return null;
}

/** A campaign's linked battles by their game ids, to name them in the status lines.
 * @param {GameView | null | undefined} state @returns {Map<string, string>} game id -> battle id */
export function linkedBattles(state) {
  const battles = /** @type {{id: string, tactical_game_id?: string | null}[]} */ ((state && state.battles) || []);
  return new Map(battles.filter((b) => b.tactical_game_id).map((b) => [b.tactical_game_id, b.id]));
}
