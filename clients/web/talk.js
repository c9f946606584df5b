// Table talk and the time left (issue 39): the game's deadline, the table's messages (a seat or the umpire
// says something to all, the umpire, a side or a seat; only its audience reads it: the server redacts), and
// the spectators' channel (spectators post, spectators and the umpire read; never in the game's log).
import { clockText, SeatClocks } from "./clock.js";
import { el, fill } from "./dom.js";

export { clockText };

/** @typedef {import("../types/salvo").GameSummary} GameSummary */
/** @typedef {{seq: number, sender: string, to: string, text: string, recorded_at: string}} TableLine */
/** @typedef {{id: number, name: string, text: string, posted_at: string}} GalleryLine */
/** @typedef {{event: {seq: number, type: string, actor: string}, text: string}} Step */
/** @typedef {{deadline?: {per: string, turn: number | null, seconds_left: number | null} | null,
 *             clock?: import("./clock.js").GameClock | null}} Timed */
/** The events that say the time ran out: the service's command follows each (docs/deadlines.md). */
const TIME_EVENTS = ["deadline.passed", "clock.ran_out"];

const POLL_MS = 3000;

/** The seat's side: a Starfinder seat is ship/crew (a ship's crew are one side). @param {string} seat */
const sideOf = (seat) => seat.split("/")[0];

export class TalkPanel {
  /** @param {import("./api.js").Api} api @param {string} gameId @param {string | null} token */
  constructor(api, gameId, token) {
    this.api = api;
    this.gameId = gameId;
    this.token = token;
    /** @type {string} */
    this.viewer = "";
    /** @type {string[]} */
    this.seats = [];
    /** @type {number | null} the wall-clock ms the deadline falls at, from the view's seconds_left */
    this.dueAt = null;
    this.deadlineText = "";
    this.deadline = el("p", { id: "deadline", class: "deadline", role: "timer", "aria-live": "off", hidden: true });
    this.clocks = new SeatClocks(); // each seat's time left, when the game has chess-style clocks
    /** what the service did when the time ran out: the deadline.passed (or clock.ran_out) and its command */
    this.notice = el("p", { id: "time-notice", class: "time-notice", role: "status", hidden: true });
    this.ownVersion = 0; // the version this panel read the time at itself (newer than a view's copy)
    this.checkedVersion = 0;
    this.noticeSeq = 0; // the last time event explained
    this.noticePending = false; // explained without its command yet (it follows the event)
    /** @type {number | null} */
    this.dueTurn = null;
    /** @type {Set<number>} */
    this.galleryIds = new Set();
    /** @type {WeakSet<object>} the deadline and clock reads applied already */
    this.seen = new WeakSet();
    this.lines = el("ol", { id: "talk-lines", class: "talk-lines", "aria-live": "polite" });
    this.gallery = el("ol", { id: "gallery-lines", class: "talk-lines", "aria-live": "polite" });
    this.to = el("select", { id: "talk-to", "aria-label": "Say to" });
    this.text = el("input", { type: "text", id: "talk-text", maxlength: 500, autocomplete: "off", "aria-label": "Message" });
    this.error = el("p", { id: "talk-error", class: "rejection", role: "alert", hidden: true });
    const form = el("form", { id: "talk-form", class: "talk-form", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); this.say(); } },
      this.to, this.text, el("button", { type: "submit", class: "small" }, "Say"));
    this.galleryBox = el("details", { id: "gallery", class: "gallery" }, el("summary", {}, "Spectators' channel"), this.gallery);
    this.root = el("details", { id: "talk", class: "talk", open: true },
      el("summary", {}, "Table talk"), this.deadline, this.clocks.root, this.notice, this.lines, form, this.error, this.galleryBox);
    this.timer = setInterval(() => this.tick(), 1000);
    this.poller = setInterval(() => this.poll(), POLL_MS);
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.poller);
  }

  /** A fresh view of the game: who is looking, its seats, its deadline. @param {GameSummary} summary */
  update(summary) {
    const first = !this.viewer;
    this.viewer = summary.viewer;
    this.seats = summary.seats || [];
    const version = summary.version || 0;
    const passed = (this.dueAt != null && Date.now() >= this.dueAt - 300) || this.clocks.anyOut();
    const timed = /** @type {Timed} */ (summary);
    if (version >= this.ownVersion && this.fresh(timed)) this.setTime(timed);
    if (version > this.checkedVersion && (passed || this.noticePending)) {
      this.checkedVersion = version; // the time ran out and the game moved: read the time again, and why
      this.refreshTime(version, summary.turn);
    }
    if (first) {
      this.audiences();
      this.poll();
    }
  }

  /** Whether the view's deadline or clock is a read not applied yet (a view built on an earlier one
   * carries that read's objects again: applied twice, its seconds_left would count from now again).
   * @param {Timed} timed */
  fresh(timed) {
    const objects = [timed.deadline, timed.clock].filter((o) => o && typeof o === "object");
    const unseen = objects.some((o) => !this.seen.has(/** @type {object} */ (o)));
    objects.forEach((o) => this.seen.add(/** @type {object} */ (o)));
    return unseen || (!objects.length && (this.dueAt != null || this.clocks.clock != null));
  }

  /** @param {Timed} timed */
  setTime(timed) {
    const d = timed.deadline;
    this.dueAt = d && d.seconds_left != null ? Date.now() + d.seconds_left * 1000 : null;
    this.dueTurn = d ? d.turn : null;
    this.deadlineText = d ? `${d.per === "turn" ? "Turn" : "Phase"} deadline` : "";
    this.clocks.update(timed.clock);
    this.tick();
  }

  /** @param {number} version @param {number} turn */
  async refreshTime(version, turn) {
    const base = `/v1/games/${encodeURIComponent(this.gameId)}`;
    const explainTurn = this.dueTurn != null ? this.dueTurn : turn;
    try {
      const timed = /** @type {Timed} */ (await this.api.request("GET", `${base}/deadline`));
      if (version >= this.ownVersion) {
        this.ownVersion = version;
        this.fresh(timed);
        this.setTime(timed);
      }
      await this.explain(explainTurn === turn ? [turn] : [explainTurn, turn]);
    } catch { /* the next update tries again */ }
  }

  /** The last time event of these turns and the command the service appended after it, in the replay's
   * words. @param {number[]} turns */
  async explain(turns) {
    const base = `/v1/games/${encodeURIComponent(this.gameId)}`;
    /** @type {Step[]} */
    let steps = [];
    for (const turn of turns) {
      const replay = /** @type {{events: Step[]}} */ (await this.api.request("GET", `${base}/turns/${turn}`));
      steps = steps.concat(replay.events || []);
    }
    const at = steps.map((s) => TIME_EVENTS.includes(s.event.type)).lastIndexOf(true);
    if (at < 0 || steps[at].event.seq < this.noticeSeq) return;
    const command = steps.slice(at + 1).find((s) => s.event.actor === "umpire");
    this.noticeSeq = steps[at].event.seq;
    this.noticePending = !command;
    this.notice.dataset.seq = String(this.noticeSeq);
    fill(this.notice, el("b", {}, "⏱ "), steps[at].text, command ? el("span", { class: "then" }, ` Then: ${command.text}`) : null);
    this.notice.hidden = false;
  }

  /** A message of the spectators' channel, live from the stream (spectators and the umpire only).
   * @param {GalleryLine} m */
  spectatorMessage(m) {
    this.galleryLine(m, true);
  }

  /** @param {GalleryLine} m @param {boolean} live from the stream (else from a poll) */
  galleryLine(m, live) {
    if (this.galleryIds.has(m.id)) return;
    this.galleryIds.add(m.id);
    this.gallery.append(el("li", { dataset: { id: m.id, live: String(live) } }, el("b", {}, m.name), " ", m.text));
    while (this.gallery.children.length > 200) this.gallery.firstElementChild?.remove();
  }

  tick() {
    this.clocks.tick();
    this.deadline.hidden = this.dueAt == null;
    if (this.dueAt == null) return;
    const left = (this.dueAt - Date.now()) / 1000;
    this.deadline.textContent = `${this.deadlineText}: ${left > 0 ? clockText(left) + " left" : "passed; the game moves on"}`;
    this.deadline.dataset.urgent = String(left < 60);
  }

  audiences() {
    const spectator = this.viewer === "spectator";
    /** @type {[string, string][]} */
    const choices = spectator ? [["gallery", "the spectators"]] : [["all", "everyone"], ["umpire", "the umpire"]];
    if (!spectator) {
      const sides = [...new Set(this.seats.map(sideOf))];
      if (sides.length < this.seats.length) choices.push(...sides.map((s) => /** @type {[string, string]} */ ([`side:${s}`, `side ${s}`])));
      choices.push(...this.seats.filter((s) => `seat:${s}` !== this.viewer).map((s) => /** @type {[string, string]} */ ([`seat:${s}`, s])));
    }
    fill(this.to, ...choices.map(([value, label]) => el("option", { value }, label)));
    this.galleryBox.hidden = this.viewer.startsWith("seat:");
  }

  async poll() {
    if (!this.viewer) return;
    const base = `/v1/games/${encodeURIComponent(this.gameId)}`;
    try {
      const table = /** @type {{messages: TableLine[]}} */ (await this.api.request("GET", `${base}/messages`));
      fill(this.lines, ...table.messages.map((m) => el("li", { dataset: { to: m.to } },
        el("b", {}, who(m.sender)), m.to === "all" ? " " : el("span", { class: "muted small" }, ` → ${m.to} `), m.text)));
      if (!this.viewer.startsWith("seat:")) {
        const gallery = /** @type {{messages: GalleryLine[]}} */ (await this.api.request("GET", `${base}/spectator-messages`));
        for (const m of gallery.messages) this.galleryLine(m, false); // the ones the stream did not bring
      }
    } catch { /* the next poll tries again */ }
  }

  async say() {
    const text = this.text.value.trim();
    if (!text) return;
    const base = `/v1/games/${encodeURIComponent(this.gameId)}`;
    const to = this.to.value;
    try {
      if (to === "gallery") await this.api.request("POST", `${base}/spectator-messages`, { text });
      else await this.api.request("POST", `${base}/messages`, { to, text });
      this.text.value = "";
      this.error.hidden = true;
      this.poll();
    } catch (err) {
      this.error.textContent = err.message;
      this.error.hidden = false;
    }
  }
}

/** @param {string} sender "seat:red" or "umpire" */
function who(sender) {
  return sender.startsWith("seat:") ? sender.slice(5) : sender;
}
