// Campaign battles fought as linked tactical games: links both ways between the campaign and the battle,
// keeping the caller's token (a campaign token opens its own tactical seat).
import { el } from "./dom.js";
import { pageUrl } from "./links.js";

/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/openapi").components["schemas"]["Battle"]} Battle */
/** @typedef {import("../types/openapi").components["schemas"]["BattleLink"]} BattleLink */

/** The campaign sheet's battles: each with its linked game, if it is being fought in this service.
 * @param {GameView | null | undefined} view (a campaign's: CampaignState's battles) @param {string | null} token */
export function battleList(view, token) {
  const battles = /** @type {Battle[]} */ ((view && view.battles) || []);
  if (!battles.length) return [];
  return [el("h4", {}, "Battles"), el("ul", { class: "ftc-battles" }, ...battles.map((b) => el("li", { dataset: { battle: b.id } },
    el("strong", {}, `Battle ${b.id}`), ` at ${(b.hex || []).join(",")}: `,
    (b.forces || []).map((f) => f.player).join(" vs "), " ",
    b.tactical_game_id
      ? el("a", { class: "battle-link", href: pageUrl(b.tactical_game_id, token), "aria-label": `Open battle ${b.id}, fought as a tactical game` }, "Open the battle")
      : el("span", { class: "muted" }, "result by the umpire"))))];
}

/** For a linked tactical game: a link back to its campaign (null when the game is not linked).
 * @param {import("./api.js").Api} api @param {string} gameId @param {string | null} token */
export async function campaignLink(api, gameId, token) {
  /** @type {BattleLink} */
  let link;
  try { link = await api.request("GET", `/v1/games/${encodeURIComponent(gameId)}/link`); } catch { return null; }
  if (!link || !link.campaign) return null;
  return el("a", { id: "to-campaign", class: "battle-link", href: pageUrl(link.campaign, token),
    "aria-label": `Back to the campaign (battle ${link.battle})` }, `← Campaign (battle ${link.battle})`);
}

/** The Orders pane's battles (issue 38): each named with where and who; a linked one opens in a tap (the
 * reader's token opens its side there); the umpire starts an unlinked one as a tactical game in a tap
 * (POST /battles/{id}/tactical, FTC-ARR-8), or records its result with the options below.
 * @param {GameView | null | undefined} view a campaign's (CampaignState's battles) @param {string | null} token
 * @param {{umpire: boolean, disabled: boolean, onStart: (battle: string) => void}} how */
export function battleOrders(view, token, { umpire, disabled, onStart }) {
  const battles = /** @type {Battle[]} */ ((view && view.battles) || []);
  if (!battles.length) return null;
  return el("section", { id: "battles", class: "battles", "aria-label": "Battles" }, el("h4", {}, "Battles"),
    el("ul", { class: "ftc-battles" }, ...battles.map((b) => el("li", { dataset: { battle: b.id } },
      el("strong", {}, `Battle ${b.id}`), ` at ${(b.hex || []).join(",")}: ${(b.forces || []).map((f) => f.player).join(" vs ")} `,
      b.tactical_game_id
        ? el("a", { class: "button small battle-link", href: pageUrl(b.tactical_game_id, token), dataset: { game: b.tactical_game_id } }, `Open battle ${b.id}`)
        : umpire
          ? el("button", { type: "button", class: "cmd start-battle", disabled, dataset: { battle: b.id }, onclick: () => onStart(b.id) },
            `Fight battle ${b.id} on the table (a linked GSC2 game; its result comes back by itself)`)
          : el("span", { class: "muted" }, "the umpire decides how it is fought")))));
}
