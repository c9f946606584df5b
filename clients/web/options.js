// Labelled options (GET /options, docs/view-contract.md) as buttons grouped by group and piece. With
// many pieces, only the selected piece's options are listed (others are a tap on the map away), so a
// screen never holds hundreds of buttons.
import { el, humanize } from "./dom.js";

/** @typedef {import("../types/salvo").Option} Option */
/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {(command: Command, label: string) => void} OnSend */
/** A choice in the tray: an option to send, or a form field to set (forms.js formDecor's setters).
 * @typedef {{label: string, command?: Command, rule?: string | null, apply?: () => void, why?: string | null}} TrayAct */

const ORDER = ["game", "setup", "order", "move", "helm", "engineering", "science", "gunnery", "fire", "launch",
  "captain", "orders", "phase", "umpire"];
const MANY = 40;

// a group the list does not name (a campaign's "build", "economy") comes before "phase": ending a phase (or
// set-up spending) is never the first button, above what the phase is for
const groupRank = (/** @type {string | null | undefined} */ g) => { const i = ORDER.indexOf(String(g || "").toLowerCase()); return i < 0 ? ORDER.indexOf("phase") - 0.5 : i; };

// An option the rules allow but that cannot do anything, as its own label says (a GSC2 shot "(cannot hit)":
// its to-hit number is 0 or less after range and modifiers): shown, not offered, with the reason.
/** @param {Option} o @returns {string | null} */
export function pointless(o) {
  if (/\(cannot hit\)/i.test(o.label)) {
    return `cannot hit: after range and modifiers no roll succeeds${o.rule ? ` (${o.rule})` : ""}`;
  }
  return null;
}

// the label without the words the reason repeats
/** @param {Option} o */
const bareLabel = (o) => o.label.replace(/\s*\(cannot hit\)/i, "");

/** @param {Option} o @param {OnSend} onSend @param {boolean} disabled @param {number} i */
function optionButton(o, onSend, disabled, i) {
  const why = pointless(o);
  const label = why ? bareLabel(o) : o.label;
  return el("button", { type: "button", class: `cmd opt${why ? " refused" : ""}`, disabled: disabled || !!why,
    dataset: { type: o.command.type, i, piece: o.piece || "", target: o.target || "", group: o.group || "" },
    title: o.rule ? `${o.label} (${o.rule})` : o.label, onclick: () => onSend(o.command, o.label) },
  label, why ? el("span", { class: "why" }, ` — ${why}`) : null);
}

/** @param {Option[]} options
 * @param {{selected?: string | null, disabled: boolean, onSend: OnSend, pieceLabel: (id: string) => string}} how */
export function optionsBlock(options, { selected, disabled, onSend, pieceLabel }) {
  const shown = options.length > MANY ? options.filter((o) => !o.piece || o.piece === selected) : options;
  const hidden = options.length - shown.length;
  /** @type {Map<string, [Option, number][]>} group -> its options and their place in `options` */
  const groups = new Map();
  options.forEach((o, i) => {
    if (!shown.includes(o)) return;
    const g = o.group || "other";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push([o, i]);
  });
  /** @type {HTMLElement[]} */
  const out = [];
  for (const [g, items] of [...groups].sort((a, b) => groupRank(a[0]) - groupRank(b[0]))) {
    /** @type {Map<string, [Option, number][]>} */
    const byPiece = new Map();
    for (const [o, i] of items) {
      const k = o.piece || "";
      if (!byPiece.has(k)) byPiece.set(k, []);
      byPiece.get(k).push([o, i]);
    }
    // @ts-expect-error booleans subtract as 0/1 here on purpose: the selected piece first
    const order = [...byPiece.keys()].sort((a, b) => (b === selected) - (a === selected));
    out.push(el("div", { class: "cmd-group", dataset: { group: g } },
      el("h4", {}, humanize(g).replace(/^./, (c) => c.toUpperCase())),
      ...order.map((k) => el("div", { class: `by-piece${k && k === selected ? " selected" : ""}`, dataset: { piece: k } },
        k && byPiece.size > 1 ? el("p", { class: "piece-name" }, pieceLabel(k)) : null,
        ...byPiece.get(k).map(([o, i]) => optionButton(o, onSend, disabled, i))))));
  }
  if (hidden > 0) out.push(el("p", { class: "muted", id: "more-options" }, `${hidden} more orders for other pieces: tap a piece on the map (or pick it in the Ship tab) to see its orders.`));
  return out;
}

// The tray under the map after tapping a target: what the selected piece may do to it.
/** @param {Option[]} options @param {Map<string, {label: string, apply: () => void}[]>} setters
 * @param {string | null | undefined} piece @param {string} target */
export function targetActions(options, setters, piece, target) {
  /** @type {TrayAct[]} */
  const acts = options.filter((o) => o.target === target && (!piece || o.piece === piece || !o.piece))
    .map((o) => { const why = pointless(o); return { label: why ? bareLabel(o) : o.label, command: o.command, rule: o.rule, why }; });
  for (const s of setters.get(target) || []) acts.push({ label: s.label, apply: s.apply });
  return acts;
}
