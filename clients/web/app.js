// Entry point: ?game=<id>&token=<token> opens the battle (no token = spectator); otherwise the lobby.
import { Api } from "./api.js";
import { renderLobby } from "./lobby.js";
import { GameView } from "./game.js";

const root = document.getElementById("app");
let current = null;

function route() {
  if (current) { current.stop(); current = null; }
  const q = new URLSearchParams(location.search);
  const game = q.get("game");
  const token = q.get("token");
  if (game) {
    document.title = `Salvo · ${game}`;
    current = new GameView(root, new Api(token), game, token, { onLeave: () => go({}) });
    window.salvo = current; // handy in the console (and for browser tests: salvo.stream.drop())
    current.start();
  } else {
    document.title = "Salvo";
    renderLobby(root, new Api(), { onJoin: (g, t) => go({ game: g, token: t }) });
  }
}

/** @param {{game?: string, token?: string}} where */
function go({ game, token }) {
  const u = new URL(location.href);
  u.search = "";
  if (game) u.searchParams.set("game", game);
  if (token) u.searchParams.set("token", token);
  history.pushState({}, "", u);
  route();
}

window.addEventListener("popstate", route);
route();
