// Table talk and the time left (issue 39): the game's deadline, the table's messages (a seat or the umpire
// says something to all, the umpire, a side or a seat; only its audience reads it: the server redacts), and
// the spectators' channel (spectators post, spectators and the umpire read; never in the game's log).
import { el, fill } from "./dom.js";

/** @typedef {import("../types/salvo").GameSummary} GameSummary */
/** @typedef {{seq: number, sender: string, to: string, text: string, recorded_at: string}} TableLine */
/** @typedef {{id: number, name: string, text: string, posted_at: string}} GalleryLine */

const POLL_MS = 3000;

/** "1:05:09", "4:09", "0:07" @param {number} seconds */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

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
    this.lines = el("ol", { id: "talk-lines", class: "talk-lines", "aria-live": "polite" });
    this.gallery = el("ol", { id: "gallery-lines", class: "talk-lines", "aria-live": "polite" });
    this.to = el("select", { id: "talk-to", "aria-label": "Say to" });
    this.text = el("input", { type: "text", id: "talk-text", maxlength: 500, autocomplete: "off", "aria-label": "Message" });
    this.error = el("p", { id: "talk-error", class: "rejection", role: "alert", hidden: true });
    const form = el("form", { id: "talk-form", class: "talk-form", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); this.say(); } },
      this.to, this.text, el("button", { type: "submit", class: "small" }, "Say"));
    this.galleryBox = el("details", { id: "gallery", class: "gallery" }, el("summary", {}, "Spectators' channel"), this.gallery);
    this.root = el("details", { id: "talk", class: "talk", open: true },
      el("summary", {}, "Table talk"), this.deadline, this.lines, form, this.error, this.galleryBox);
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
    const d = summary.deadline;
    this.dueAt = d && d.seconds_left != null ? Date.now() + d.seconds_left * 1000 : null;
    this.deadlineText = d ? `${d.per === "turn" ? "Turn" : "Phase"} deadline` : "";
    this.tick();
    if (first) {
      this.audiences();
      this.poll();
    }
  }

  tick() {
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
        fill(this.gallery, ...gallery.messages.map((m) => el("li", {}, el("b", {}, m.name), " ", m.text)));
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
