// The tab's title says when the rules await this page's seat (issue 40): a player who left the game in a
// background tab sees "● Your move" in the tab strip, and the mark goes when the move is made. When the
// turn comes to the seat while the page is open, the player is also alerted if they allowed it (notify.js).
import { tellYourTurn } from "./notify.js";

export const YOUR_MOVE = "● Your move · ";

/** Whether the previous status awaited this page's seat (null: no status seen yet, nothing to compare). */
/** @type {boolean | null} */
let wasMine = null;

/**
 * @param {{ you?: { must_act: boolean, why?: string } | null, over?: boolean } | null | undefined} status the live status
 * @param {{ title: string }} doc
 */
export function showTurnInTitle(status, doc = document) {
  const base = doc.title.startsWith(YOUR_MOVE) ? doc.title.slice(YOUR_MOVE.length) : doc.title;
  const mine = Boolean(status && status.you && status.you.must_act && !status.over);
  const title = mine ? YOUR_MOVE + base : base;
  if (doc.title !== title) doc.title = title;
  // an alert when the turn comes, not for the turn the page opened on
  if (mine && wasMine === false && doc === document) tellYourTurn(base, (status && status.you && status.you.why) || "");
  wasMine = mine;
}
