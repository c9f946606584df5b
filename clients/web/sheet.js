// The Ship tab for a drawn piece: what the drawing says about it (label, side, status, bars, detail),
// and the list of every piece to pick one. Rulesets with richer sheets (panel.js) use those instead.
import { el } from "./dom.js";
import { sideColour } from "./board.js";

/** @typedef {import("../types/salvo").Drawing} Drawing */
/** @typedef {import("../types/salvo").Piece} Piece */

/** @param {Drawing} draw @param {Piece | null | undefined} piece @param {(id: string) => void} onSelect */
export function drawnSheet(draw, piece, onSelect) {
  const list = el("div", { class: "piece-list" }, ...(draw.pieces || []).map((p) => el("button", {
    type: "button", class: `chip${piece && p.id === piece.id ? " active" : ""} status-${p.status}`, dataset: { id: p.id },
    "aria-pressed": String(!!piece && p.id === piece.id), onclick: () => onSelect(p.id),
  }, el("span", { class: "dot", style: `background:${sideColour(draw, p.side)}` }), p.label)));
  if (!piece) return [list, el("p", { class: "muted" }, "Tap a piece on the map (or above) to see it.")];
  return [list,
    el("h3", {}, el("span", { class: "dot", style: `background:${sideColour(draw, piece.side)}` }), `${piece.label} `,
      el("small", {}, [piece.side || "no known side", piece.status, piece.kind].join(" · "))),
    piece.detail ? el("p", {}, piece.detail) : null,
    ...(piece.bars || []).map((b) => el("div", { class: "stat" }, el("label", {}, b.label),
      el("div", { class: "bar", role: "meter", "aria-label": b.label, "aria-valuenow": b.value, "aria-valuemin": 0, "aria-valuemax": b.max },
        el("span", { style: `width:${b.max > 0 ? Math.max(0, Math.min(100, (100 * b.value) / b.max)) : 0}%` }),
        el("em", {}, `${b.value} / ${b.max}`))))];
}
