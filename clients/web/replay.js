// Replay: a timeline scrubber over the whole log, turn-by-turn replays with every roll explained,
// and a dice-verification badge per revealed turn.
import { el, clear, fill, humanize } from "./dom.js";
import { verifyTurn } from "./dice.js";
import { ruleLink } from "./rules.js";

/** @typedef {import("../types/salvo").Envelope} Envelope */
/** @typedef {import("../types/openapi").components["schemas"]["Roll"]} Roll */
/** A turn's dice check (dice.js verifyTurn). @typedef {Awaited<ReturnType<typeof verifyTurn>>} Verified */

/** Each turn and the seq it starts at, in turn order. @param {Envelope[]} events @returns {[number, number][]} */
export function turnStarts(events) {
  /** @type {Map<number, number>} */
  const starts = new Map();
  for (const e of events) if (!starts.has(e.turn)) starts.set(e.turn, e.seq);
  return [...starts.entries()].sort((a, b) => a[0] - b[0]);
}

// The scrubber under the board. at = null means live.
/** @param {HTMLElement} root
 * @param {{version: number, at: number | null, events: Envelope[], turn: number, phase: string,
 *   onScrub: (seq: number) => void, onLive: () => void, onStep?: (delta: number) => void}} how */
export function renderTimeline(root, { version, at, events, turn, phase, onScrub, onLive, onStep }) {
  clear(root);
  const shown = at ?? version;
  const range = el("input", {
    type: "range", id: "scrub", min: 1, max: Math.max(1, version), step: 1, value: shown,
    "aria-label": "Timeline (event seq)",
  });
  /** @type {ReturnType<typeof setTimeout> | null} */
  let t = null;
  range.addEventListener("input", () => {
    out.textContent = `seq ${range.value} / ${version}`;
    clearTimeout(t);
    t = setTimeout(() => onScrub(Number(range.value)), 120);
  });
  const out = el("output", { for: "scrub", class: "seq" }, `seq ${shown} / ${version}`);
  const chips = el("div", { class: "turn-chips" },
    ...turnStarts(events).map(([n, seq]) => el("button", {
      type: "button", class: `chip${turn === n && at != null ? " active" : ""}`, dataset: { turn: n, seq },
      title: `Show the table at the start of turn ${n} (seq ${seq})`, onclick: () => onScrub(seq),
    }, `T${n}`)));
  const live = el("button", {
    type: "button", id: "go-live", class: at == null ? "live-btn on" : "live-btn",
    onclick: onLive, disabled: at == null,
  }, at == null ? "● Live" : "Back to live");
  const where = el("span", { class: "where" }, at == null ? `turn ${turn} · ${phase}` : `history: turn ${turn} · ${phase}`);
  const prev = el("button", { type: "button", id: "step-back", class: "small", "aria-label": "Step back one event (←)",
    disabled: shown <= 1, onclick: () => onStep && onStep(-1) }, "◀");
  const next = el("button", { type: "button", id: "step-on", class: "small", "aria-label": "Step on one event (→)",
    disabled: at == null, onclick: () => onStep && onStep(1) }, "▶");
  root.append(el("div", { class: "timeline-row" }, prev, range, next, out, live), el("div", { class: "timeline-row" }, where, chips));
}

/** @param {Roll} roll @param {boolean | null} verified against the revealed seed (null: not known) @param {string} ruleset */
function rollLine(roll, verified, ruleset) {
  const mods = (roll.modifiers || []).map((m) => el("li", {},
    `${m.value >= 0 ? "+" : "−"}${Math.abs(m.value)} ${m.why} `, ruleLink(ruleset, m.rule)));
  const need = roll.target != null ? ` · target ${roll.target}` : "";
  return el("li", { class: `roll ${roll.outcome || ""}`, dataset: { i: roll.i } },
    el("span", { class: "die" }, `${roll.die} → ${roll.value}`),
    ` ${roll.purpose}${need}${roll.outcome ? ` · ${roll.outcome}` : ""} `,
    ruleLink(ruleset, roll.rule),
    verified === true ? el("span", { class: "ok", title: "recomputed from the revealed seed" }, " ✓") : null,
    verified === false ? el("span", { class: "bad", title: "does not match the revealed seed" }, " ✗") : null,
    mods.length ? el("ul", { class: "mods" }, ...mods) : null);
}

export class ReplayPanel {
  /** @param {import("./api.js").Api} api @param {string} gameId
   * @param {{getEvents: () => Envelope[], onShowSeq: (seq: number) => void, ruleset?: () => string,
   *   unverified?: () => string | null}} how */
  constructor(api, gameId, { getEvents, onShowSeq, ruleset, unverified }) {
    this.ruleset = ruleset || (() => "");
    // an import accepted unverified: its dice may reconcile with its seeds and still prove nothing
    this.unverified = unverified || (() => null);
    this.api = api;
    this.gameId = gameId;
    this.getEvents = getEvents;
    this.onShowSeq = onShowSeq;
    /** @type {Map<number, Verified>} turn -> result (final ones only) */
    this.verified = new Map();
    /** @type {number | null} */
    this.openTurnN = null;
  }

  /** @param {number} turn @returns {Promise<Verified>} */
  async badge(turn) {
    if (this.verified.has(turn)) return this.verified.get(turn);
    /** @type {Verified} */
    let res;
    try { res = await verifyTurn(this.getEvents(), turn); } catch (err) {
      res = { status: "unknown", checked: 0, bad: [], message: `cannot verify here: ${err.message || err}` };
    }
    if (res.status === "verified" || res.status === "mismatch") this.verified.set(turn, res);
    return res;
  }

  /** @param {Verified} res */
  badgeEl(res) {
    const why = this.unverified();
    if (why) {
      return el("span", { class: "badge dice-unverified", title: `Unverified origin: ${why}. ${res.message || ""}`, dataset: { status: "unverified" } },
        "⚠ unverified: dice not vouched for");
    }
    const text = /** @type {Record<string, string>} */ ({ verified: "✓ dice verified", mismatch: "✗ dice mismatch", pending: "… seed sealed", unknown: "? dice" })[res.status];
    return el("span", { class: `badge dice-${res.status}`, title: res.message, dataset: { status: res.status } }, text);
  }

  /** @param {HTMLElement} root */
  async renderTurns(root) {
    const events = this.getEvents();
    const turns = turnStarts(events).map(([n]) => n);
    const list = el("div", { class: "turn-list" });
    for (const n of turns) {
      const res = await this.badge(n);
      list.append(el("div", { class: "turn-row", dataset: { turn: n } },
        el("button", { type: "button", class: "open-turn", onclick: () => this.openTurn(root, n) }, `Replay turn ${n}`),
        this.badgeEl(res)));
    }
    const body = el("div", { id: "turn-replay" });
    fill(root, list, body);
    if (this.openTurnN != null) await this.openTurn(root, this.openTurnN, false);
  }

  /** @param {HTMLElement} root @param {number} n @param {boolean} [scroll] */
  async openTurn(root, n, scroll = true) {
    this.openTurnN = n;
    const body = /** @type {HTMLElement} */ (root.querySelector("#turn-replay")) || root;
    fill(body, el("p", { class: "muted" }, `Loading turn ${n}…`));
    let data;
    try { data = await this.api.turn(this.gameId, n); } catch (err) {
      fill(body, el("p", { class: "error" }, `Turn ${n}: ${err.message}`));
      return;
    }
    const res = await this.badge(n);
    const bad = new Set((res.bad || []).map((b) => `${b.seq}/${b.i}`));
    const steps = data.events.map(({ event, text }) => {
      const rolls = (event.rolls || []).map((r) => rollLine(r,
        res.status === "verified" && !this.unverified() ? true : bad.has(`${event.seq}/${r.i}`) ? false : null, this.ruleset()));
      return el("li", { class: `step${event.superseded ? " superseded" : ""}`, dataset: { seq: event.seq, type: event.type } },
        el("div", { class: "step-head" },
          el("button", { type: "button", class: "seq-link", title: "Show the table after this event",
            onclick: () => this.onShowSeq(event.seq) }, `#${event.seq}`),
          el("span", { class: "phase" }, `${event.phase}`),
          el("span", { class: "actor" }, event.actor || "")),
        el("p", { class: "text" }, text || humanize(event.type)),
        rolls.length ? el("ul", { class: "rolls" }, ...rolls) : null);
    });
    fill(body, 
      el("h3", {}, `Turn ${n} `, this.badgeEl(res)),
      el("p", { class: "muted" }, `Events ${data.from_seq}–${data.to_seq}. ${res.message || ""}`),
      el("ol", { class: "steps" }, ...steps));
    if (scroll) body.scrollIntoView({ block: "nearest" });
  }

  // The shown step is marked in place: the list is never rebuilt for a click, so it keeps its scroll.
  /** @param {ParentNode} root @param {number | null} at */
  markCurrent(root, at) {
    for (const li of /** @type {NodeListOf<HTMLLIElement>} */ (root.querySelectorAll("li.step"))) {
      if (Number(li.dataset.seq) === at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    }
  }
}
