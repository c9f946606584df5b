// Lobby: rulesets and sample scenarios, create a game, share seat links, join by link or token.
import { el, clear, humanize } from "./dom.js";
import { importBlock } from "./disputes.js";
import { Api } from "./api.js";
import { pageUrl, readLink } from "./links.js";
import { myGamesCard } from "./mygames.js";

/** @typedef {import("../types/salvo").GameCreated} GameCreated */
/** @typedef {import("../types/openapi").components["schemas"]["RulesetInfo"]} RulesetInfo */
/** A game this browser created (localStorage), with its links. @typedef {GameCreated & {scenario: string}} RecentGame */
/** What the seat links are made from. @typedef {Pick<GameCreated, "game_id" | "seats" | "umpire_token">} Seats */

const RECENT = "salvo.recentGames";

/** @returns {RecentGame[]} */
function recent() {
  try { return JSON.parse(localStorage.getItem(RECENT) || "[]"); } catch { return []; }
}

/** @param {RecentGame} entry */
function remember(entry) {
  const list = [entry, ...recent().filter((g) => g.game_id !== entry.game_id)].slice(0, 8);
  try { localStorage.setItem(RECENT, JSON.stringify(list)); } catch { /* private mode */ }
}

/** @param {string} text */
function copyButton(text) {
  return el("button", { type: "button", class: "small", onclick: async (/** @type {MouseEvent} */ e) => {
    const button = /** @type {HTMLElement} */ (e.target);
    try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; } catch {
      button.textContent = "Select & copy";
    }
  } }, "Copy");
}

/** @param {string} label @param {string} href @param {string} role */
function linkRow(label, href, role) {
  return el("li", { class: "link-row", dataset: { role } },
    el("strong", {}, label),
    el("input", { type: "text", readonly: true, value: href, class: "link", "aria-label": `${label} link`, onfocus: (/** @type {FocusEvent} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }),
    copyButton(href),
    el("a", { href, class: "button small" }, "Open"));
}

// "Play against the computer": the seat's holder hands the seat to the rules-aware bot (POST /bots).
/** @param {string} gameId @param {string} seat @param {string} token the seat's */
function botButton(gameId, seat, token) {
  const btn = el("button", { type: "button", class: "small bot", dataset: { seat }, "aria-label": `Computer plays seat ${seat}`,
    onclick: async () => {
      btn.disabled = true;
      try {
        await new Api(token).request("POST", `/v1/games/${encodeURIComponent(gameId)}/bots`, { seat, bot: "rules" });
        btn.textContent = "Computer plays";
      } catch (err) { btn.textContent = `No bot: ${err.message}`; btn.disabled = false; }
    } }, "Computer");
  return btn;
}

// Seats "ship/role" (a Starfinder crew) grouped by what comes before the slash: one person may play them all.
/** @param {Record<string, string>} seats @returns {[string, string[]][]} group -> its tokens, groups of 2+ only */
export function seatGroups(seats) {
  /** @type {Map<string, string[]>} */
  const groups = new Map();
  for (const [seat, token] of Object.entries(seats)) {
    if (!seat.includes("/")) continue;
    const g = seat.split("/")[0];
    groups.set(g, [...(groups.get(g) || []), token]);
  }
  return [...groups].filter(([, tokens]) => tokens.length > 1);
}

/** @param {Seats} created */
export function gameLinks(created) {
  const id = created.game_id;
  const seats = created.seats || {};
  return el("ul", { class: "links" },
    ...Object.entries(seats).map(([seat, token]) => {
      const row = linkRow(`Seat ${seat}`, pageUrl(id, token), `seat:${seat}`);
      row.append(botButton(id, seat, token));
      return row;
    }),
    // one link holding several seats: the page switches between them (to whichever must act)
    ...seatGroups(seats).map(([group, tokens]) => linkRow(`Every ${group} seat (one player)`, pageUrl(id, tokens), `group:${group}`)),
    created.umpire_token ? linkRow("Umpire", pageUrl(id, created.umpire_token), "umpire") : null,
    linkRow("Spectators", pageUrl(id, null), "spectator"));
}

/** A pasted link or id, and a token typed apart: the game and the token to open it with.
 * @param {string | null | undefined} text @param {string | null | undefined} token */
export function parseJoin(text, token) {
  const s = String(text || "").trim();
  let game = s, tok = String(token || "").trim() || null;
  /** @type {string[]} */
  let tokens = tok ? [tok] : [];
  try {
    const link = readLink(s); // a pasted page link: its tokens in the fragment (or an old link's query)
    if (link.game) {
      game = link.game;
      if (!tok) { tok = link.token; tokens = link.tokens; }
    }
  } catch { /* a bare id */ }
  return { game, token: tok, tokens };
}

/** @param {HTMLElement} root @param {Api} api @param {{onJoin: (game: string, token: string | string[] | null) => void}} how */
export async function renderLobby(root, api, { onJoin }) {
  clear(root);
  const status = el("p", { class: "muted" }, "Loading rulesets…");
  const rulesetSel = el("select", { id: "ruleset", "aria-label": "Ruleset" });
  const scenarioSel = el("select", { id: "scenario", "aria-label": "Scenario" });
  const desc = el("p", { class: "muted scenario-desc" });
  const result = el("div", { id: "created" });
  const createBtn = el("button", { type: "button", id: "create", class: "primary" }, "Create game");
  const create = el("section", { class: "card" }, el("h2", {}, "New game"),
    el("label", {}, "Ruleset ", rulesetSel), el("label", {}, "Scenario ", scenarioSel), desc, createBtn, status, result);

  const joinInput = el("input", { type: "text", id: "join-link", placeholder: "Paste a game link or id", "aria-label": "Game link or id" });
  const tokenInput = el("input", { type: "text", id: "join-token", placeholder: "Seat or umpire token (blank = spectate)", "aria-label": "Seat or umpire token" });
  const joinBtn = el("button", { type: "button", id: "join", class: "primary" }, "Join");
  const join = el("section", { class: "card" }, el("h2", {}, "Join a game"), joinInput, tokenInput, joinBtn,
    el("p", { class: "muted" }, "A seat token plays that seat; the umpire token sees everything; no token watches as a spectator."));
  joinBtn.addEventListener("click", () => {
    const { game, tokens } = parseJoin(joinInput.value, tokenInput.value);
    if (game) onJoin(game, tokens);
  });

  const rec = recent();
  const recentBox = rec.length ? el("section", { class: "card" }, el("h2", {}, "Your recent games"),
    ...rec.map((g) => el("details", {}, el("summary", {}, `${g.game_id} · ${g.ruleset} ${g.scenario}`), gameLinks(g)))) : null;

  root.append(el("div", { class: "lobby" }, create, join, myGamesCard(), importBlock(api, {}), recentBox));

  /** @type {RulesetInfo[]} */
  let rulesets = [];
  try {
    rulesets = (await api.rulesets()).rulesets || [];
    status.textContent = "Pick a ruleset and one of its sample scenarios."; // a line kept: the card keeps its height
  } catch (err) {
    status.textContent = `Could not load rulesets: ${err.message}`;
    status.className = "error";
    return;
  }
  for (const r of rulesets) rulesetSel.append(el("option", { value: r.name }, `${r.title || r.name} (${r.name} ${r.version})`));
  const fillScenarios = async () => {
    const r = rulesets.find((x) => x.name === rulesetSel.value);
    clear(scenarioSel);
    for (const s of (r && r.scenarios) || []) scenarioSel.append(el("option", { value: s }, humanize(s)));
    const pick = ["duel"].find((s) => r && r.scenarios.includes(s));
    if (pick) scenarioSel.value = pick;
    await describe();
  };
  const describe = async () => {
    desc.textContent = "";
    if (!scenarioSel.value) return;
    try {
      const s = await api.scenario(rulesetSel.value, scenarioSel.value);
      desc.textContent = String((s.scenario && s.scenario.description) || ""); // Setup.description
    } catch { /* optional */ }
  };
  rulesetSel.addEventListener("change", fillScenarios);
  scenarioSel.addEventListener("change", describe);
  const prefer = rulesets.find((r) => r.name === "gsc2");
  if (prefer) rulesetSel.value = "gsc2";
  await fillScenarios();

  createBtn.addEventListener("click", async () => {
    createBtn.disabled = true;
    clear(result);
    try {
      const created = await api.createGame(rulesetSel.value, scenarioSel.value);
      const entry = { ...created, scenario: scenarioSel.value };
      remember(entry);
      result.append(el("h3", {}, `Game ${created.game_id} created`),
        el("p", { class: "muted" }, "Share one link per seat. Tokens are shown only once; the umpire link can see everything."),
        gameLinks(entry),
        // a 64-character hash: it wraps (a phone page must not widen to fit it)
        el("p", { class: "muted small commitment" }, "Dice commitment (turn 1): ", el("code", {}, created.dice_commitment)));
    } catch (err) {
      result.append(el("p", { class: "error" }, `${err.title}: ${err.message}`));
    } finally {
      createBtn.disabled = false;
    }
  });
}
