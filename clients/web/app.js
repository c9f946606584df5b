// Entry point: ?game=<id>#token=<token> opens the battle (no token = spectator; #token=A&token=B: one
// person's several seats, switched in the page); otherwise the lobby.
// The token lives in the fragment (links.js); an old ?token= link is rewritten at once, so the token
// is not kept in the history entry's query, sent as a Referer or shown in the address bar's query.
import { Api } from "./api.js";
import { renderLobby } from "./lobby.js";
import { GameView } from "./game.js";
import { pageUrl, readLink } from "./links.js";

const root = document.getElementById("app");
/** @type {GameView | null} */
let current = null;
/** @type {string | null} */
let shown = null; // "game|tokens" on screen: a hash change fires popstate and hashchange both

function route() {
  const { game, tokens, legacy } = readLink(location.href);
  if (legacy) history.replaceState(history.state, "", game ? pageUrl(game, tokens) : location.pathname);
  // the held seats as a set: the page reorders them itself when it switches seats (no reload for that)
  const key = `${game || ""}|${[...tokens].sort().join(",")}`;
  if (key === shown) return;
  shown = key;
  if (current) { current.stop(); current = null; }
  if (game) {
    document.title = `Salvo · ${game}`;
    current = new GameView(root, new Api(tokens[0] || null), game, tokens[0] || null, { onLeave: () => go({}), tokens });
    window.salvo = current; // handy in the console (and for browser tests: salvo.stream.drop())
    current.start();
  } else {
    document.title = "Salvo";
    renderLobby(root, new Api(), { onJoin: (g, t) => go({ game: g, token: t }) });
  }
}

/** @param {{game?: string, token?: string | string[] | null}} where */
function go({ game, token }) {
  history.pushState({}, "", game ? pageUrl(game, token) : location.pathname);
  route();
}

window.addEventListener("popstate", route);
window.addEventListener("hashchange", route); // a pasted link for another seat of the same game
route();
