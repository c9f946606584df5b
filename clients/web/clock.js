// Chess-style clocks (issue 39): each seat's time left, counting down for the seats the game waits for.
// The server keeps the banks (GET /v1/games/{id} → clock); the page counts down locally between reads.
import { el, fill } from "./dom.js";

/** @typedef {{seconds: number, increment: number, running: string[], seconds_left: Record<string, number>}} GameClock */

/** "1:05:09", "4:09", "0:07" @param {number} seconds */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

export class SeatClocks {
  constructor() {
    /** @type {GameClock | null} */
    this.clock = null;
    this.readAt = 0; // Date.now() when ``clock`` was read
    this.root = el("ul", { id: "seat-clocks", class: "seat-clocks", role: "timer", "aria-live": "off", hidden: true });
  }

  /** @param {GameClock | null | undefined} clock the view's clock (null: the game has none) */
  update(clock) {
    this.clock = clock || null;
    this.readAt = Date.now();
    this.tick();
  }

  /** Whether a seat the game waits for is out of time (the service forces its move at once). */
  anyOut() {
    const c = this.clock;
    if (!c) return false;
    const spent = (Date.now() - this.readAt) / 1000;
    return c.running.some((seat) => (c.seconds_left[seat] || 0) - spent <= 0);
  }

  tick() {
    const c = this.clock;
    this.root.hidden = !c;
    if (!c) return;
    const spent = (Date.now() - this.readAt) / 1000;
    fill(this.root, ...Object.entries(c.seconds_left).map(([seat, left]) => {
      const running = c.running.includes(seat);
      const now = running ? left - spent : left;
      return el("li", { dataset: { seat, running: String(running), out: String(now <= 0) } },
        el("b", {}, seat), ` ${clockText(now)}${running ? " ▸" : ""}`);
    }));
  }
}
