// The battle page: board, timeline, orders, ship sheet, replay and log, kept live by the stream.
// A view carrying `draw` (docs/view-contract.md) is drawn by board.js and ordered through labelled
// options and forms; a view without one (a ruleset whose drawing has not landed) falls back to the
// older per-ruleset renderers.
import { el, clear, fill, humanize } from "./dom.js";
import { Api, GameStream } from "./api.js";
import { battleList, battleOrders, campaignLink } from "./linked.js";
import { confirmFirst, linkedBattles, treasuryLine } from "./ftcampaign-ui.js";
import { renderPanel } from "./panel.js";
import { seatShipId } from "./starfinder-ui.js";
import { renderTimeline, ReplayPanel, turnStarts } from "./replay.js";
import { Board } from "./board.js";
import { Drafts, formBlock, formDecor } from "./forms.js";
import { optionsBlock, targetActions } from "./options.js";
import { statusBox, turnBadge } from "./status.js";
import { showTurnInTitle } from "./title.js";
import { disputesBlock } from "./disputes.js";
import { drawnSheet } from "./sheet.js";
import { hexCentre } from "./geometry.js";
import { focusKey, restoreFocus } from "./focus.js";
import { pageUrl } from "./links.js";
import { TalkPanel } from "./talk.js";

/** @typedef {import("../types/salvo").GameSummary} GameSummary */
/** @typedef {import("../types/salvo").Envelope} Envelope */
/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").Option} Option */
/** @typedef {import("../types/salvo").Form} Form */
/** @typedef {import("../types/salvo").Drawing} Drawing */
/** @typedef {import("../types/salvo").Piece} Piece */
/** @typedef {import("../types/salvo").Point2} Point2 */
/** @typedef {import("./api.js").ProblemLike} ProblemLike */
/** @typedef {import("./focus.js").FocusKey} FocusKey */
/** @typedef {import("./forms.js").Cell} Cell */
/** @typedef {import("./options.js").TrayAct} TrayAct */
/** @typedef {import("./board.js").Decor} Decor */
/** @typedef {import("./status.js").Badge} Badge */
/** A ship of an older renderer's view (GSC2, Starfinder), as far as the page reads it.
 * @typedef {{id: string, name?: string, side?: string, status?: string, data_sheet?: object}} PageShip */
/** The parts of a view the page reads itself, whatever the ruleset (the renderers read the rest; the views
 * are not in the OpenAPI document).
 * @typedef {import("../types/salvo").GameView & {ruleset?: string, table?: unknown, ships?: PageShip[],
 *   map?: {worlds?: unknown} | null, players?: unknown, map_radius?: number | null, to_act?: string | null,
 *   awaiting?: string[], acting_ship?: string | null, winner?: string | null, done?: string[]}} PageView */
/** The tray under the map after tapping a target: its choices, and whether it takes the focus.
 * @typedef {{title: string, actions: TrayAct[], target: string, focus: boolean}} Tray */
/** What the Orders pane shows of a failure: an ApiError, a stream's error frame, a local one.
 * @typedef {{title?: string, message?: string, rule?: string | null, field?: string | null, status?: number,
 *   problem?: ProblemLike}} Rejection */
/** The fields of an event's data the log's one-line summary reads (ship_moved, beam_fired, dice, phase_started, rewound).
 * @typedef {{path?: (number[] | Point2)[], ship?: string, ship_name?: string, heading?: number,
 *   battery?: string, target?: string, target_name?: string, hit?: boolean, turn?: number, phase?: string,
 *   to_seq?: number, reason?: string}} LogData */
/** How a view is shown: drawn from its drawing (board.js), as JSON (a ruleset without a drawing), or not at all.
 * @typedef {"none" | "drawn" | "generic"} ViewKind */

const TABS = [["orders", "Orders"], ["ship", "Ship"], ["replay", "Replay"], ["log", "Log"]];

/** @param {PageView | null | undefined} view @returns {ViewKind} */
function kindOf(view) {
  if (!view || typeof view !== "object") return "none";
  return view.draw ? "drawn" : "generic";
}

// where focus goes when the focused control's place is gone (an order sent, a tray closed)
const FOCUS_FALLBACK = "#board .piece.selected, #commands button, #commands select";

// Keys on the map itself (the box around it has focus, not a piece on it): arrows pan by a fifth of the
// view, + and − zoom, 0 shows the whole map. Pieces keep their own keys (Enter, Space, a handle's arrows).
const PAN_STEP = 0.2;
/** @type {Record<string, [number, number]>} */
const MAP_PAN = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
/** @type {Record<string, number>} */
const MAP_ZOOM = { "+": 1.6, "=": 1.6, "-": 1 / 1.6, "_": 1 / 1.6, "0": 0 };
const MAP_LABEL = "Map: arrow keys pan, + and − zoom, 0 shows the whole map; Tab goes to its pieces";

const typing = (/** @type {Element | null} */ t) => t && (t.closest("input, select, textarea, [contenteditable]") || t.closest("[data-handle]"));

export class GameView {
  /** @param {HTMLElement} root @param {Api} api @param {string} gameId @param {string | null} token
   * @param {{onLeave: () => void, tokens?: string[]}} how tokens: every seat this person holds (token first) */
  constructor(root, api, gameId, token, { onLeave, tokens = [] }) {
    this.root = root;
    this.api = api;
    this.gameId = gameId;
    this.token = token;
    this.onLeave = onLeave;
    /** every seat held in this page (one person playing a crew or a side), the one on screen among them */
    this.tokens = [...new Set([token, ...tokens].filter(Boolean))];
    /** @type {Map<string, string>} token -> its viewer ("seat:sunrise/pilot"), read once at the start */
    this.seatNames = new Map();
    /** whether the page may bring up another seat once this one has nothing to do: not for a seat picked by
     * hand until the rules have awaited it and it has acted (a player looking at the gunner stays there) */
    this.mayFollow = true;
    this.followedAt = -1; // the version the page last switched seats by itself at (once per version: no ping-pong)
    this.skippedAt = -1; // the version the page last ended a phase by itself at (once per version: a refusal stops it)
    /** @type {Envelope[]} */
    this.events = [];
    /** @type {GameSummary | null} */
    this.live = null; // the summary now
    /** @type {GameSummary | null} */
    this.shown = null; // the summary displayed (live or ?at=)
    /** @type {number | null} */
    this.at = null; // null = live
    /** @type {Command[]} */
    /** @type {Option[]} */
    this.labelled = []; // Option objects
    /** @type {Form[]} */
    this.forms = [];
    this.drafts = new Drafts();
    /** @type {string | null} */
    this.selected = null;
    /** @type {Tray | null} */
    this.tray = null; // {title, actions} after tapping a target
    this.tab = token ? "orders" : "ship";
    this.sending = false;
    /** An order that cannot be taken back, waiting for its second tap.
     * @type {{command: Command, label: string, why: string} | null} */
    this.confirming = null;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.refreshTimer = null;
    this.replayKey = "";
    this.logSeq = 0;
    this.replay = new ReplayPanel(api, gameId, {
      getEvents: () => this.events,
      onShowSeq: (seq) => this.scrub(seq),
      ruleset: () => (this.live && this.live.ruleset) || "",
      unverified: () => (this.live && this.live.unverified) || null,
    });
  }

  get mySide() {
    const v = (this.live && this.live.viewer) || "";
    return v.startsWith("seat:") ? v.slice(5) : null;
  }

  layout() {
    clear(this.root);
    this.conn = el("span", { id: "conn", class: "conn", dataset: { state: "connecting" } }, "connecting");
    this.mode = el("span", { id: "mode", class: "mode", dataset: { mode: "live" } }, "Live");
    this.head = el("div", { class: "game-info" });
    // on a phone the orders come first and the map under them: one tap brings it up (and back)
    this.toMap = el("button", { type: "button", class: "small to-map", id: "to-map", onclick: () => this.showMap() }, "Map ↓");
    const bar = this.bar = el("header", { class: "gamebar" },
      el("button", { type: "button", class: "small", id: "to-lobby", onclick: () => this.onLeave() }, "← Lobby"),
      this.head, this.mode, this.conn, this.toMap);
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.id = "board";
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("aria-label", "Battle map");
    this.board = new Board(this.svg, {
      onPiece: (id) => this.selectPiece(id),
      onTarget: (id) => this.tapTarget(id),
      onNode: (id) => this.tapNode(id),
      onCell: (q, r) => this.tapCell(q, r),
    });
    this.generic = el("pre", { id: "generic-state", hidden: true });
    /** @param {string} label @param {string} title @param {() => void} f */
    const zoomBtn = (label, title, f) => el("button", { type: "button", class: "small", title, "aria-label": title,
      onclick: (/** @type {MouseEvent} */ e) => { e.stopPropagation(); f(); } }, label);
    this.zoomCtl = el("div", { class: "map-tools", role: "toolbar", "aria-label": "Map zoom" },
      zoomBtn("+", "Zoom in", () => this.zoomBy(1.6)), zoomBtn("−", "Zoom out", () => this.zoomBy(1 / 1.6)),
      zoomBtn("⤢", "Whole map", () => this.zoomBy(0)),
      el("button", { type: "button", class: "small to-orders", id: "to-orders", onclick: () => this.showOrders() }, "Orders ↑"));
    this.mapBox = el("div", { class: "board-wrap", tabindex: 0, role: "region", "aria-label": MAP_LABEL,
      "aria-keyshortcuts": "ArrowLeft ArrowRight ArrowUp ArrowDown + - 0" }, this.svg, this.generic);
    this.mapBox.addEventListener("keydown", (e) => this.mapKey(e));
    this.trayBox = el("div", { id: "tray", class: "tray", hidden: true, "aria-live": "polite" });
    this.timeline = el("div", { id: "timeline", class: "timeline" });
    this.tabs = el("nav", { class: "tabs", role: "tablist", "aria-label": "Panels" }, ...TABS.map(([id, label]) => el("button", {
      type: "button", role: "tab", id: `tab-${id}`, "aria-controls": `pane-${id}`, dataset: { tab: id }, onclick: () => this.setTab(id),
    }, label)));
    // a tablist is one Tab stop; the arrow keys (and Home/End) move between its tabs
    this.tabs.addEventListener("keydown", (e) => {
      const ids = TABS.map(([id]) => id);
      const i = ids.indexOf(this.tab);
      const to = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: ids.length - 1 }[e.key];
      if (to == null) return;
      e.preventDefault();
      this.setTab(ids[(to + ids.length) % ids.length]);
      const tab = /** @type {HTMLElement | null} */ (this.tabs.querySelector(`[data-tab="${this.tab}"]`));
      if (tab) tab.focus();
    });
    this.sections = Object.fromEntries(TABS.map(([id]) => [id, el("section", { id: `pane-${id}`, class: "pane", role: "tabpanel", "aria-labelledby": `tab-${id}` })]));
    this.statusLine = el("div", { id: "status-line", class: "status-line" });
    this.rejection = el("div", { id: "rejection", class: "rejection", role: "alert", hidden: true });
    this.flash = el("div", { id: "flash", class: "flash", "aria-live": "polite" });
    this.commands = el("div", { id: "commands" });
    this.salt = el("input", { type: "text", id: "salt", autocomplete: "off", "aria-label": "Dice salt for your next command" });
    this.saltBox = el("details", { class: "salt" }, el("summary", {}, "Dice salt (optional)"),
      el("p", { class: "muted small" }, "Mixed into the dice of your next command, so no one (the server included) can pick its rolls in advance."),
      this.salt);
    const raw = el("textarea", { id: "raw-command", rows: 3, "aria-label": "Command as JSON", placeholder: '{"type": "gsc2.end_phase", "side": "red"}' });
    this.rawBox = el("details", { class: "raw" }, el("summary", {}, "Send a command as JSON"), raw,
      el("button", { type: "button", id: "send-raw", onclick: () => {
        let cmd;
        try { cmd = JSON.parse(raw.value); } catch (err) { this.showRejection({ title: "Not JSON", message: err.message }); return; }
        this.send(cmd);
      } }, "Send"));
    this.skipToggle = el("button", { type: "button", id: "skip-empty", class: "small skip-empty", onclick: () => {
      setSkipEmpty(!skipEmpty());
      this.renderSkipToggle();
      if (skipEmpty()) this.skipEmptyPhase();
    } });
    this.renderSkipToggle();
    this.sections.orders.append(this.statusLine, this.rejection, this.flash, this.commands, this.skipToggle, this.saltBox, this.rawBox);
    this.log = el("ol", { id: "log", class: "log", reversed: true });
    this.sections.log.append(this.log);
    this.replayBox = el("div", { id: "replay-turns" });
    this.disputes = el("div", { id: "disputes" });
    // the disputes block is rebuilt with every update; what a rewind or a fork answered stays here
    this.disputesOut = el("div", { id: "disputes-out", class: "disputes-out", "aria-live": "polite" });
    // a rewind, told to every seat (and spectators) with the umpire's reason, above whichever tab is open
    this.rewindNote = el("p", { id: "rewind-note", class: "note rewind-note", role: "status", hidden: true });
    this.sections.replay.append(this.disputes, this.replayBox);
    // one person's seats: which is on screen, which must act (the page follows the one that must act)
    this.seatBar = el("nav", { id: "seat-switch", class: "seat-switch", "aria-label": "Your seats", hidden: this.tokens.length < 2 });
    const panel = this.panel = el("aside", { class: "panel", "aria-label": "Orders and details" }, this.seatBar, this.rewindNote, this.tabs, ...Object.values(this.sections));
    this.talk = new TalkPanel(this.api, this.gameId, this.token); // table talk and the time left (issue 39)
    panel.append(this.talk.root);
    this.root.append(el("div", { class: "game" }, bar,
      // hidden until the first view is drawn: the orders, the map and the game bar's line then appear at once,
      // not one under the other as each arrives (a phone saw the map pushed down by 0.2-0.8 of a screen, CLS)
      this.battleBox = el("main", { class: "battle", hidden: true },
        el("div", { class: "board-col" }, this.mapBox, this.zoomCtl,
          this.trayBox, this.timeline),
        panel)));
    this.setTab(this.tab);
    document.addEventListener("keydown", this.keys = (/** @type {KeyboardEvent} */ e) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(/** @type {Element | null} */ (e.target))) return;
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        e.preventDefault();
        this.step(e.key === "ArrowLeft" ? -1 : 1);
      }
    });
  }

  // The map brought into view (a phone shows it under the orders); nothing moves when it is in view already.
  showMap() {
    const r = this.mapBox.getBoundingClientRect();
    if (r.top < 0 || r.bottom > innerHeight) this.mapBox.scrollIntoView({ block: "start", behavior: "instant" });
  }

  showOrders() {
    this.setTab(this.token ? "orders" : this.tab);
    this.panel.scrollIntoView({ block: "start", behavior: "instant" });
  }

  /** @param {string} id */
  setTab(id) {
    this.tab = id;
    for (const b of /** @type {HTMLCollectionOf<HTMLElement>} */ (this.tabs.children)) {
      b.setAttribute("aria-selected", String(b.dataset.tab === id));
      b.tabIndex = b.dataset.tab === id ? 0 : -1;
    }
    for (const [k, s] of Object.entries(this.sections)) s.hidden = k !== id;
    if (id === "replay") { this.replayKey = ""; this.renderReplay(); }
  }

  async start() {
    this.layout();
    try {
      if (this.tokens.length > 1) await this.nameSeats();
      await this.refresh();
    } catch (err) {
      fill(this.root, el("section", { class: "card" }, el("h2", {}, "Cannot open this game"),
        el("p", { class: "error" }, `${err.title || "Error"}: ${err.message}`),
        el("button", { type: "button", onclick: () => this.onLeave() }, "Back to the lobby")));
      return;
    }
    if (this.live && this.live.ruleset === "gsc2") {  // a campaign battle's game links back to its campaign
      campaignLink(this.api, this.gameId, this.token).then((a) => { if (a) this.bar.insertBefore(a, this.head); });
    }
    this.openStream();
  }

  // Each held seat's name, from its own view (a token says nothing about its seat by itself).
  async nameSeats() {
    const views = await Promise.all(this.tokens.map((t) => new Api(t).game(this.gameId).catch(
      /** @returns {null} a token the server does not know */ () => null)));
    this.tokens.forEach((t, i) => { if (views[i]) this.seatNames.set(t, views[i].viewer); });
    this.tokens = this.tokens.filter((t) => this.seatNames.has(t)); // a token the server does not know holds no seat
  }

  openStream() {
    this.stream = new GameStream(this.gameId, this.token, {
      // each update's last message carries this viewer's view and options (?frames=view): no GET per update
      onEvent: (env) => { this.events.push(env); },
      onView: (view) => this.applyView(view),
      onState: (s) => { this.conn.dataset.state = s; this.conn.textContent = s; },
      onError: (m) => this.showRejection({ title: m.title || "Stream error", message: m.detail || "" }),
      onSpectatorMessage: (m) => { if (this.talk) this.talk.spectatorMessage(m); },
    });
    this.stream.open();
  }

  // Another of this person's seats on screen: its own stream (what it may see), view, options and drafts.
  /** @param {string} token @param {string} [why] said in the flash line (a switch the page made itself) */
  async switchSeat(token, why = "") {
    if (token === this.token || this.switching || !this.tokens.includes(token)) return;
    this.switching = true;
    if (this.stream) this.stream.close();
    clearTimeout(this.refreshTimer);
    this.token = token;
    this.api.token = token;
    this.events = [];
    this.logSeq = 0;
    clear(this.log);
    this.selected = null;
    this.tray = null;
    this.confirming = null;
    this.drafts = new Drafts();
    this.at = null;
    this.replayKey = "";
    this.rejection.hidden = true;
    if (this.talk) { // table talk as the new seat: what it may read and say (issue 39's panel)
      this.talk.stop();
      const talk = new TalkPanel(this.api, this.gameId, token);
      this.talk.root.replaceWith(talk.root);
      this.talk = talk;
    }
    // the link keeps every seat, this one first: a reload (or a bookmark) opens it again
    history.replaceState(history.state, "", pageUrl(this.gameId, [token, ...this.tokens.filter((t) => t !== token)]));
    this.flash.textContent = why;
    try {
      await this.refresh();
    } catch (err) { this.showRejection(err); }
    finally { this.switching = false; }
    this.openStream();
  }

  // The seat on screen has nothing to do: another held seat that must act comes up by itself.
  followActing() {
    const live = this.live;
    const draw = live && live.state && live.state.draw;
    if (this.tokens.length < 2 || this.at != null || !draw || live.over) return false;
    // busy: the rules await this seat (an order it may give any time, a role change, does not hold the page)
    const busy = draw.status.you ? draw.status.you.must_act : this.labelled.length || this.forms.length;
    if (busy) this.mayFollow = true;
    if (busy || !this.mayFollow || live.version === this.followedAt) return false;
    const acting = new Set((draw.status.seats || []).filter((x) => x.must_act).map((x) => `seat:${x.seat}`));
    const next = this.tokens.find((t) => t !== this.token && acting.has(this.seatNames.get(t) || ""));
    if (!next) return false;
    this.followedAt = live.version;
    this.switchSeat(next, `Now playing ${seatLabel(this.seatNames.get(next))}: it must act.`);
    return true;
  }

  renderSeats() {
    if (this.tokens.length < 2) return;
    const draw = this.live && this.live.state && this.live.state.draw;
    const acting = new Set(((draw && draw.status.seats) || []).filter((x) => x.must_act).map((x) => `seat:${x.seat}`));
    const labels = shortLabels(this.tokens.map((t) => this.seatNames.get(t) || ""));
    fill(this.seatBar, el("span", { class: "muted small" }, "Your seats:"),
      ...this.tokens.map((t, i) => {
        const name = this.seatNames.get(t) || "";
        const must = acting.has(name);
        return el("button", { type: "button", class: `seat-pick${must ? " acting" : ""}`, "aria-pressed": String(t === this.token),
          dataset: { seat: name.replace(/^seat:/, "") }, title: must ? `${name}: must act` : name,
          onclick: () => { this.mayFollow = t === this.token ? this.mayFollow : false; this.switchSeat(t); } },
        labels[i], must ? el("span", { class: "must" }, " • to act") : null);
      }));
  }

  stop() {
    if (this.talk) this.talk.stop();
    if (this.stream) this.stream.close();
    clearTimeout(this.refreshTimer);
    if (this.keys) document.removeEventListener("keydown", this.keys);
  }

  scheduleRefresh(delay = 60) {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh().catch((err) => this.showRejection(err)), delay);
  }

  async refresh() {
    /** @type {{options: Option[], forms: Form[]}} */
    const none = { options: [], forms: [] };
    const token = this.token;
    const [summary, options] = await Promise.all([
      this.api.game(this.gameId),
      this.token ? this.api.options(this.gameId).catch(() => none) : Promise.resolve(none),
    ]);
    if (token !== this.token) return; // another seat came up meanwhile: these were the old seat's
    this.apply(summary, options);
  }

  /** The view and options the stream carried after an update (no request; the deadline, when the game has
   * one, is read again only when the turn or phase moved on). @param {import("./api.js").StreamView} view */
  applyView(view) {
    const before = this.live;
    if (before && view.game.version < before.version) return; // an older view than the one shown
    // the time (``deadline``, ``clock``) is not in the stream's view: kept from the last read
    const summary = /** @type {GameSummary} */ ({ ...before, ...view.game });
    this.apply(summary, /** @type {{options: Option[], forms: Form[]}} */ (view.options));
    // the time (a deadline, a game clock) is not in the stream's view: read again when it may have moved
    const timed = /** @type {{deadline?: unknown, clock?: unknown}} */ (before || {});
    if (timed.clock || (timed.deadline && (before.turn !== summary.turn || before.phase !== summary.phase))) {
      this.api.game(this.gameId).then((g) => {
        if (this.live !== summary) return;
        Object.assign(summary, { deadline: g.deadline, clock: /** @type {{clock?: unknown}} */ (g).clock });
        if (this.talk) this.talk.update(summary);
      }).catch(() => {});
    }
  }

  /** @param {GameSummary} summary @param {{options: Option[], forms: Form[]}} options */
  apply(summary, options) {
    this.live = summary;
    if (this.talk) this.talk.update(summary);
    this.labelled = options.options || [];
    this.forms = options.forms || [];
    this.drafts.update(this.forms);
    if (this.at == null) this.shown = summary;
    if (!this.switching && this.followActing()) return;
    if (this.selected == null) this.pickDefault();
    this.render();
    this.skipEmptyPhase();
  }

  renderSkipToggle() {
    const on = skipEmpty();
    this.skipToggle.setAttribute("aria-pressed", String(on));
    this.skipToggle.hidden = !this.token;
    this.skipToggle.textContent = on ? "Phases with nothing to do: ended for me (tap to ask me instead)"
      : "Phases with nothing to do: I end them myself (tap to end them for me)";
  }

  // A phase in which this seat has nothing to do but end it (or pass) is ended at once, as the seat's own
  // order, when the player lets the page do so (on unless turned off; kept in this browser).
  skipEmptyPhase() {
    const live = this.live;
    if (!skipEmpty() || !this.token || this.at != null || this.sending || this.switching || this.confirming || !live || live.over) return;
    if (live.viewer === "umpire" || live.version === this.skippedAt) return;
    const only = onlyEnd(this.labelled, this.forms);
    if (!only) return;
    this.skippedAt = live.version;
    this.send(only.command, only.label).then((ok) => {
      if (ok) this.flash.textContent = `✓ ${only.label}: nothing else to do in it (ended for you; the button under your orders turns this off)`;
    });
  }

  pickDefault() {
    const view = /** @type {PageView | null} */ (this.live && this.live.state);
    const draw = view && view.draw;
    if (draw) {
      const acting = new Set([...this.labelled.map((o) => o.piece), ...this.forms.flatMap((f) => f.pieces.map((p) => p.piece))]);
      const pieces = draw.pieces || [];
      const mine = pieces.find((p) => acting.has(p.id)) || pieces.find((p) => p.mine);
      if (mine) this.selected = mine.id;
      return;
    }
    const ships = view && Array.isArray(view.ships) ? view.ships : [];
    const crewed = seatShipId(this.mySide); // a Starfinder seat "ship/role" crews that ship
    const mine = (crewed && ships.find((s) => s.id === crewed))
      || ships.find((s) => s.side === this.mySide && s.status === "active");
    if (mine) this.selected = mine.id;
  }

  /** @param {number} seq */
  async scrub(seq) {
    const version = this.version();
    if (seq >= version) { this.goLive(); return; }
    seq = Math.max(0, seq);
    try {
      const shown = await this.api.game(this.gameId, seq);
      this.at = seq;
      this.shown = shown;
      this.tray = null;
      this.render();
    } catch (err) { this.showRejection(err); }
  }

  /** @param {number} d */
  step(d) {
    const now = this.at ?? this.version();
    const next = now + d;
    if (next > this.version()) return;
    this.scrub(next);
  }

  goLive() {
    this.at = null;
    this.shown = this.live;
    this.render();
  }

  // Run a rebuild, keeping keyboard focus on the same control (focus.js).
  /** @param {() => void} rebuild */
  keepFocus(rebuild) {
    /** @type {FocusKey | null} */
    const key = focusKey(this.root) || (document.activeElement === document.body ? this.lostFocus : null);
    this.lostFocus = null;
    rebuild();
    if (restoreFocus(this.root, key, FOCUS_FALLBACK) === "wait") this.lostFocus = key;
  }

  version() { return Math.max((this.live && this.live.version) || 0, this.stream ? this.stream.last : 0); }

  /** @param {PageView} view */
  pieces(view) {
    if (kindOf(view) !== "drawn") return [];
    return (view.draw.pieces || []).map((p) => ({ id: p.id, name: p.label, side: p.side, status: p.status }));
  }

  // ---- the map ----------------------------------------------------------------------------------
  /** @param {number} f */
  zoomBy(f) {
    if (!this.drawnNow) return;
    if (f === 0) this.board.whole(); else this.board.zoom(f);
  }

  // Pan by a fraction of the view.
  /** @param {number} fx @param {number} fy */
  panBy(fx, fy) {
    if (this.drawnNow) this.board.pan(fx, fy);
  }

  /** @param {KeyboardEvent} e */
  mapKey(e) {
    if (e.target !== this.mapBox || e.altKey || e.ctrlKey || e.metaKey) return;
    const pan = MAP_PAN[e.key], zoom = MAP_ZOOM[e.key];
    if (!pan && zoom == null) return;
    e.preventDefault(); // not a replay step (the page's own arrow keys)
    if (pan) this.panBy(pan[0] * PAN_STEP, pan[1] * PAN_STEP);
    else this.zoomBy(zoom);
  }

  /** @param {Drawing} draw @param {boolean} live @returns {Decor} */
  decor(draw, live) {
    if (!live || !this.token) return { selected: this.selected };
    const fd = formDecor(this.drafts, this.selected, draw, (full) => this.onDraft(full));
    const targets = new Map(fd.targets);
    for (const o of this.labelled) {
      if (o.target && o.piece === this.selected) {
        targets.set(o.target, targets.has(o.target) ? `${targets.get(o.target)}; ${o.label}` : o.label);
      }
    }
    this.setters = fd.setters;
    this.cells = fd.cells;
    return { selected: this.selected, targets, cells: fd.cells, plan: fd.plan, handle: fd.handle };
  }

  /** @param {boolean} full */
  onDraft(full) {
    const view = this.shown && this.shown.state;
    if (view && view.draw) {
      this.keepFocus(() => this.board.render(view.draw, this.decor(view.draw, this.at == null)));
      this.fingerSized(view.draw); // the path's next hexes, wherever it has got to, stay in view
    }
    // the pane is rebuilt after the event that changed it (a change fired by a blur must not remove
    // the very input that is blurring)
    if (full && !this.ordersQueued) {
      this.ordersQueued = true;
      setTimeout(() => { this.ordersQueued = false; this.keepFocus(() => this.renderOrders()); }, 0);
    }
  }

  /** @param {string} id */
  selectPiece(id) {
    this.selected = id;
    this.tray = null;
    this.render();
    const view = this.shown && this.shown.state;
    if (!view || !view.draw) return;
    if (this.cells && this.cells.length) this.fingerSized(view.draw);
    else this.board.reveal([...(this.board.decor.targets || new Map()).keys()]);
  }

  // A hex path is built by tapping hexes: bring the hexes to tap (around the path's end) to a finger's size.
  /** @param {Drawing} draw */
  fingerSized(draw) {
    if (!this.cells || !this.cells.length || draw.board.kind !== "hex") return;
    const at = this.cells.map((c) => hexCentre(draw.board, c.q, c.r));
    /** @type {[number, number]} */
    const mid = [at.reduce((a, p) => a + p[0], 0) / at.length, at.reduce((a, p) => a + p[1], 0) / at.length];
    this.board.focus(mid, Math.sqrt(3), 50);
  }

  /** @param {string} id */
  tapTarget(id) {
    const view = this.shown && this.shown.state;
    const draw = view && view.draw;
    const acts = targetActions(this.labelled, this.setters || new Map(), this.selected, id);
    /** @type {Pick<Piece, "label" | "at" | "mine"> | undefined} a piece or a node */
    const p = draw && ((draw.pieces || []).find((x) => x.id === id) || (draw.board.nodes || []).find((n) => n.id === id));
    const name = p ? p.label : id;
    if (acts.length === 1 && acts[0].apply) { acts[0].apply(); this.tray = null; this.render(); return; }
    if (p && p.mine) acts.push({ label: `Select ${name} instead`, apply: () => { this.selected = id; } });
    const near = (/** @type {Cell} */ c) => { const a = hexCentre(draw.board, c.q, c.r), b = hexCentre(draw.board, p.at.x, p.at.y); return Math.hypot(a[0] - b[0], a[1] - b[1]) < 1e-6; };
    const cell = p && p.at && draw.board.kind === "hex" && (this.cells || []).find(near);
    if (cell) acts.push({ label: cell.label, apply: cell.apply });
    // opened from the map by keyboard or tap: its first choice will take the focus
    this.tray = { title: `${name}: what to do`, actions: acts, target: id, focus: this.svg.contains(document.activeElement) };
    this.render();
  }

  /** @param {string} id */
  tapNode(id) {
    // a world that is no target: show what the drawing says about it
    const draw = this.shown && this.shown.state && this.shown.state.draw;
    const n = draw && (draw.board.nodes || []).find((x) => x.id === id);
    if (!n) return;
    this.tray = { title: [n.label, n.owner ? `held by ${n.owner}` : "", n.detail || ""].filter(Boolean).join(" · "), actions: [], target: id, focus: this.svg.contains(document.activeElement) };
    this.keepFocus(() => this.renderTray());
  }

  /** @param {number} q @param {number} r */
  tapCell(q, r) {
    const c = (this.cells || []).find((x) => x.q === q && x.r === r);
    if (c) { c.apply(); this.onDraft(true); }
  }

  renderTray() {
    const t = this.tray;
    if (!t || this.at != null) { this.trayBox.hidden = true; clear(this.trayBox); return; }
    fill(this.trayBox, el("h4", {}, t.title),
      ...t.actions.map((a, i) => el("button", { type: "button", class: `cmd tray-act${a.why ? " refused" : ""}`, disabled: !!a.why,
        dataset: { i, type: a.command ? a.command.type : "set" },
        onclick: () => {
          this.tray = null;
          if (a.apply) { a.apply(); this.render(); } else this.sendOrConfirm(a.command, a.label);
        } }, a.label, a.why ? el("span", { class: "why" }, ` — ${a.why}`) : null)),
      el("button", { type: "button", class: "small", id: "tray-close", onclick: () => { this.tray = null; this.keepFocus(() => this.renderTray()); } }, t.actions.length ? "Cancel" : "Close"));
    this.trayBox.hidden = false;
    // a tray just opened from the map: its first choice takes the focus (a keyboard user is there at once)
    if (this.trayFocused !== t && t.focus) {
      const first = /** @type {HTMLElement | null} */ (this.trayBox.querySelector("button:not(:disabled)"));
      if (first) first.focus({ preventScroll: true });
    }
    /** @type {Tray | null} */
    this.trayFocused = t;
  }

  // ---- rendering --------------------------------------------------------------------------------
  render() { this.keepFocus(() => this.renderNow()); }

  renderNow() {
    const s = this.shown;
    if (!s) return;
    this.battleBox.hidden = false;
    const view = /** @type {PageView} */ (s.state || {});
    const live = this.at == null;
    const kind = kindOf(view);
    this.drawnNow = kind === "drawn";
    const onSelect = (/** @type {string} */ id) => { this.selected = id; this.render(); };
    this.svg.style.display = kind === "generic" ? "none" : "";
    this.generic.hidden = kind !== "generic";
    if (kind === "drawn") this.board.render(view.draw, this.decor(view.draw, live));
    else {
      this.board.active = false; // a ruleset without a drawing: its view as it is, its options in words below
      this.generic.textContent = JSON.stringify(view, null, 2);
    }
    this.zoomCtl.hidden = kind === "generic";
    this.renderHeader(s, view, kind);
    this.renderSeats();

    renderTimeline(this.timeline, {
      version: this.version(), at: this.at, events: this.events, turn: s.turn, phase: s.phase,
      onScrub: (seq) => this.scrub(seq), onLive: () => this.goLive(), onStep: (d) => this.step(d),
    });

    if (kind === "drawn") {
      const p = (view.draw.pieces || []).find((x) => x.id === this.selected);
      const rich = p && (view.ships || []).find((x) => x.id === p.id && x.data_sheet);
      if (rich) renderPanel(this.sections.ship, view, rich, this.pieces(view), onSelect, { viewer: s.viewer });
      else fill(this.sections.ship, ...drawnSheet(view.draw, p, onSelect), ...battleList(view, this.token));
    } else fill(this.sections.ship, el("p", { class: "muted" }, "This game has no map: its view is shown as it is."));
    this.renderOrders();
    this.renderTray();
    this.renderRewind();
    this.renderLog();
    if (this.tab === "replay") this.renderReplay();
  }

  /** @param {GameSummary} s @param {PageView} view @param {ViewKind} kind */
  renderHeader(s, view, kind) {
    const live = this.at == null;
    this.mode.dataset.mode = live ? "live" : "history";
    this.mode.textContent = live ? "Live" : `History · seq ${this.at} of ${this.version()}`;
    this.conn.hidden = !live;
    const draw = kind === "drawn" ? view.draw : null;
    const me = this.mySide;
    /** @type {Badge | null} */
    let toAct = null;
    if (draw) toAct = turnBadge(draw.status, s.viewer, (seat) => this.who(`seat:${seat}`));
    else if (view.to_act != null) toAct = view.to_act ? { text: view.to_act === me ? "Your move" : `${view.to_act} to act`, mine: view.to_act === me } : null;
    const phase = draw ? draw.status.phase_label || humanize(draw.status.phase) : humanize(s.phase);
    fill(this.head,
      el("strong", {}, `${s.ruleset} · ${this.gameId}`),
      el("span", { id: "viewer", class: "viewer", dataset: { viewer: s.viewer }, title: s.viewer }, this.who(s.viewer, true)),
      el("span", { id: "clock", title: `Turn ${s.turn} · ${phase}` }, `Turn ${s.turn} · ${phase}`),
      s.unverified ? el("span", { id: "unverified", class: "badge unverified", title: `Unverified origin: ${s.unverified}` }, "unverified") : null,
      s.over ? el("span", { class: "badge over" }, `Game over${view.winner ? `: ${view.winner} wins` : draw && draw.status.result ? `: ${draw.status.result}` : ""}`) : null,
      toAct && !(s.over && toAct.over) ? el("span", { id: "to-act", class: `to-act${toAct.mine && live ? " mine" : ""}`, title: toAct.text },
        live ? toAct.text : `then: ${toAct.text}`) : null);
  }

  // A viewer in words: a seat by its side's name where the view names sides (ASC's scenarios name the
  // advantaged and disadvantaged sides), a crew seat by ship and role; "You: …" for the reader's own.
  /** @param {string | null | undefined} viewer @param {boolean} [me] */
  who(viewer, me = false) {
    const v = String(viewer || "");
    if (v === "umpire") return "Umpire";
    if (v === "spectator" || !v) return "Spectator";
    const seat = v.replace(/^seat:/, "");
    const sides = /** @type {{sides?: unknown}} */ ((this.live && this.live.state) || {}).sides;
    const named = sides && !Array.isArray(sides) && typeof sides === "object"
      ? /** @type {Record<string, {name?: string}>} */ (sides)[seat] : null;
    const words = (named && named.name && named.name !== seat) ? named.name : seatLabel(v);
    return me ? `You: ${words}` : words;
  }

  renderOrders() {
    const s = this.shown;
    if (!s) return;
    const view = /** @type {PageView} */ (s.state || {});
    const live = this.at == null;
    const liveView = /** @type {PageView} */ ((this.live && this.live.state) || view);
    const draw = liveView.draw;
    const note = !live ? `Viewing history (seq ${this.at}). Go back to live to give orders.`
      : !this.token ? "Spectators cannot give orders." : "";
    this.rawBox.hidden = !this.token;
    this.saltBox.hidden = !this.token || s.viewer === "umpire";
    if (!draw) {
      fill(this.statusLine, this.token
        ? `You are ${s.viewer}.${Array.isArray(liveView.done) && liveView.done.length ? ` Done this phase: ${liveView.done.join(", ")}.` : ""}`
        : "Spectating: the public view only.");
      const disabled = this.sending || !live;
      fill(this.commands, note ? el("p", { class: "note" }, note) : null,
        ...(this.token && live ? optionsBlock(this.labelled, { selected: this.selected, disabled, pieceLabel: (id) => id,
          onSend: (cmd, label) => this.sendOrConfirm(cmd, label) }) : []),
        this.token && live && !this.labelled.length ? el("p", { class: "muted" }, "Nothing to do right now.") : null);
      return;
    }
    fill(this.statusLine, statusBox(draw.status, s.viewer, { linked: linkedBattles(liveView), token: this.token,
      who: (seat) => this.who(`seat:${seat}`) }));
    showTurnInTitle(draw.status); // "● Your move" in the tab while the rules await this seat
    const disabled = this.sending || !live;
    const labelOf = (/** @type {string} */ id) => { const p = (draw.pieces || []).find((x) => x.id === id); return p ? p.label : id; };
    /** @type {(HTMLElement | null)[]} */
    const parts = [note ? el("p", { class: "note" }, note) : null, this.token ? treasuryLine(liveView) : null];
    if (this.token && live && this.confirming) parts.push(this.confirmBox(this.confirming));
    if (this.token && live) parts.push(battleOrders(liveView, this.token, { umpire: s.viewer === "umpire", disabled, onStart: (b) => this.startBattle(b) }));
    if (this.token && live) {
      parts.push(...this.forms.map((form) => formBlock(this.drafts, form, {
        selected: this.selected, disabled,
        onChange: (full) => this.onDraft(full),
        onSend: (body, f) => this.send(body, f.label).then((ok) => { if (ok) this.drafts.reset(f); }),
        onShow: (id) => { this.selectPiece(id); this.showMap(); },
      })));
      parts.push(...optionsBlock(this.labelled, { selected: this.selected, disabled, pieceLabel: labelOf,
        onSend: (cmd, label) => this.sendOrConfirm(cmd, label) }));
      if (!this.forms.length && !this.labelled.length) parts.push(el("p", { class: "muted" }, "Nothing to do right now."));
    }
    fill(this.commands, ...parts);
  }

  // The latest rewind in words, for everyone: the umpire's reason is what a seat needs to trust the table.
  renderRewind() {
    const last = [...this.events].reverse().find((e) => e.type === "game.rewound");
    this.rewindNote.hidden = !last;
    if (!last) return;
    const d = /** @type {{to_seq?: number, reason?: string}} */ (last.data || {});
    fill(this.rewindNote, el("strong", {}, "⟲ Rewound: "),
      `the umpire took the game back to seq ${d.to_seq} (at seq ${last.seq}, turn ${last.turn}) — `,
      d.reason ? el("q", { class: "reason" }, d.reason) : el("em", {}, "no reason given"),
      ". The events in between stay in the log, struck through.");
  }

  /** The seqs a rewind superseded: (to_seq, the rewind's seq) of each. @returns {(seq: number) => boolean} */
  supersededSeqs() {
    const spans = this.events.filter((e) => e.type === "game.rewound")
      .map((e) => [Number(/** @type {{to_seq?: number}} */ (e.data || {}).to_seq), e.seq]);
    return (seq) => spans.some(([from, to]) => seq > from && seq < to);
  }

  // The log grows at the end only: a click on an event never rebuilds it (the list keeps its place).
  renderLog() {
    if (this.events.length && this.events[this.events.length - 1].seq < this.logSeq) { clear(this.log); this.logSeq = 0; }
    const unverified = (this.live && this.live.unverified) || null; // the dice of an unverified import vouch for nothing
    for (const e of this.events) {
      if (e.seq <= this.logSeq) continue;
      this.logSeq = e.seq;
      this.log.prepend(el("li", { dataset: { seq: e.seq, type: e.type } },
        el("button", { type: "button", class: "seq-link", "aria-label": `Show the table after event ${e.seq}`, onclick: () => this.scrub(e.seq) }, `#${e.seq}`),
        ` T${e.turn} ${humanize(e.phase)} · `, el("strong", {}, humanize(e.type)), ` ${summarize(e, (a) => this.who(a))}`,
        e.rolls && e.rolls.length ? el("span", { class: "muted" }, ` · ${e.rolls.map((r) => `${r.die}=${r.value}`).join(" ")}`) : null,
        e.rolls && e.rolls.length && unverified ? el("span", { class: "unverified", title: unverified }, " · unverified") : null));
      while (this.log.children.length > 150) this.log.lastChild.remove();
    }
    const superseded = this.supersededSeqs();
    for (const li of /** @type {HTMLCollectionOf<HTMLElement>} */ (this.log.children)) {
      li.classList.toggle("superseded", superseded(Number(li.dataset.seq)));
      if (Number(li.dataset.seq) === this.at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    }
  }

  renderReplay() {
    fill(this.disputes, disputesBlock(this.api, this.gameId, {
      at: this.at, version: this.version(), viewer: this.shown && this.shown.viewer, onError: (err) => this.showRejection(/** @type {Rejection} */ (err), false),
      out: this.disputesOut, onRewound: () => this.goLive(),
    }));
    const open = this.replay.openTurnN;
    const key = [turnStarts(this.events).length, this.events.filter((e) => e.type === "dice.revealed").length,
      open == null ? 0 : this.events.filter((e) => e.turn === open).length].join("|");
    if (key !== this.replayKey) {
      this.replayKey = key;
      this.replay.renderTurns(this.replayBox);
    }
    this.replay.markCurrent(this.replayBox, this.at);
  }


  /** @param {Rejection} err @param {boolean} [toOrders] */
  showRejection(err, toOrders = true) {
    const p = err.problem || {};
    fill(this.rejection,
      el("strong", {}, err.rule ? "Rejected by rule " : err.title || "Error"),
      err.rule ? el("code", { class: "rule" }, err.rule) : null,
      el("p", {}, err.message || p.detail || ""),
      err.field ? el("p", { class: "muted" }, `field: ${err.field}`) : null,
      err.status ? el("p", { class: "muted" }, `${err.status} ${err.title || ""}`) : null);
    this.rejection.hidden = false;
    if (toOrders && this.tab !== "orders" && this.token) this.setTab("orders");
    if (!toOrders) this.disputes.append(this.rejection.cloneNode(true));
  }

  // An order that cannot be taken back (ending a campaign, finishing set-up spending) asks once more first.
  /** @param {Command} cmd @param {string} label */
  sendOrConfirm(cmd, label) {
    const why = confirmFirst(cmd, (this.live && this.live.state) || null, this.mySide);
    if (!why) { this.send(cmd, label); return; }
    this.confirming = { command: cmd, label, why };
    this.setTab("orders");
    this.renderOrders();
    const yes = /** @type {HTMLElement | null} */ (this.commands.querySelector("#confirm-yes"));
    if (yes) { yes.focus({ preventScroll: true }); yes.scrollIntoView({ block: "nearest" }); }
  }

  /** @param {{command: Command, label: string, why: string}} c */
  confirmBox(c) {
    const close = () => { this.confirming = null; this.keepFocus(() => this.renderOrders()); };
    return el("section", { id: "confirm", class: "confirm", role: "group", "aria-labelledby": "confirm-q" },
      el("p", { id: "confirm-q" }, el("strong", {}, `${c.label}?`), ` ${c.why}`),
      el("button", { type: "button", id: "confirm-yes", class: "cmd danger", dataset: { type: c.command.type },
        onclick: () => { this.confirming = null; this.send(c.command, c.label); } }, `Yes: ${c.label}`),
      el("button", { type: "button", id: "confirm-no", class: "cmd", onclick: close }, "Cancel"));
  }

  // The umpire fights a campaign battle as a linked tactical game (FTC-ARR-8); the campaign's event names it.
  /** @param {string} battle */
  async startBattle(battle) {
    if (this.sending) return;
    this.sending = true;
    this.rejection.hidden = true;
    this.flash.textContent = `Starting battle ${battle}…`;
    try {
      await this.api.request("POST", `/v1/games/${encodeURIComponent(this.gameId)}/battles/${encodeURIComponent(battle)}/tactical`);
      this.flash.textContent = `✓ Battle ${battle} is on the table: its players open it from the campaign.`;
    } catch (err) {
      this.flash.textContent = "";
      this.showRejection(err);
    } finally {
      this.sending = false;
    }
    await this.refresh().catch((err) => this.showRejection(err));
  }

  /** The server's words for a command it offered (an option's label), else its type in words.
   * @param {Command} cmd */
  labelFor(cmd) {
    const json = JSON.stringify(cmd);
    const offered = this.labelled.find((o) => JSON.stringify(o.command) === json);
    return offered ? offered.label : humanize(cmd.type);
  }

  /** @param {Command} cmd @param {string | null} [label] @returns {Promise<boolean>} */
  async send(cmd, label = null) {
    if (this.sending) return false;
    this.sending = true;
    this.rejection.hidden = true;
    const words = label || this.labelFor(cmd);
    this.flash.textContent = `Sending: ${words}…`;
    let ok = false;
    try {
      const salt = this.salt.value.trim();
      const res = await this.api.command(this.gameId, cmd, salt);
      this.salt.value = "";
      if (this.cells && this.cells.length) this.board.whole(); // the path is sent: the whole map again
      const n = (res.events || []).length;
      // what happened is in the log and on the map; the event count and version are for the log's readers
      this.flash.textContent = `✓ ${words}`;
      this.flash.title = `${n} event${n === 1 ? "" : "s"} recorded; the game is at version ${res.version}`;
      ok = true;
    } catch (err) {
      this.flash.textContent = "";
      this.showRejection(err);
    } finally {
      this.sending = false;
    }
    this.tray = null;
    // the stream brings the view after it (frames=view); read over HTTP only while the stream is down
    if (this.conn.dataset.state !== "live") await this.refresh().catch((err) => this.showRejection(err));
    else this.render();
    return ok;
  }
}

const SKIP_KEY = "salvo.skipEmptyPhases";
/** whether the page ends phases with nothing to do (on unless this browser's player turned it off) */
function skipEmpty() { try { return localStorage.getItem(SKIP_KEY) !== "off"; } catch { return true; } }
/** @param {boolean} on */
function setSkipEmpty(on) { try { localStorage.setItem(SKIP_KEY, on ? "on" : "off"); } catch { /* private mode */ } }

// The one order left when a seat has nothing to do in a phase but end it: exactly one "phase" option, an end
// or a pass (GSC2's End the … phase or Launch nothing more, ASC's End the … phase, a Starfinder role's Pass),
// beside nothing but orders that may be given any time (a Starfinder role change, "role"); no form. Starting a
// game or beginning the battle is never done for a player.
/** @param {Option[]} options @param {Form[]} forms @returns {Option | null} */
export function onlyEnd(options, forms) {
  if (forms.length) return null;
  const rest = options.filter((o) => o.group !== "role");
  if (rest.length !== 1) return null;
  const o = rest[0];
  const ends = /\.(end_phase|pass)$/.test(o.command.type) && o.group === "phase" && !/^(begin|start)\b/i.test(o.label);
  return ends ? o : null;
}

// "seat:sunrise/pilot" -> "sunrise pilot"
/** @param {string | undefined} viewer */
function seatLabel(viewer) { return humanize(String(viewer || "").replace(/^seat:/, "").replace("/", " ")); }

// A crew's seats by their roles alone when they share a ship (five buttons fit a phone's width).
/** @param {string[]} names viewers */
function shortLabels(names) {
  const ships = new Set(names.map((n) => n.replace(/^seat:/, "").split("/")[0]));
  return ships.size === 1 && names.every((n) => n.includes("/"))
    ? names.map((n) => humanize(n.split("/").slice(1).join(" "))) : names.map(seatLabel);
}

/** @param {Envelope} e @param {(actor: string) => string} who an actor in words */
function summarize(e, who) {
  const d = /** @type {LogData} */ (e.data || {});
  if (e.type.endsWith("ship_moved") && d.path && d.path.length) {
    const last = d.path[d.path.length - 1];
    const [x, y] = Array.isArray(last) ? last : [last.x, last.y];
    return `${d.ship} → (${+Number(x).toFixed(1)}, ${+Number(y).toFixed(1)}) heading ${d.heading}°`;
  }
  if (e.type.endsWith("beam_fired")) return `${d.ship_name || d.ship} ${d.battery} → ${d.target_name || d.target}: ${d.hit ? "hit" : "miss"}`;
  if (e.type === "dice.committed" || e.type === "dice.revealed") return `turn ${d.turn}`;
  if (e.type === "game.rewound") return `back to seq ${d.to_seq}${d.reason ? `: ${d.reason}` : ""}`;
  if (e.type.endsWith("phase_started")) return `${d.phase}`;
  return e.actor ? `(by ${who(e.actor)})` : "";
}
