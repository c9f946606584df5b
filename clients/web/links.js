// Page URLs: the game in the query, a seat's or the umpire's token in the fragment (#token=…). A
// fragment is never sent to a server, never in a Referer and not in access logs; old links with
// ?token= still open, and the page moves their token to the fragment at once (app.js).
// One person may hold several seats of a game (a Starfinder crew, every seat of a side): the fragment then
// carries the token once per seat (#token=A&token=B), the seat on screen first.

/** The page URL that opens a game (no token = spectator; several = one person's seats, the first shown).
 * @param {string} gameId @param {string | string[] | null} [token] */
export function pageUrl(gameId, token = null) {
  const u = new URL(location.origin + location.pathname);
  u.searchParams.set("game", gameId);
  const tokens = (Array.isArray(token) ? token : [token]).filter(Boolean);
  if (tokens.length) u.hash = new URLSearchParams(tokens.map((t) => ["token", t])).toString();
  return u.toString();
}

/** The game and tokens a page URL names: the tokens from the fragment, or an old link's from its query.
 * @param {string} href */
export function readLink(href) {
  const u = new URL(href, location.origin);
  const hash = new URLSearchParams(u.hash.replace(/^#/, ""));
  const tokens = [...new Set([...hash.getAll("token"), ...u.searchParams.getAll("token")].filter(Boolean))];
  return {
    game: u.searchParams.get("game") || hash.get("game"),
    token: tokens[0] || null,
    tokens,
    legacy: u.searchParams.has("token"), // a token in the query: rewrite the URL without it
  };
}
