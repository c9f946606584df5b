// Turn alerts on the open page (issue 40): when the rules come to await this page's seat, and the player
// allowed it on this device, a system notification (the Notification API) and a short sound. Allowed
// from the lobby's "My games" card (a click: browsers ask for the permission only on a user's gesture);
// kept per browser. A page the player is looking at (visible and focused) only changes its title
// (title.js): the alert is for the game left in a background tab or window. With the page closed, Web
// Push brings the notification instead (pushToThisDevice: the lobby's "Push to this device"; sw.js).

const PREF = "salvo.turnAlerts";

/** Whether the player turned alerts on in this browser. */
export function turnAlertsWanted() {
  try { return localStorage.getItem(PREF) === "on"; } catch { return false; }
}

/** Whether the browser lets the page show notifications now. */
export function notificationsAllowed() {
  return typeof Notification === "function" && Notification.permission === "granted";
}

/** Turn alerts on (asking for the permission) or off. @param {boolean} on @returns {Promise<string>} the permission */
export async function setTurnAlerts(on) {
  let permission = typeof Notification === "function" ? Notification.permission : "unsupported";
  if (on && permission === "default") permission = await Notification.requestPermission();
  try {
    if (on) localStorage.setItem(PREF, "on"); else localStorage.removeItem(PREF);
  } catch { /* private mode: nothing kept */ }
  return permission;
}

/** @type {AudioContext | null} */
let audio = null;

/** A short two-note chime (no file to fetch). Browsers may keep audio silent until the page had a gesture. */
function chime() {
  const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Ctx) return;
  try {
    audio = audio || new Ctx();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const start = audio.currentTime;
    for (const [i, freq] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, start + i * 0.18);
      gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.18 + 0.16);
      osc.connect(gain).connect(audio.destination);
      osc.start(start + i * 0.18);
      osc.stop(start + i * 0.18 + 0.17);
    }
  } catch { /* no sound: the notification and the title still say it */ }
}

/**
 * It has become this page's turn: tell the player, if they allowed it and are not looking at the page.
 * @param {string} title the page's title (the game)
 * @param {string} why the ruleset's words for what is awaited
 * @param {Document} doc
 * @returns {boolean} whether an alert was given
 */
export function tellYourTurn(title, why, doc = document) {
  if (!turnAlertsWanted()) return false;
  if (doc.visibilityState === "visible" && doc.hasFocus()) return false;
  if (notificationsAllowed()) {
    try {
      const note = new Notification("Your move", { body: why ? `${title}: ${why}` : title, tag: "salvo-your-turn", icon: "/static/icon.svg" });
      note.onclick = () => { window.focus(); note.close(); };
    } catch { /* a browser that only notifies from a service worker: the sound still plays */ }
  }
  chime();
  return true;
}

/** @param {string} text base64url @returns {ArrayBuffer} */
function fromB64url(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out.buffer;
}

/** Whether this browser can receive Web Push at all (a service worker and a push manager). */
export function pushAvailable() {
  return typeof navigator !== "undefined" && "serviceWorker" in navigator && typeof window.PushManager === "function"
    && window.isSecureContext;
}

/** The page's service worker (sw.js), registered once, once it is active. Its scope is /static/ (where it
 * is served): it controls no page, it only receives pushes, so serviceWorker.ready (a registration for
 * this page's scope) is never the way to wait for it. */
export async function serviceWorker() {
  const registration = await navigator.serviceWorker.register("/static/sw.js");
  const worker = registration.installing || registration.waiting;
  if (worker && !registration.active) {
    await new Promise((resolve) => {
      worker.addEventListener("statechange", () => { if (worker.state === "activated" || worker.state === "redundant") resolve(null); });
    });
  }
  return registration;
}

/**
 * Web Push to this device: the browser subscribes with the server's VAPID key, and the player's
 * subscription (kind webpush) is made with the personal key. The service worker shows what arrives.
 * @param {import("./api.js").Api} api the player's (its token the personal key)
 */
export async function pushToThisDevice(api) {
  if (typeof Notification === "function" && Notification.permission === "default") await Notification.requestPermission();
  const registration = await serviceWorker();
  const { public_key } = await api.request("GET", "/v1/push/key");
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64url(public_key) });
  const json = subscription.toJSON();
  return api.request("POST", "/v1/players/me/subscriptions", { kind: "webpush", url: json.endpoint, keys: json.keys });
}
