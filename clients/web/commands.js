// The seat's legal commands (GET /options) as readable, grouped buttons.
import { el, clear, fmt, humanize } from "./dom.js";
import { labelStarfinder, STARFINDER_GROUPS, seatShipId } from "./starfinder-ui.js";
import { labelFtcampaign, FTCAMPAIGN_GROUPS } from "./ftcampaign-ui.js";

/** @typedef {import("../types/salvo").Command} Command */
/** @typedef {import("../types/salvo").GameView} GameView */
/** @typedef {import("../types/openapi").components["schemas"]["Leg"]} Leg */
/** The parts of a GSC2 view the labels read: ship names and battery names (the views are not in the OpenAPI document).
 * @typedef {{phase?: string, ships?: {id: string, name?: string,
 *   data_sheet?: {beams?: {id: string, name?: string}[], missiles?: {id: string, name?: string}[]}}[]}} LabelView */
/** A view as the page holds it (read here as a LabelView). @typedef {GameView | null | undefined} AnyView */

/** @type {Record<string, string>} command type -> its button group */
const GROUPS = {
  "gsc2.start": "Game", "gsc2.choose_order": "Order", "gsc2.move": "Move", "gsc2.pass": "Order",
  "gsc2.fire_tractor": "Tractor beams", "gsc2.launch": "Launch missiles", "gsc2.move_missiles": "Move missiles",
  "gsc2.fire": "Fire beams", "gsc2.board": "Boarding", "gsc2.launch_pod": "Boarding", "gsc2.move_pod": "Boarding",
  "gsc2.sabotage": "Sabotage", "gsc2.casualty_order": "Boarding", "gsc2.repair": "Repairs",
  "gsc2.end_phase": "Phase", "gsc2.force_phase": "Umpire", "gsc2.ruling": "Umpire",
  ...STARFINDER_GROUPS, ...FTCAMPAIGN_GROUPS,
};
// groups shown in this order (others after them, in the order met)
const ORDER = ["Game", "Set-up", "Order", "Move", "Engineering", "Helm", "Helm stunts", "Science", "Gunnery", "Captain",
  "Orders", "Contacts", "Economy", "Crew", "Phase", "Umpire"];

/** @param {AnyView} state @param {string} id */
function shipName(state, id) {
  const view = /** @type {LabelView} */ (state);
  const ships = (view && view.ships) || [];
  const s = ships.find((x) => x.id === id);
  return (s && s.name) || id;
}

/** @param {AnyView} state @param {string} shipId @param {string} battery */
function batteryName(state, shipId, battery) {
  const view = /** @type {LabelView} */ (state);
  const s = ((view && view.ships) || []).find((x) => x.id === shipId);
  const sheet = s && s.data_sheet;
  const all = sheet ? [...(sheet.beams || []), ...(sheet.missiles || [])] : [];
  const b = all.find((x) => x.id === battery);
  return b && b.name ? `${b.name} (${battery})` : battery;
}

/** @param {Leg[] | null | undefined} legs */
export function describeLegs(legs) {
  if (!legs || !legs.length) return "stay put";
  /** @type {string[]} */
  const parts = [];
  for (const leg of legs) {
    if (leg.turn) parts.push(`turn ${Math.abs(leg.turn)}° ${leg.turn < 0 ? "left" : "right"}`);
    if (leg.distance) parts.push(`${fmt(leg.distance)}" ahead`);
  }
  return parts.join(", ") || "stay put";
}

/** @param {Command} cmd @param {AnyView} view */
export function labelCommand(cmd, view) {
  const t = cmd.type;
  if (t.startsWith("starfinder.")) { const l = labelStarfinder(cmd, view); if (l) return l; }
  if (t.startsWith("ftcampaign.")) { const l = labelFtcampaign(cmd, view); if (l) return l; }
  const n = (/** @type {string} */ id) => shipName(view, id);
  switch (t) {
    case "gsc2.start": return "Start the game";
    case "gsc2.choose_order":
      return view && view.phase === "missiles" ? `${cmd.leader} launches first` : `${cmd.leader} is second player`;
    case "gsc2.move": return `${n(cmd.ship)}: ${describeLegs(cmd.legs)}${cmd.done === false ? " (pause for tractor)" : ""}`;
    case "gsc2.pass": return "Pass (end my batch)";
    case "gsc2.fire": return `${n(cmd.ship)} ${batteryName(view, cmd.ship, cmd.battery)} → ${n(cmd.target)}`;
    case "gsc2.launch": return `${n(cmd.ship)} launch ${batteryName(view, cmd.ship, cmd.battery)} → ${n(cmd.target)}`;
    case "gsc2.move_missiles": return `Move salvo ${cmd.salvo}`;
    case "gsc2.fire_tractor": return `${n(cmd.ship)} tractor ${cmd.system} → ${n(cmd.target)}`;
    case "gsc2.board": {
      const who = [cmd.assault ? `${cmd.assault} assault` : "", cmd.heavy ? `${cmd.heavy} heavy` : ""].filter(Boolean).join(" + ");
      return `${n(cmd.ship)} boards ${n(cmd.target)} by ${cmd.method}${who ? ` (${who})` : ""}`;
    }
    case "gsc2.launch_pod": return `${n(cmd.ship)} launches a ${cmd.squad} pod`;
    case "gsc2.move_pod": return cmd.ram ? `Pod ${cmd.pod} rams ${n(cmd.ram)}` : `Pod ${cmd.pod} to (${fmt(cmd.x)}, ${fmt(cmd.y)})`;
    case "gsc2.sabotage": return `${cmd.unit} troops on ${n(cmd.ship)} sabotage ${cmd.system}`;
    case "gsc2.repair": return `${n(cmd.ship)}: repair ${cmd.system}`;
    case "gsc2.end_phase": return `End my ${(view && view.phase) || ""} phase`.replace(/\s+/g, " ");
    case "gsc2.force_phase": return "Force the phase on";
    default: {
      const args = Object.entries(cmd).filter(([k]) => k !== "type")
        .map(([k, v]) => `${humanize(k)}: ${typeof v === "object" ? JSON.stringify(v) : v}`);
      return humanize(t) + (args.length ? ` — ${args.join(", ")}` : "");
    }
  }
}

/** @param {Command} cmd */
export function groupOf(cmd) {
  return GROUPS[cmd.type] || humanize(cmd.type).replace(/^./, (c) => c.toUpperCase());
}

// Render the option buttons; onPick(cmd) sends it. selected: the selected ship id (its commands first).
/** @param {HTMLElement} root @param {Command[]} commands @param {AnyView} view @param {(cmd: Command) => void} onPick
 * @param {{selected?: string | null, disabled?: boolean, note?: string}} [how] */
export function renderCommands(root, commands, view, onPick, { selected = null, disabled = false, note = "" } = {}) {
  clear(root);
  if (note) root.append(el("p", { class: "note" }, note));
  if (!commands.length) {
    root.append(el("p", { class: "muted" }, disabled ? "" : "Nothing to do right now."));
    return;
  }
  /** @type {Map<string, Command[]>} */
  const groups = new Map();
  for (const cmd of commands) {
    const g = groupOf(cmd);
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(cmd);
  }
  const rank = (/** @type {string} */ g) => { const i = ORDER.indexOf(g); return i < 0 ? ORDER.indexOf("Crew") : i; }; // unknown: before Phase
  const shipOf = (/** @type {Command} */ cmd) => {
    const c = /** @type {{ship?: string, seat?: string}} */ (cmd); // a GSC2 ship's command, or a Starfinder seat's
    return c.ship ?? seatShipId(c.seat);
  };
  for (const [name, cmds] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
    // @ts-expect-error booleans subtract as 0/1 here on purpose: the selected ship's commands first
    cmds.sort((a, b) => (shipOf(b) === selected) - (shipOf(a) === selected));
    const box = el("div", { class: "cmd-group", dataset: { group: name } }, el("h4", {}, name));
    for (const cmd of cmds) {
      box.append(el("button", {
        class: "cmd" + (shipOf(cmd) && shipOf(cmd) === selected ? " mine" : ""),
        type: "button",
        disabled,
        dataset: { type: cmd.type, cmd: JSON.stringify(cmd) },
        title: JSON.stringify(cmd),
        onclick: () => onPick(cmd),
      }, labelCommand(cmd, view)));
    }
    root.append(box);
  }
}
