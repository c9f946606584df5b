// The battle page: board, timeline, orders, ship sheet, replay and log, kept live by the stream.
import { el, clear, fill, humanize } from "./dom.js";
import { GameStream } from "./api.js";
import { renderCommands, labelCommand } from "./commands.js";
import { renderGsc2, gsc2Pieces } from "./table-gsc2.js";
import { renderHex, hexPieces, hexItems } from "./hexmap.js";
import { renderStarmap } from "./starmap.js";
import { renderPanel } from "./panel.js";
import { seatShipId, starfinderToAct } from "./starfinder-ui.js";
import { renderTimeline, ReplayPanel, turnStarts } from "./replay.js";

const TABS = [["orders", "Orders"], ["ship", "Ship"], ["replay", "Replay"], ["log", "Log"]];

function kindOf(view) {
  if (!view || typeof view !== "object") return "none";
  if (view.ruleset === "gsc2" || (view.table && Array.isArray(view.ships))) return "gsc2";
  if (view.map && Array.isArray(view.map.worlds) && Array.isArray(view.players)) return "starmap"; // ftcampaign
  if (view.map_radius != null || hexItems(view).length) return "hex";
  return "generic";
}

export class GameView {
  constructor(root, api, gameId, token, { onLeave }) {
    this.root = root;
    this.api = api;
    this.gameId = gameId;
    this.token = token;
    this.onLeave = onLeave;
    this.events = [];
    this.live = null; // the summary now
    this.shown = null; // the summary displayed (live or ?at=)
    this.at = null; // null = live
    this.options = [];
    this.selected = null;
    this.tab = token ? "orders" : "ship";
    this.sending = false;
    this.refreshTimer = null;
    this.replayKey = "";
    this.replay = new ReplayPanel(api, gameId, {
      getEvents: () => this.events,
      onShowSeq: (seq) => this.scrub(seq),
    });
  }

  get mySide() {
    const v = (this.live && this.live.viewer) || "";
    return v.startsWith("seat:") ? v.slice(5) : null;
  }

  layout() {
    clear(this.root);
    this.conn = el("span", { id: "conn", class: "conn", dataset: { state: "connecting" } }, "connecting");
    this.head = el("div", { class: "game-info" });
    const bar = el("header", { class: "gamebar" },
      el("button", { type: "button", class: "small", id: "to-lobby", onclick: () => this.onLeave() }, "← Lobby"),
      this.head, this.conn);
    this.board = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.board.id = "board";
    this.board.setAttribute("role", "img");
    this.board.setAttribute("aria-label", "Battle map");
    this.board.addEventListener("click", () => this.hideChooser());
    this.generic = el("pre", { id: "generic-state", hidden: true });
    this.chooser = el("div", { id: "chooser", class: "chooser", hidden: true });
    this.zoom = 1;
    const zoomBtn = (label, title, f) => el("button", { type: "button", class: "small", title, "aria-label": title,
      onclick: (e) => { e.stopPropagation(); this.zoom = Math.max(1, Math.min(6, f(this.zoom))); this.applyZoom(); } }, label);
    this.zoomCtl = el("div", { class: "zoom-ctl" }, zoomBtn("+", "Zoom in (on the selected piece)", (z) => z * 1.6),
      zoomBtn("−", "Zoom out", (z) => z / 1.6), zoomBtn("⤢", "Whole map", () => 1));
    this.timeline = el("div", { id: "timeline", class: "timeline" });
    this.tabs = el("nav", { class: "tabs", role: "tablist" }, ...TABS.map(([id, label]) => el("button", {
      type: "button", role: "tab", id: `tab-${id}`, dataset: { tab: id }, onclick: () => this.setTab(id),
    }, label)));
    this.sections = Object.fromEntries(TABS.map(([id]) => [id, el("section", { id: `pane-${id}`, class: "pane", role: "tabpanel" })]));
    this.statusLine = el("div", { id: "status-line", class: "status-line" });
    this.rejection = el("div", { id: "rejection", class: "rejection", role: "alert", hidden: true });
    this.flash = el("div", { id: "flash", class: "flash", "aria-live": "polite" });
    this.commands = el("div", { id: "commands" });
    const raw = el("textarea", { id: "raw-command", rows: 3, placeholder: '{"type": "gsc2.end_phase", "side": "red"}' });
    this.rawBox = el("details", { class: "raw" }, el("summary", {}, "Send a command as JSON"), raw,
      el("button", { type: "button", id: "send-raw", onclick: () => {
        let cmd;
        try { cmd = JSON.parse(raw.value); } catch (err) { this.showRejection({ title: "Not JSON", message: err.message }); return; }
        this.send(cmd);
      } }, "Send"));
    this.sections.orders.append(this.statusLine, this.rejection, this.flash, this.commands, this.rawBox);
    this.log = el("ol", { id: "log", class: "log", reversed: true });
    this.sections.log.append(this.log);
    const panel = el("aside", { class: "panel" }, this.tabs, ...Object.values(this.sections));
    this.root.append(el("div", { class: "game" }, bar,
      el("main", { class: "battle" },
        el("div", { class: "board-col" }, el("div", { class: "board-wrap" }, this.board, this.generic, this.chooser, this.zoomCtl), this.timeline),
        panel)));
    this.setTab(this.tab);
  }

  setTab(id) {
    this.tab = id;
    for (const b of this.tabs.children) b.setAttribute("aria-selected", String(b.dataset.tab === id));
    for (const [k, s] of Object.entries(this.sections)) s.hidden = k !== id;
    if (id === "replay") { this.replayKey = ""; this.renderReplay(); }
  }

  async start() {
    this.layout();
    try {
      await this.refresh();
    } catch (err) {
      fill(this.root, el("section", { class: "card" }, el("h2", {}, "Cannot open this game"),
        el("p", { class: "error" }, `${err.title || "Error"}: ${err.message}`),
        el("button", { type: "button", onclick: () => this.onLeave() }, "Back to the lobby")));
      return;
    }
    this.stream = new GameStream(this.gameId, this.token, {
      onEvent: (env) => { this.events.push(env); this.scheduleRefresh(); },
      onCaughtUp: () => this.scheduleRefresh(0),
      onState: (s) => { this.conn.dataset.state = s; this.conn.textContent = s; },
      onError: (m) => this.showRejection({ title: m.title || "Stream error", message: m.detail || "" }),
    });
    this.stream.open();
  }

  stop() { if (this.stream) this.stream.close(); clearTimeout(this.refreshTimer); }

  scheduleRefresh(delay = 60) {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.refresh().catch((err) => this.showRejection(err)), delay);
  }

  async refresh() {
    const [summary, options] = await Promise.all([
      this.api.game(this.gameId),
      this.token ? this.api.options(this.gameId).catch(() => ({ commands: [] })) : Promise.resolve({ commands: [] }),
    ]);
    this.live = summary;
    this.options = (options.options || []).map((o) => o.command);
    if (this.at == null) this.shown = summary;
    if (this.selected == null) this.pickDefault();
    this.render();
  }

  pickDefault() {
    const view = this.live && this.live.state;
    const ships = view && Array.isArray(view.ships) ? view.ships : [];
    const crewed = seatShipId(this.mySide); // a Starfinder seat "ship/role" crews that ship
    const mine = (crewed && ships.find((s) => s.id === crewed))
      || ships.find((s) => s.side === this.mySide && s.status === "active");
    if (mine) this.selected = mine.id;
  }

  async scrub(seq) {
    const version = this.version();
    if (seq >= version) { this.goLive(); return; }
    try {
      const shown = await this.api.game(this.gameId, seq);
      this.at = seq;
      this.shown = shown;
      this.render();
    } catch (err) { this.showRejection(err); }
  }

  goLive() {
    this.at = null;
    this.shown = this.live;
    this.render();
  }

  version() { return Math.max((this.live && this.live.version) || 0, this.stream ? this.stream.last : 0); }

  pieces(view) {
    const kind = kindOf(view);
    if (kind === "gsc2") return gsc2Pieces(view);
    if (kind === "hex") return hexPieces(view);
    return [];
  }

  render() {
    const s = this.shown;
    if (!s) return;
    const view = s.state || {};
    const live = this.at == null;
    const ctx = {
      viewer: s.viewer, selected: this.selected, options: live ? this.options : [], events: this.events, at: s.at,
      label: (cmd) => labelCommand(cmd, view),
      onSelect: (id) => { this.selected = id; this.hideChooser(); this.render(); },
      onCommand: (cmd) => this.send(cmd),
      onChoose: (cmds, title) => this.showChooser(cmds, title, view),
    };
    const kind = kindOf(view);
    this.board.style.display = kind === "generic" ? "none" : "";
    this.generic.hidden = kind !== "generic";
    if (kind === "gsc2") renderGsc2(this.board, view, ctx);
    else if (kind === "hex") renderHex(this.board, view, ctx);
    else if (kind === "starmap") renderStarmap(this.board, view, ctx);
    else this.generic.textContent = JSON.stringify(view, null, 2);
    this.zoomCtl.hidden = kind === "generic";
    this.applyZoom();

    const me = this.mySide;
    const toAct = view.to_act != null
      ? (view.to_act ? { text: view.to_act === me ? "Your move" : `${view.to_act} to act`, mine: view.to_act === me } : null)
      : (Array.isArray(view.awaiting) || view.acting_ship) && !s.over ? starfinderToAct(view, s.viewer) : null;
    fill(this.head,
      el("strong", {}, `${s.ruleset} · ${this.gameId}`),
      el("span", { id: "viewer", class: "viewer" }, s.viewer),
      el("span", { id: "clock" }, `Turn ${s.turn} · ${humanize(s.phase)}`),
      s.over ? el("span", { class: "badge over" }, `Game over${view.winner ? `: ${view.winner} wins` : ""}`) : null,
      toAct ? el("span", { id: "to-act", class: `to-act${toAct.mine ? " mine" : ""}` }, toAct.text) : null);

    renderTimeline(this.timeline, {
      version: this.version(), at: this.at, events: this.events, turn: s.turn, phase: s.phase,
      onScrub: (seq) => this.scrub(seq), onLive: () => this.goLive(),
    });

    const piece = kind === "gsc2" ? (view.ships || []).find((x) => x.id === this.selected)
      : kind === "hex" ? hexItems(view).find((x) => x.id === this.selected) : null;
    renderPanel(this.sections.ship, view, piece || null, this.pieces(view), ctx.onSelect, { viewer: s.viewer });

    const liveView = (this.live && this.live.state) || view;
    fill(this.statusLine, this.token
      ? `You are ${s.viewer}.${Array.isArray(liveView.done) && liveView.done.length ? ` Done this phase: ${liveView.done.join(", ")}.` : ""}`
      : "Spectating: the public view only.");
    const note = !live ? `Viewing history (seq ${this.at}). Go back to live to give orders.`
      : !this.token ? "Spectators cannot give orders." : "";
    renderCommands(this.commands, this.token && live ? this.options : [], liveView, (cmd) => this.send(cmd),
      { selected: this.selected, disabled: this.sending || !live, note });
    this.rawBox.hidden = !this.token;
    this.renderLog();
    if (this.tab === "replay") this.renderReplay();
  }

  // Zoom the board's viewBox around the selected piece (or the centre), kept inside the map.
  applyZoom() {
    const full = (this.board.dataset.full || this.board.getAttribute("viewBox") || "").split(/\s+/).map(Number);
    if (full.length !== 4 || full.some((n) => !isFinite(n))) return;
    this.board.dataset.full = full.join(" ");
    if (this.zoom <= 1) { this.board.setAttribute("viewBox", full.join(" ")); return; }
    const [x0, y0, w0, h0] = full;
    let cx = x0 + w0 / 2, cy = y0 + h0 / 2;
    const sel = this.board.querySelector("g.ship.selected");
    const m = sel && /translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)/.exec(sel.getAttribute("transform") || "");
    if (m) { cx = Number(m[1]); cy = Number(m[2]); }
    const w = w0 / this.zoom, h = h0 / this.zoom;
    const x = Math.min(Math.max(cx - w / 2, x0), x0 + w0 - w);
    const y = Math.min(Math.max(cy - h / 2, y0), y0 + h0 - h);
    this.board.setAttribute("viewBox", `${x} ${y} ${w} ${h}`);
  }

  renderLog() {
    const items = this.events.slice(-150).reverse().map((e) => el("li", { dataset: { seq: e.seq, type: e.type } },
      el("button", { type: "button", class: "seq-link", onclick: () => this.scrub(e.seq) }, `#${e.seq}`),
      ` T${e.turn} ${e.phase} · `, el("strong", {}, humanize(e.type)), ` ${summarize(e)}`,
      e.rolls && e.rolls.length ? el("span", { class: "muted" }, ` · ${e.rolls.map((r) => `${r.die}=${r.value}`).join(" ")}`) : null));
    fill(this.log, ...items);
  }

  renderReplay() {
    const open = this.replay.openTurnN;
    const key = [turnStarts(this.events).length, this.events.filter((e) => e.type === "dice.revealed").length,
      open == null ? 0 : this.events.filter((e) => e.turn === open).length].join("|");
    if (key === this.replayKey) return;
    this.replayKey = key;
    this.replay.renderTurns(this.sections.replay);
  }

  showChooser(cmds, title, view) {
    fill(this.chooser, el("h4", {}, title),
      ...cmds.map((c) => el("button", { type: "button", class: "cmd", dataset: { type: c.type, cmd: JSON.stringify(c) },
        onclick: () => { this.hideChooser(); this.send(c); } }, labelCommand(c, view))),
      el("button", { type: "button", class: "small", onclick: () => this.hideChooser() }, "Cancel"));
    this.chooser.hidden = false;
  }

  hideChooser() { this.chooser.hidden = true; }

  showRejection(err) {
    const p = err.problem || {};
    fill(this.rejection, 
      el("strong", {}, err.rule ? `Rejected by ${err.rule}` : err.title || "Error"),
      err.rule ? el("code", { class: "rule" }, err.rule) : null,
      el("p", {}, err.message || p.detail || ""),
      err.field ? el("p", { class: "muted" }, `field: ${err.field}`) : null,
      err.status ? el("p", { class: "muted" }, `${err.status} ${err.title || ""}`) : null);
    this.rejection.hidden = false;
    if (this.tab !== "orders" && this.token) this.setTab("orders");
  }

  async send(cmd) {
    if (this.sending) return;
    this.sending = true;
    this.rejection.hidden = true;
    const view = (this.live && this.live.state) || {};
    this.flash.textContent = `Sending: ${labelCommand(cmd, view)}…`;
    try {
      const res = await this.api.command(this.gameId, cmd);
      this.flash.textContent = `✓ ${labelCommand(cmd, view)} (${(res.events || []).length} event(s), now v${res.version})`;
    } catch (err) {
      this.flash.textContent = "";
      this.showRejection(err);
    } finally {
      this.sending = false;
    }
    await this.refresh().catch((err) => this.showRejection(err));
  }
}

function summarize(e) {
  const d = e.data || {};
  if (e.type.endsWith("ship_moved") && d.path && d.path.length) {
    const [x, y] = d.path[d.path.length - 1];
    return `${d.ship} → (${+x.toFixed(1)}, ${+y.toFixed(1)}) heading ${d.heading}°`;
  }
  if (e.type.endsWith("beam_fired")) return `${d.ship_name || d.ship} ${d.battery} → ${d.target_name || d.target}: ${d.hit ? "hit" : "miss"}`;
  if (e.type === "dice.committed" || e.type === "dice.revealed") return `turn ${d.turn}`;
  if (e.type.endsWith("phase_started")) return `${d.phase}`;
  return e.actor ? `(${e.actor})` : "";
}

