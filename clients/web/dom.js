// Tiny DOM/SVG helpers shared by every view module.

const SVG_NS = "http://www.w3.org/2000/svg";

/** @typedef {import("../types/salvo").Child} Child */
/** Attributes: `onX` functions become listeners, `text` the text, `dataset` an object of data-*; null/false skipped.
 * @typedef {Record<string, unknown>} Attrs */

/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {Attrs} [attrs] @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]} */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** @template {keyof SVGElementTagNameMap} K @param {K} tag @param {Attrs} [attrs] @param {...Child} children
 * @returns {SVGElementTagNameMap[K]} */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** @param {HTMLElement | SVGElement} node @param {Attrs} attrs */
function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (k === "text") node.textContent = String(v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
}

/** @param {ParentNode} node @param {readonly Child[]} children */
function append(node, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** @template {Node} N @param {N} node @returns {N} */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** @param {string} sel @param {ParentNode} [root] */
export function $(sel, root = document) { return root.querySelector(sel); }

/** A number for people: whole when it is, else to `digits` places. @param {unknown} n @param {number} [digits] */
export function fmt(n, digits = 1) {
  if (typeof n !== "number" || !isFinite(n)) return String(n ?? "");
  return Math.abs(n - Math.round(n)) < 1e-6 ? String(Math.round(n)) : n.toFixed(digits);
}

/** "gsc2.end_phase" -> "end phase". @param {unknown} s */
export function humanize(s) {
  return String(s ?? "").replace(/^[a-z0-9]+\./, "").replace(/_/g, " ");
}

/** @param {string | null | undefined} side @param {string[] | Record<string, unknown>} [sides] */
export function sideColor(side, sides = []) {
  /** @type {Record<string, string>} */
  const named = { red: "#e5484d", blue: "#3e8ef7", green: "#30a46c", yellow: "#f5d90a",
    advantaged: "#3e8ef7", disadvantaged: "#e5484d" };
  if (named[side]) return named[side];
  if (side == null) return "#9aa4b2"; // a bogey or terrain: no side the viewer may know
  const palette = ["#e5484d", "#3e8ef7", "#30a46c", "#f5a524", "#8e4ec6", "#12a594"];
  // sides may be a list or (ASC) an object keyed by side
  const names = Array.isArray(sides) ? sides : sides && typeof sides === "object" ? Object.keys(sides) : [];
  const i = Math.max(0, names.indexOf(side));
  return palette[i % palette.length];
}

// Replace a node's children (null/false children skipped, unlike Element.append).
/** @template {Node & ParentNode} N @param {N} node @param {...Child} children @returns {N} */
export function fill(node, ...children) {
  clear(node);
  append(node, children);
  return node;
}
