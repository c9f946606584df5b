// Settling a dispute in the page: export the battle file, fork a what-if from the shown moment, and
// (umpire) rewind with a reason. Import lives in the lobby (lobby.js uses importBlock).
import { el, fill } from "./dom.js";
import { pageUrl } from "./links.js";

/** @typedef {import("../types/salvo").GameCreated} GameCreated */

/** @param {string} name @param {string} text */
function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const a = el("a", { href: url, download: name, class: "button small", id: "export-link" }, `Save ${name}`);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return a;
}

/** @param {GameCreated} created */
function linksOf(created) {
  const link = (/** @type {string | null} */ token) => pageUrl(created.game_id, token);
  return el("ul", { class: "links" },
    ...Object.entries(created.seats || {}).map(([seat, t]) => el("li", { dataset: { role: `seat:${seat}` } }, el("a", { href: link(t) }, `Seat ${seat}`))),
    created.umpire_token ? el("li", { dataset: { role: "umpire" } }, el("a", { href: link(created.umpire_token) }, "Umpire")) : null,
    el("li", { dataset: { role: "spectator" } }, el("a", { href: link(null) }, "Spectators")));
}

// at: the seq shown (null = live); viewer: "umpire" | "seat:x" | "spectator"
// out: where the answers go (the page's own, kept across rebuilds); onRewound: after a rewind (back to live)
/** @param {import("./api.js").Api} api @param {string} gameId
 * @param {{at: number | null, version: number, viewer: string, onError: (err: unknown) => void,
 *   out?: HTMLElement, onRewound?: () => void}} how */
export function disputesBlock(api, gameId, { at, version, viewer, onError, out, onRewound }) {
  out = out || el("div", { class: "disputes-out", "aria-live": "polite" });
  const shownSeq = at ?? version;
  const exportBtn = el("button", { type: "button", id: "export", onclick: async () => {
    try { fill(out, download(`${gameId}.salvo.jsonl`, await api.exportText(gameId))); } catch (err) { onError(err); }
  } }, "Export battle file");
  const forkBtn = el("button", { type: "button", id: "fork", onclick: async () => {
    try {
      const created = await api.fork(gameId, shownSeq);
      // a seq inside a command forks from that command's end: the what-if starts where a seat can act
      const at = created.forked_at ?? shownSeq;
      const moved = at !== shownSeq ? ` (seq ${shownSeq} is inside a command: the what-if starts at its end)` : "";
      fill(out, el("p", {}, `What-if game ${created.game_id} forked at seq ${at}${moved}:`), linksOf(created));
    } catch (err) { onError(err); }
  } }, `Fork a what-if from seq ${shownSeq}`);
  /** @type {HTMLElement[]} */
  const parts = [exportBtn, forkBtn];
  if (viewer === "umpire") {
    const reason = el("input", { type: "text", id: "rewind-reason", placeholder: "Reason (shown to every seat)", "aria-label": "Reason for the rewind" });
    const rewindBtn = el("button", { type: "button", id: "rewind", disabled: at == null, onclick: async () => {
      if (!reason.value.trim()) { reason.focus(); fill(out, el("p", { class: "error" }, "A rewind needs a reason.")); return; }
      try {
        const why = reason.value.trim();
        const res = await api.rewind(gameId, at, why);
        fill(out, el("p", { id: "rewind-done" }, `Rewound to seq ${res.rewound_to ?? at} (the game is now at seq ${res.version ?? "?"}): ${why}`));
        if (onRewound) onRewound();
      } catch (err) { onError(err); }
    } }, at == null ? "Rewind: pick a moment in history first" : `Rewind to seq ${at}`);
    parts.push(el("div", { class: "rewind" }, reason, rewindBtn));
  }
  return el("section", { class: "disputes", "aria-label": "Disputes" }, el("h3", {}, "Disputes"), ...parts, out);
}

/**
 * @param {import("./api.js").Api} api
 * @param {{onCreated?: (created: import("../types/salvo").GameCreated) => void}} handlers
 */
export function importBlock(api, { onCreated }) {
  const file = el("input", { type: "file", id: "import-file", accept: ".jsonl,.ndjson,.json,application/x-ndjson", "aria-label": "Battle file to import" });
  const out = el("div", { id: "imported", "aria-live": "polite" });
  const go = el("button", { type: "button", id: "import", class: "primary", onclick: async () => {
    const f = file.files && file.files[0];
    if (!f) { fill(out, el("p", { class: "error" }, "Choose a battle file first.")); return; }
    try {
      const created = await api.importFile(await f.text());
      fill(out, el("p", {}, `Imported as game ${created.game_id}:`), linksOf(created));
      if (onCreated) onCreated(created);
    } catch (err) { fill(out, el("p", { class: "error" }, `${err.title}: ${err.message}`)); }
  } }, "Import");
  return el("section", { class: "card" }, el("h2", {}, "Import a battle file"),
    el("p", { class: "muted" }, "A battle file exported from any Salvo game: it is replayed and checked, then opened as a new game."),
    file, go, out);
}
