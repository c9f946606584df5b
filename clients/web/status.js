// Whose turn, in words, from draw.status (docs/view-contract.md): must the viewer act, in which phase,
// and if not, why not yet (sealed steps included).
import { el } from "./dom.js";
import { pageUrl } from "./links.js";

/** @typedef {import("../types/salvo").DrawStatus} DrawStatus */
/** @typedef {{text: string, mine: boolean, over?: boolean, short?: string}} Badge */

// The header badge: {text, mine}
/** @param {DrawStatus | null | undefined} status @param {string} viewer
 * @param {(seat: string) => string} [who] a seat in words (its side's name where the view names sides)
 * @returns {Badge | null} */
export function turnBadge(status, viewer, who = (seat) => seat) {
  if (!status) return null;
  if (status.over) return { text: status.result ? `Game over: ${status.result}` : "Game over", mine: false, over: true };
  const you = status.you;
  const why = you ? String(you.why || "").replace(/^your move:\s*/i, "") : "";
  if (you) return you.must_act ? { text: `Your move: ${why}`, mine: true, short: "Your move" } : { text: `Not yet: ${why}`, mine: false, short: "Not yet" };
  if (viewer === "umpire") return status.umpire ? { text: `Umpire: ${status.umpire}`, mine: true, short: "Umpire duty" } : { text: "No umpire duty now", mine: false };
  const acting = (status.seats || []).filter((s) => s.must_act).map((s) => who(s.seat));
  return { text: acting.length ? `Waiting for ${acting.join(", ")}` : "Waiting", mine: false };
}

// A status line that names a linked game (a campaign battle fought as a tactical game): the bare id becomes
// the battle's name and a link to open it (with the reader's token, which opens its own side there).
/** @param {string} text @param {Map<string, string>} linked game id -> battle id @param {string | null} token */
function withLinks(text, linked, token) {
  /** @type {(string | HTMLElement)[]} */
  const out = [];
  const links = [];
  for (const [game, battle] of linked) {
    if (!text.includes(game)) continue;
    text = text.split(game).join(`“Battle ${battle}”`);
    links.push(el("a", { class: "button small battle-link", href: pageUrl(game, token), dataset: { game } }, `Open battle ${battle}`));
  }
  out.push(text);
  for (const a of links) out.push(" ", a);
  return out;
}

// The Orders pane's summary: the phase, every seat's status as far as the viewer may know it.
/** @param {DrawStatus | null | undefined} status @param {string} viewer
 * @param {{linked?: Map<string, string>, token?: string | null, who?: (seat: string) => string}} [how] linked
 *   games to name; a seat in words */
export function statusBox(status, viewer, { linked = new Map(), token = null, who = (seat) => seat } = {}) {
  if (!status) return null;
  const badge = turnBadge(status, viewer, who);
  const words = (/** @type {string} */ t) => withLinks(t, linked, token);
  return el("section", { class: "turn-status", id: "turn-status", "aria-label": "Whose turn" },
    el("p", { class: `you${badge.mine ? " mine" : ""}` }, el("strong", {}, ...words(badge.text))),
    el("p", { class: "muted" }, `Turn ${status.turn} · ${status.phase_label || status.phase}${status.sealed ? " · orders are sealed: others' choices stay hidden until all are in" : ""}`),
    status.umpire && viewer !== "umpire" ? el("p", { class: "muted" }, `The umpire must ${status.umpire}.`) : null,
    (status.seats || []).length ? seatsList(status.seats, words, who) : null);
}

// Every seat's line, folded away on a narrow screen (eight crew seats would push the orders off the first
// screen) and open on a wide one; a fold the reader opened or closed stays so across re-renders.
/** @type {boolean | null} */
let seatsOpen = null;

/** @param {DrawStatus["seats"]} seats @param {(text: string) => (string | HTMLElement)[]} words
 * @param {(seat: string) => string} who */
function seatsList(seats, words, who) {
  const acting = seats.filter((s) => s.must_act).length;
  const open = seatsOpen ?? !matchMedia("(max-width: 900px)").matches;
  const box = el("details", { class: "seats-box", open, ontoggle: () => { seatsOpen = box.open; } },
    el("summary", {}, `Every seat: ${acting} must act, ${seats.length - acting} wait${seats.length - acting === 1 ? "s" : ""}`),
    el("ul", { class: "seats" }, ...seats.map((s) => el("li", {
      class: s.must_act ? "acting" : "", dataset: { seat: s.seat, mustAct: String(s.must_act) },
    }, el("span", { class: "seat-name" }, who(s.seat)), ` ${s.must_act ? "must act" : "waits"}: `, ...words(s.why)))));
  return box;
}
