// The tab's title says when the rules await this page's seat (issue 40): a player who left the game in a
// background tab sees "● Your move" in the tab strip, and the mark goes when the move is made.

export const YOUR_MOVE = "● Your move · ";

/**
 * @param {{ you?: { must_act: boolean } | null, over?: boolean } | null | undefined} status the live status
 * @param {{ title: string }} doc
 */
export function showTurnInTitle(status, doc = document) {
  const base = doc.title.startsWith(YOUR_MOVE) ? doc.title.slice(YOUR_MOVE.length) : doc.title;
  const mine = Boolean(status && status.you && status.you.must_act && !status.over);
  const title = mine ? YOUR_MOVE + base : base;
  if (doc.title !== title) doc.title = title;
}
