// HTTP + websocket access to the Salvo API. No DOM here.
// Types: generated from openapi/openapi.json (clients/types), checked by tsc --checkJs; no build step.
/** @typedef {import("../types/salvo").GameSummary} GameSummary */
/** @typedef {import("../types/salvo").OptionsResponse} OptionsResponse */
/** @typedef {import("../types/salvo").CommandAccepted} CommandAccepted */
/** @typedef {import("../types/salvo").EventsPage} EventsPage */
/** @typedef {import("../types/salvo").TurnReplay} TurnReplay */
/** @typedef {import("../types/salvo").RulesetList} RulesetList */
/** @typedef {import("../types/salvo").ScenarioResponse} ScenarioResponse */
/** @typedef {import("../types/salvo").GameCreated} GameCreated */
/** @typedef {import("../types/salvo").Envelope} Envelope */
/** @typedef {import("../types/salvo").ErrorFrame} ErrorFrame */
/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").Problem} Problem */
/** @typedef {import("../types/salvo").ServerFrame} ServerFrame */
/** @typedef {import("../types/openapi").components["schemas"]["Rewound"]} Rewound */
/** With ?frames=view: the body of GET /v1/games/{id} (without unverified and deadline) and of its /options.
 * @typedef {{game: GameSummary, options: OptionsResponse}} StreamView */
/** A problem+json body as far as the server (or the network) filled it in.
 * @typedef {Partial<Problem>} ProblemLike */

export class ApiError extends Error {
  /** @param {ProblemLike} problem @param {number} status (0: no answer, a network error) */
  constructor(problem, status) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.problem = problem;
    this.status = status;
    this.rule = problem.rule || null;
    this.field = problem.field || null;
    this.title = problem.title || `HTTP ${status}`;
  }
}

export class Api {
  /** @param {string | null} [token] @param {string} [base] */
  constructor(token = null, base = "") {
    this.token = token || null;
    this.base = base;
  }

  /** @param {string} method @param {string} path @param {unknown} [body] sent as JSON when given */
  async request(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    /** @type {RequestInit} */
    const init = { method, headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(this.base + path, init);
    } catch (err) {
      throw new ApiError({ title: "Network error", detail: String(err.message || err) }, 0);
    }
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
    if (!resp.ok) throw new ApiError(data || {}, resp.status);
    return data;
  }

  /** @returns {Promise<RulesetList>} */
  rulesets() { return this.request("GET", "/v1/rulesets"); }
  /** @param {string} ruleset @param {string} name @returns {Promise<ScenarioResponse>} */
  scenario(ruleset, name) {
    return this.request("GET", `/v1/rulesets/${enc(ruleset)}/scenarios/${enc(name)}`);
  }
  /** @param {string} ruleset @param {string} scenario @param {Record<string, unknown>} [options]
   * @returns {Promise<GameCreated>} */
  createGame(ruleset, scenario, options = {}) {
    return this.request("POST", "/v1/games", { ruleset, scenario, options });
  }
  /** @param {string} id @param {number | null} [at] the seq to show (null: live) @returns {Promise<GameSummary>} */
  game(id, at = null) {
    return this.request("GET", `/v1/games/${enc(id)}` + (at == null ? "" : `?at=${at}`));
  }
  /** @param {string} id @returns {Promise<OptionsResponse>} */
  options(id) { return this.request("GET", `/v1/games/${enc(id)}/options`); }
  /** @param {string} id @param {number} [after] @param {number} [limit] @returns {Promise<EventsPage>} */
  events(id, after = 0, limit = 1000) {
    return this.request("GET", `/v1/games/${enc(id)}/events?after=${after}&limit=${limit}`);
  }
  /** @param {string} id @param {number} n @param {string | null} [phase] @returns {Promise<TurnReplay>} */
  turn(id, n, phase = null) {
    return this.request("GET", `/v1/games/${enc(id)}/turns/${n}` + (phase ? `?phase=${enc(phase)}` : ""));
  }
  /** @param {string} id @param {Command} command @param {string} [salt] @returns {Promise<CommandAccepted>} */
  command(id, command, salt = "") {
    return this.request("POST", `/v1/games/${enc(id)}/commands`, salt ? { command, salt } : { command });
  }
  /** @param {string} id @param {number | null} [at] @returns {Promise<GameCreated>} */
  fork(id, at = null) {
    return this.request("POST", `/v1/games/${enc(id)}/fork` + (at == null ? "" : `?at=${at}`));
  }
  /** @param {string} id @param {number} toSeq @param {string} reason @returns {Promise<Rewound>} */
  rewind(id, toSeq, reason) {
    return this.request("POST", `/v1/games/${enc(id)}/rewind`, { to_seq: toSeq, reason });
  }
  // The battle file as text (the caller's envelopes; the token decides what it holds).
  /** @param {string} id @returns {Promise<string>} */
  async exportText(id) {
    const headers = this.token ? { Authorization: `Bearer ${this.token}` } : {};
    const resp = await fetch(this.base + `/v1/games/${enc(id)}/export`, { headers });
    const text = await resp.text();
    if (!resp.ok) { /** @type {ProblemLike} */ let p = {}; try { p = JSON.parse(text); } catch { p = { detail: text }; } throw new ApiError(p, resp.status); }
    return text;
  }
  /** @param {string} text the battle file (JSON lines) @returns {Promise<GameCreated>} */
  importFile(text) {
    return this.requestRaw("POST", "/v1/games/import", text);
  }
  /** @param {string} method @param {string} path @param {string} text sent as application/x-ndjson */
  async requestRaw(method, path, text) {
    const resp = await fetch(this.base + path, { method, headers: { Accept: "application/json", "Content-Type": "application/x-ndjson" }, body: text });
    const body = await resp.text();
    let data = null;
    try { data = body ? JSON.parse(body) : null; } catch { data = { detail: body }; }
    if (!resp.ok) throw new ApiError(data || {}, resp.status);
    return data;
  }
}

/** @param {string | number} s */
function enc(s) { return encodeURIComponent(s); }

// A resumable event stream: reconnects with ?after=<last seq seen> on any drop (code 1013 included).
export class GameStream {
  /**
   * @param {string} gameId
   * @param {string | null} token
   * @param {{onEvent?: (env: Envelope) => void, onCaughtUp?: (seq: number) => void,
   *          onState?: (state: string) => void, onError?: (frame: ErrorFrame) => void,
   *          onView?: (view: StreamView, seq: number) => void,
   *          onSpectatorMessage?: (message: import("../types/salvo").SpectatorMessage) => void}} [handlers]
   * With ``onView`` the stream is opened with ?frames=view: each update's last message carries the
   * viewer's view and options after it (no GET per update; openapi/websocket.md).
   */
  constructor(gameId, token, { onEvent, onCaughtUp, onState, onError, onView, onSpectatorMessage } = {}) {
    this.gameId = gameId;
    this.token = token;
    this.last = 0;
    this.onView = onView || null;
    this.onEvent = onEvent || (() => {});
    this.onCaughtUp = onCaughtUp || (() => {});
    this.onState = onState || (() => {});
    this.onError = onError || (() => {});
    this.onSpectatorMessage = onSpectatorMessage || (() => {});
    this.ws = null;
    this.closed = false;
    this.retry = 0;
    this.timer = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams({ after: String(this.last) });
    if (this.onView) q.set("frames", "view");
    return `${proto}//${location.host}/v1/games/${enc(this.gameId)}/stream?${q}`;
  }

  // The token never goes in the URL (URLs end up in logs): it is offered as a subprotocol, and the
  // server accepts "salvo.v1".
  protocols() {
    return this.token ? ["salvo.v1", `salvo.token.${this.token}`] : ["salvo.v1"];
  }

  open() {
    if (this.closed) return;
    this.onState(this.retry ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url(), this.protocols());
    this.ws = ws;
    ws.onmessage = (msg) => {
      /** @type {ServerFrame} */
      let m;
      try { m = JSON.parse(msg.data); } catch { return; }
      const view = /** @type {{view?: StreamView}} */ (m).view;
      if (m.kind === "event") {
        const env = m.event;
        if (env.seq <= this.last) return; // never a duplicate
        this.last = env.seq;
        this.onEvent(env);
        if (view && this.onView) this.onView(view, env.seq);
      } else if (m.kind === "caught_up") {
        this.last = Math.max(this.last, m.seq);
        this.retry = 0;
        this.onState("live");
        if (view && this.onView) this.onView(view, m.seq);
        else if (!this.onView) this.onCaughtUp(m.seq);
      } else if (m.kind === "error") {
        this.fatal = true;
        this.onError(m);
      } else if (m.kind === "spectator_message") {
        this.onSpectatorMessage(m.message); // the spectators' channel, live (spectators and the umpire)
      }
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (this.fatal || ev.code === 1008) { this.onState("offline"); return; }
      this.retry += 1;
      const delay = ev.code === 1013 ? 50 : Math.min(5000, 250 * 2 ** Math.min(this.retry, 5));
      this.onState("reconnecting");
      this.timer = setTimeout(() => this.open(), delay);
    };
  }

  // Drop the socket as a network failure would (used by the "reconnect" button and tests).
  drop() { if (this.ws) this.ws.close(4000, "client drop"); }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "bye");
    this.ws = null;
    this.onState("offline");
  }
}
