// Passkeys (issue 40): bind a passkey to the player's identity ("Add a passkey", with the personal key this
// browser keeps), and sign in with one on a device that holds it ("Sign in with a passkey": the server
// answers with a new personal key for this device). WebAuthn needs a secure context (https, or
// http://localhost); the server checks every answer against a single-use challenge (service/events/passkeys.py).
import { Api } from "./api.js";

/** @typedef {import("../types/salvo").PasskeyOptions} PasskeyOptions */
/** @typedef {import("../types/salvo").PasskeyInfo} PasskeyInfo */
/** @typedef {import("../types/salvo").PasskeySession} PasskeySession */

/** @param {string} text base64url @returns {ArrayBuffer} */
function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out.buffer;
}

/** @param {ArrayBuffer | null | undefined} buf @returns {string | undefined} */
function toB64url(buf) {
  if (!buf) return undefined;
  let raw = "";
  for (const b of new Uint8Array(buf)) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {any} list */
function descriptors(list) {
  return (list || []).map((/** @type {any} */ d) => ({ ...d, id: fromB64url(d.id) }));
}

/** The server's JSON options as navigator.credentials.create takes them. @param {any} json */
function creationOptions(json) {
  return { ...json, challenge: fromB64url(json.challenge), user: { ...json.user, id: fromB64url(json.user.id) },
    excludeCredentials: descriptors(json.excludeCredentials) };
}

/** The server's JSON options as navigator.credentials.get takes them. @param {any} json */
function requestOptions(json) {
  return { ...json, challenge: fromB64url(json.challenge), allowCredentials: descriptors(json.allowCredentials) };
}

/** A PublicKeyCredential as the server reads it (PublicKeyCredential.toJSON's shape). @param {any} cred */
function credentialJSON(cred) {
  const r = cred.response;
  /** @type {Record<string, unknown>} */
  const response = { clientDataJSON: toB64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64url(r.attestationObject);
    if (typeof r.getTransports === "function") response.transports = r.getTransports();
  } else {
    response.authenticatorData = toB64url(r.authenticatorData);
    response.signature = toB64url(r.signature);
    if (r.userHandle) response.userHandle = toB64url(r.userHandle);
  }
  return { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response,
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    clientExtensionResults: typeof cred.getClientExtensionResults === "function" ? cred.getClientExtensionResults() : {} };
}

/** Whether this page may use passkeys at all. */
export function passkeysAvailable() {
  return typeof window !== "undefined" && window.isSecureContext && typeof window.PublicKeyCredential === "function"
    && Boolean(navigator.credentials);
}

function deviceLabel() {
  return (navigator.userAgent || "device").slice(0, 60);
}

/** Bind a new passkey to the player whose personal key is given. @param {string} key @returns {Promise<PasskeyInfo>} */
export async function addPasskey(key) {
  const api = new Api(key);
  const { challenge_id, public_key } = /** @type {PasskeyOptions} */ (await api.request("POST", "/v1/players/me/passkeys/options", {}));
  const cred = await navigator.credentials.create({ publicKey: creationOptions(public_key) });
  if (!cred) throw new Error("no passkey was made");
  return api.request("POST", "/v1/players/me/passkeys", { challenge_id, credential: credentialJSON(cred), label: deviceLabel() });
}

/** Sign in with a passkey this device holds: a new personal key for this device. @returns {Promise<PasskeySession>} */
export async function signInWithPasskey() {
  const api = new Api();
  const { challenge_id, public_key } = /** @type {PasskeyOptions} */ (await api.request("POST", "/v1/passkeys/login/options", {}));
  const cred = await navigator.credentials.get({ publicKey: requestOptions(public_key) });
  if (!cred) throw new Error("no passkey was chosen");
  return api.request("POST", "/v1/passkeys/login", { challenge_id, credential: credentialJSON(cred), label: deviceLabel() });
}
