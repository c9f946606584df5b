// Keyboard focus survives a re-render. The page rebuilds the map and the orders pane on every change;
// without this a keyboard user would be thrown back to the top of the page after each key that changes
// something (a leg added, a piece selected, an order sent). Before a rebuild we note what has focus, by
// what identifies it rather than by node (its id, the piece or hex it stands for, its name inside the
// form/piece/group it belongs to); afterwards we focus the same control, or failing that the nearest
// control left in the same place.

const FOCUSABLE = "button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), "
  + "a[href], [tabindex]:not([tabindex='-1'])";
// containers whose identity survives a rebuild, innermost first when read from a control upwards
const SCOPE_ATTRS = ["data-command", "data-piece", "data-i", "data-group"];
const SCOPES = "section.form, .pc, .leg, .cmd-group, .by-piece, #tray, #chooser, #board, #commands, #timeline, .tabs, .map-tools, .pane";
// what identifies a map element: the piece, world or hex it stands for
const KEY_ATTRS = ["data-id", "data-q", "data-r", "data-handle", "data-tab", "data-type"];

/** @param {string} s */
const esc = (s) => (typeof CSS !== "undefined" && CSS.escape ? CSS.escape(s) : String(s).replace(/["\\]/g, "\\$&"));

/** @param {Element} n */
export function accessibleName(n) {
  const labels = /** @type {HTMLInputElement} */ (n).labels;
  return (n.getAttribute("aria-label") || (labels && labels.length ? labels[0].textContent : "")
    || n.textContent || n.getAttribute("title") || "").trim();
}

/** @param {Element} n */
function scopeSelector(n) {
  if (n.id) return `#${esc(n.id)}`;
  const cls = n.classList.length ? `.${esc(n.classList[0])}` : "";
  const attrs = SCOPE_ATTRS.filter((a) => n.hasAttribute(a)).map((a) => `[${a}="${esc(n.getAttribute(a))}"]`).join("");
  return `${n.tagName.toLowerCase()}${cls}${attrs}`;
}

/** What identifies a focused control across a rebuild (focusKey), for restoreFocus.
 * @typedef {{node: Element, id: string, tag: string, cls: string, attrs: string, name: string, scopes: string[]}} FocusKey */

/** What has focus inside `root`, as something to find again after a rebuild (null: nothing to keep).
 * @param {Element} root @returns {FocusKey | null} */
export function focusKey(root) {
  const a = document.activeElement;
  if (!a || a === document.body || !root.contains(a)) return null;
  /** @type {string[]} */
  const scopes = [];
  for (let n = a.parentElement; n && n !== root; n = n.parentElement) if (n.matches(SCOPES)) scopes.unshift(scopeSelector(n));
  const attrs = KEY_ATTRS.filter((k) => a.hasAttribute(k)).map((k) => `[${k}="${esc(a.getAttribute(k))}"]`).join("");
  return { node: a, id: a.id, tag: a.tagName.toLowerCase(), cls: a.classList[0] || "", attrs, name: accessibleName(a), scopes };
}

// a stand-in is never a text field: on a phone its focus would open the on-screen keyboard
/** @param {Element} n */
const typing = (n) => n.matches("textarea, input:not([type=checkbox]):not([type=radio]):not([type=range])");
/** @param {Element} n */
const shown = (n) => n.getClientRects().length > 0 && !n.closest("[hidden]");

/** Focus the control `key` noted, or its nearest stand-in; `fallback` (a selector) when its place is gone.
 * @param {Element} root @param {FocusKey | null} key @param {string | null} [fallback]
 * @returns {string | void} "wait" when the control is there but disabled for now */
export function restoreFocus(root, key, fallback = null) {
  if (!key || (document.activeElement === key.node && key.node.isConnected)) return;
  if (document.activeElement && document.activeElement !== document.body && document.activeElement !== key.node) return; // moved on
  /** @param {Element | null | undefined} n */
  const put = (n) => { if (n) /** @type {HTMLElement} */ (n).focus({ preventScroll: true }); };
  const byId = key.id && document.getElementById(key.id);
  if (byId && shown(byId)) { put(byId); return; }
  // the innermost container still there
  let scope = root;
  /** @type {Element[]} */
  const placed = [];
  for (const sel of key.scopes) {
    const next = (placed.at(-1) || root).querySelector(sel);
    if (!next) break;
    placed.push(next);
  }
  for (scope of [...placed].reverse().concat([root])) {
    // the very control, disabled while an order is on its way: wait for the next rebuild (returns "wait")
    if (scope === placed.at(-1) && [...scope.querySelectorAll(`${key.tag}:disabled${key.attrs}`)]
      .some((n) => accessibleName(n) === key.name)) return "wait";
    const all = [...scope.querySelectorAll(FOCUSABLE)].filter(shown);
    const same = all.filter((n) => n.tagName.toLowerCase() === key.tag);
    /** @param {Element} n */
    const cls = (n) => !key.cls || n.classList.contains(key.cls);
    const keyed = key.attrs ? same.filter((n) => n.matches(key.attrs) && cls(n)) : [];
    const hit = keyed.find((n) => accessibleName(n) === key.name) || keyed[0]
      || same.find((n) => accessibleName(n) === key.name && cls(n))
      || (scope !== root ? same.find((n) => cls(n) && !typing(n)) || all.find((n) => !typing(n)) : null);
    if (hit) { put(hit); return; }
    if (scope === placed[0] && fallback) break;
  }
  const fb = fallback && [...root.querySelectorAll(fallback)].find(shown);
  put(fb || null);
}
