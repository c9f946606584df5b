// Dice verification in the browser: sha256(seed) == commitment, and every roll of the turn recomputed
// as service/domain/core/dice.py derive_face does (HMAC-SHA256, rejection sampling over 32-bit words).
// Uses crypto.subtle when the page is a secure context, a small pure-JS SHA-256 otherwise.

/** @typedef {import("../types/salvo").Envelope} Envelope */
/** @template {Envelope["type"]} T @typedef {import("../types/salvo").EventOf<T>} EventOf */
/** A turn seed as an HMAC key: crypto.subtle's, or the raw bytes for the pure-JS HMAC.
 * @typedef {CryptoKey | {raw: Bytes}} SeedKey */
/** @typedef {{seq: number, i: number, expected: number, recorded: number}} BadRoll */
/** Bytes on an ArrayBuffer (what crypto.subtle takes). @typedef {Uint8Array<ArrayBuffer>} Bytes */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** @param {Bytes} bytes @returns {Bytes} */
export function sha256js(bytes) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const len = bytes.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const buf = new Uint8Array(total);
  buf.set(bytes);
  buf[len] = 0x80;
  const view = new DataView(buf.buffer);
  view.setUint32(total - 8, Math.floor(len / 0x20000000));
  view.setUint32(total - 4, (len * 8) >>> 0);
  const w = new Uint32Array(64);
  const rotr = (/** @type {number} */ x, /** @type {number} */ n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) ov.setUint32(i * 4, h[i]);
  return out;
}

/** @param {Bytes} key @param {Bytes} msg */
export function hmacjs(key, msg) {
  let k = key.length > 64 ? sha256js(key) : key;
  const pad = (/** @type {number} */ x) => { const p = new Uint8Array(64).fill(x); for (let i = 0; i < k.length; i++) p[i] ^= k[i]; return p; };
  const cat = (/** @type {Bytes} */ a, /** @type {Bytes} */ b) => { const c = new Uint8Array(a.length + b.length); c.set(a); c.set(b, a.length); return c; };
  return sha256js(cat(pad(0x5c), sha256js(cat(pad(0x36), msg))));
}

const subtle = globalThis.crypto && globalThis.crypto.subtle;

/** @param {Bytes} bytes @returns {Promise<Bytes>} */
export async function sha256(bytes) {
  if (subtle) return new Uint8Array(await subtle.digest("SHA-256", bytes));
  return sha256js(bytes);
}

/** @param {Bytes} seed @returns {Promise<SeedKey>} */
export async function hmacKey(seed) {
  if (!subtle) return { raw: seed };
  return subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** @param {SeedKey} key @param {Bytes} msg @returns {Promise<Bytes>} */
async function hmac(key, msg) {
  if ("raw" in key) return hmacjs(key.raw, msg);
  return new Uint8Array(await subtle.sign("HMAC", key, msg));
}

/** @param {string} hex */
export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

/** @param {Uint8Array} bytes */
export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// derive_face(seed, game_id, base_seq, i, sides, salt) of service/domain/core/dice.py
/** @param {SeedKey} key @param {string} gameId @param {number} base @param {number} i @param {number} sides
 * @param {string} [salt] @returns {Promise<number>} */
export async function deriveFace(key, gameId, base, i, sides, salt = "") {
  const limit = 2 ** 32 - (2 ** 32 % sides);
  const enc = new TextEncoder();
  for (let counter = 0; counter < 64; counter++) {
    const digest = await hmac(key, enc.encode(`${gameId}|${base}|${i}|${salt}|${counter}`));
    const dv = new DataView(digest.buffer);
    for (let off = 0; off < 32; off += 4) {
      const word = dv.getUint32(off);
      if (word < limit) return (word % sides) + 1;
    }
  }
  throw new Error("no face after 64 rounds");
}

// A roll's face from its turn seed: by slot (current games: the slot's own key, HMAC-SHA256(seed,
// "salvo-slot|turn|slot"), then derive_face(key, game, turn, slot, ...)), or by base seq (older games).
/** @param {Bytes} seed @param {SeedKey} seedKey @param {Envelope} env @param {number} i @param {number} sides */
async function rollFace(seed, seedKey, env, i, sides) {
  const d = env.dice;
  const salt = (Array.isArray(d.salts) && i < d.salts.length ? d.salts[i] : d.salt) || "";
  if (d.slot == null) return deriveFace(seedKey, env.game_id, d.base, i, sides, salt);
  const slot = d.slot + i;
  const slotKey = await hmac(seedKey, new TextEncoder().encode(`salvo-slot|${d.turn}|${slot}`));
  return deriveFace(await hmacKey(slotKey), env.game_id, d.turn, slot, sides, salt);
}

// Verify one turn. events: every envelope the viewer has. Returns
// {status: "verified"|"mismatch"|"pending"|"unknown", checked, bad:[...], commitmentOk, message}
/** @param {Envelope[]} events @param {number} turn */
export async function verifyTurn(events, turn) {
  const committed = /** @type {EventOf<"dice.committed"> | undefined} */ (
    events.find((e) => e.type === "dice.committed" && e.data && e.data.turn === turn));
  const revealed = /** @type {EventOf<"dice.revealed"> | undefined} */ (
    events.find((e) => e.type === "dice.revealed" && e.data && e.data.turn === turn));
  // hidden-information games withhold each seed ("") until the game ends and discloses them all then
  const disclosed = /** @type {EventOf<"dice.disclosed"> | undefined} */ (
    events.find((e) => e.type === "dice.disclosed" && e.data && "seeds" in e.data));
  const seeds = /** @type {Record<string, string>} */ (disclosed ? disclosed.data.seeds : {}); // turn -> seed hex
  const seedHex = (revealed && revealed.data.seed) || seeds[String(turn)];
  if (!seedHex) {
    const message = revealed ? "seed withheld until the game ends (hidden information)" : "seed not revealed yet";
    return { status: "pending", checked: 0, bad: /** @type {BadRoll[]} */ ([]), message };
  }
  const seed = hexToBytes(String(seedHex));
  let commitmentOk = null;
  if (committed) commitmentOk = bytesToHex(await sha256(seed)) === committed.data.commitment;
  const key = await hmacKey(seed);
  /** @type {BadRoll[]} */
  const bad = [];
  let checked = 0;
  for (const env of events) {
    if (!env.rolls || !env.rolls.length || !env.dice || env.dice.turn !== turn) continue;
    for (const roll of env.rolls) {
      const sides = parseInt(String(roll.die).replace(/^d/, ""), 10);
      if (!(sides > 0)) continue;
      const face = await rollFace(seed, key, env, roll.i, sides);
      checked += 1;
      if (face !== roll.value) bad.push({ seq: env.seq, i: roll.i, expected: face, recorded: roll.value });
    }
  }
  const ok = commitmentOk !== false && bad.length === 0;
  const message = ok
    ? `sha256(seed) ${commitmentOk ? "matches the commitment" : "(commitment not visible)"}; ${checked} roll(s) recomputed`
    : commitmentOk === false ? "seed does not match the commitment" : `${bad.length} roll(s) differ`;
  return { status: ok ? "verified" : "mismatch", checked, bad, commitmentOk, message };
}
