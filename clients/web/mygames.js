// "My games" in the lobby (issue 40): a personal key, kept in this browser, lists every game its player holds
// a seat in, on any device: whose move it is, whether it is yours and why, what is new. The key is made once
// (shown here once: paste it on your other devices) or pasted from another device; a seat joins the list when
// its link or token is claimed. The key also opens the seat it claimed, so the game's link carries it.
import { el, fill } from "./dom.js";
import { Api } from "./api.js";
import { pageUrl } from "./links.js";
import { addPasskey, passkeysAvailable, signInWithPasskey } from "./passkeys.js";
import { notificationsAllowed, pushAvailable, pushToThisDevice, setTurnAlerts, turnAlertsWanted } from "./notify.js";

/** @typedef {import("../types/openapi").components["schemas"]["MyGame"]} MyGame */

const KEY = "salvo.playerKey";

function storedKey() {
  try { return localStorage.getItem(KEY) || ""; } catch { return ""; }
}

/** @param {string} key empty: forget it */
function storeKey(key) {
  try { if (key) localStorage.setItem(KEY, key); else localStorage.removeItem(KEY); } catch { /* private mode */ }
}

/** A seat link (…#token=…) or a bare token. @param {string} text */
function tokenOf(text) {
  const value = text.trim();
  const hash = value.indexOf("#");
  if (hash >= 0) return new URLSearchParams(value.slice(hash + 1)).get("token") || "";
  return value;
}

/** @param {MyGame} g @param {string} key */
function gameRow(g, key) {
  const who = g.role === "umpire" ? "umpire" : `seat ${g.seat}`;
  const turn = g.over ? `over${g.result ? `: ${g.result}` : ""}` : `turn ${g.turn}, ${g.phase_label}`;
  const move = g.over ? "" : g.must_act ? `Your move: ${g.why}` : `Waiting for ${g.whose_move.join(", ") || "nobody"}`;
  return el("li", { class: g.must_act ? "my-game mine" : "my-game", dataset: { game: g.game_id, mustAct: String(g.must_act) } },
    el("a", { href: pageUrl(g.game_id, [key]) }, `${g.scenario || g.ruleset} · ${g.game_id}`),
    ` · ${g.ruleset}, ${who}, ${turn}. `,
    el("strong", {}, move),
    g.changed ? el("span", { class: "muted small" }, ` (${g.unseen_events} new)`) : null);
}

/** "Alert me when it is my turn" on this device: a system notification and a sound (notify.js). */
function turnAlertsBox() {
  const box = el("p", { class: "turn-alerts" });
  const show = (/** @type {string} */ note = "") => {
    const on = turnAlertsWanted();
    fill(box,
      el("button", { type: "button", class: "small", id: "turn-alerts", "aria-pressed": String(on), onclick: async () => {
        const permission = await setTurnAlerts(!on);
        show(!on && permission === "denied" ? "This browser refuses notifications for this site: only the sound will play." : "");
      } }, on ? "Turn alerts off" : "Alert me when it is my turn"),
      el("span", { class: "muted small", id: "turn-alerts-state" },
        on ? ` On: a notification${notificationsAllowed() ? "" : " (not allowed by the browser)"} and a sound when an open game becomes your move.`
          : " A notification and a sound when an open game becomes your move."),
      note ? el("span", { class: "error" }, ` ${note}`) : null);
  };
  show();
  return box;
}

/** The lobby's "My games" card. @returns {HTMLElement} */
export function myGamesCard() {
  const body = el("div", { id: "my-games-body" });
  const card = el("section", { class: "card", id: "my-games" }, el("h2", {}, "My games"), body, turnAlertsBox());

  const showSetup = (/** @type {string} */ note = "") => {
    const paste = el("input", { type: "text", id: "player-key", placeholder: "Paste your personal key (pk_…)", "aria-label": "Personal key" });
    fill(body,
      el("p", { class: "muted" }, "A personal key keeps your seats on every device. Make one here, or paste the one from your other device."),
      el("button", { type: "button", id: "make-key", class: "primary", onclick: async () => {
        try {
          const made = await new Api().request("POST", "/v1/players", { label: navigator.userAgent.slice(0, 60) || "device" });
          storeKey(made.key);
          await showGames(`Your personal key (shown once; paste it on your other devices): ${made.key}`);
        } catch (err) { showSetup(String(err.message)); }
      } }, "Make my personal key"),
      paste,
      el("button", { type: "button", id: "use-key", onclick: async () => {
        storeKey(paste.value.trim());
        await showGames();
      } }, "Use this key"),
      passkeysAvailable() ? el("button", { type: "button", id: "sign-in-passkey", onclick: async () => {
        try {
          const session = await signInWithPasskey();
          storeKey(session.key);
          await showGames("Signed in with your passkey.");
        } catch (err) { showSetup(`Passkey sign-in failed: ${err.message}`); }
      } }, "Sign in with a passkey") : null,
      note ? el("p", { class: "error" }, note) : null);
  };

  const showGames = async (/** @type {string} */ note = "") => {
    const key = storedKey();
    if (!key) { showSetup(note); return; }
    const api = new Api(key);
    let games;
    try {
      games = /** @type {MyGame[]} */ ((await api.request("GET", "/v1/players/me/games")).games);
    } catch (err) {
      if (err.status === 401) storeKey("");
      showSetup(`${err.message}`);
      return;
    }
    const claim = el("input", { type: "text", id: "claim-token", placeholder: "A seat's link or token", "aria-label": "Seat link or token to keep" });
    fill(body,
      note ? el("p", { class: "note", id: "my-key-note" }, note) : null,
      games.length ? el("ul", { class: "my-games" }, ...games.map((g) => gameRow(g, key)))
        : el("p", { class: "muted" }, "No seats kept yet: add one with its link or token."),
      claim,
      el("button", { type: "button", id: "claim", onclick: async () => {
        try {
          await api.request("POST", "/v1/players/me/seats", { token: tokenOf(claim.value) });
          await showGames();
        } catch (err) { await showGames(`Could not keep that seat: ${err.message}`); }
      } }, "Keep this seat"),
      pushAvailable() ? el("button", { type: "button", class: "small", id: "push-here", onclick: async () => {
        try {
          await pushToThisDevice(api);
          await showGames("This device will be told of your turns by Web Push, even with Salvo closed.");
        } catch (err) { await showGames(`Could not set up push on this device: ${err.message}`); }
      } }, "Push to this device") : null,
      passkeysAvailable() ? el("button", { type: "button", class: "small", id: "add-passkey", onclick: async () => {
        try {
          const made = await addPasskey(key);
          await showGames(`Passkey added (${made.label}): sign in with it on this device without the key.`);
        } catch (err) { await showGames(`Could not add a passkey: ${err.message}`); }
      } }, "Add a passkey") : null,
      el("button", { type: "button", class: "small", id: "forget-key", onclick: () => { storeKey(""); showSetup(); } },
        "Forget the key on this device"));
  };

  showGames();
  return card;
}
