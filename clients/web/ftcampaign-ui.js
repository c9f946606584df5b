// What a campaign player's orders pane adds to the drawn page: the treasury, confirmations for orders that
// cannot be taken back, and the linked battles. (The orders' words come from the server's options.)
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

/** @param {GameView | CampaignView | null | undefined} view */
export function isCampaign(view) {
  const v = /** @type {CampaignView} */ (view);
  return !!(v && v.map && Array.isArray(v.map.worlds) && Array.isArray(v.players));
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
