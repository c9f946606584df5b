// A rule id (GSC2-HIT-1) linked to its text: the rules digests ship with the page (clients/web/rules/,
// one per ruleset), so a dispute can be settled offline. A rule's text is its list item, continuation
// lines included.
import { el } from "./dom.js";

/** @type {Map<string, Promise<string>>} ruleset -> its digest's text ("" when it has none) */
const cache = new Map();

/** @param {string} ruleset @returns {Promise<string>} */
async function digest(ruleset) {
  if (!cache.has(ruleset)) {
    cache.set(ruleset, fetch(`/static/rules/${encodeURIComponent(ruleset)}.md`)
      .then((r) => (r.ok ? r.text() : "")).catch(() => ""));
  }
  return cache.get(ruleset);
}

/** @param {string} ruleset @param {string} id @returns {Promise<string | null>} */
export async function ruleText(ruleset, id) {
  const text = await digest(ruleset);
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`- ${id} `) || l === `- ${id}`);
  if (start < 0) return null;
  const out = [lines[start].slice(2)];
  for (let i = start + 1; i < lines.length && /^\s{2,}\S/.test(lines[i]); i++) out.push(lines[i].trim());
  return out.join(" ").replace(/\*\*/g, "");
}

// <a> to the digest; a click shows the rule's text in place (a second click hides it).
/** @param {string} ruleset @param {string | null | undefined} id */
export function ruleLink(ruleset, id) {
  if (!id) return null;
  const box = el("span", { class: "rule-text", hidden: true, role: "note" });
  const a = el("a", { class: "rule", href: `/static/rules/${encodeURIComponent(ruleset)}.md`, "data-rule": id,
    "aria-expanded": "false", title: `Rule ${id}: show its text` }, id);
  a.addEventListener("click", async (e) => {
    e.preventDefault();
    if (!box.hidden) { box.hidden = true; a.setAttribute("aria-expanded", "false"); return; }
    box.textContent = (await ruleText(ruleset, id)) || `${id}: not in the ${ruleset} rules digest.`;
    box.hidden = false;
    a.setAttribute("aria-expanded", "true");
  });
  return el("span", { class: "rule-ref" }, a, box);
}
