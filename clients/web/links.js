// Page URLs: the game in the query, a seat's or the umpire's token in the fragment (#token=…). A
// fragment is never sent to a server, never in a Referer and not in access logs; old links with
// ?token= still open, and the page moves their token to the fragment at once (app.js).

/** The page URL that opens a game (no token = spectator). @param {string} gameId @param {string | null} [token] */
export function pageUrl(gameId, token = null) {
  const u = new URL(location.origin + location.pathname);
  u.searchParams.set("game", gameId);
  if (token) u.hash = new URLSearchParams({ token }).toString();
  return u.toString();
}

/** The game and token a page URL names: the token from the fragment, or from an old link's query.
 * @param {string} href */
export function readLink(href) {
  const u = new URL(href, location.origin);
  const hash = new URLSearchParams(u.hash.replace(/^#/, ""));
  return {
    game: u.searchParams.get("game") || hash.get("game"),
    token: hash.get("token") || u.searchParams.get("token"),
    legacy: u.searchParams.has("token"), // a token in the query: rewrite the URL without it
  };
}
