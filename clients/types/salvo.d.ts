// Friendly names for the types generated from openapi/openapi.json (openapi.d.ts, by openapi-typescript).
// The web page imports them in JSDoc: /** @type {import("../types/salvo").GameSummary} */ — no build step.
import type { components, operations } from "./openapi";

type Schemas = components["schemas"];

export type Problem = Schemas["Problem"];
export type GameCreated = Schemas["GameCreatedResponse"];
export type GameSummary = Schemas["GameSummary"];
export type GameView = Schemas["GameView"];
export type Drawing = Schemas["Drawing"];
export type Envelope = Schemas["Envelope"];
/** The envelope of one event type, its ``data`` typed: ``EventOf<"gsc2.ship_moved">["data"]["path"]``. */
export type EventOf<T extends Envelope["type"]> = Extract<Envelope, { type: T }>;
export type Command = Schemas["Command"];
export type CommandAccepted = Schemas["CommandAccepted"];
export type OptionsResponse = Schemas["OptionsResponse"];
export type Option = Schemas["Option"];
export type Form = Schemas["Form"];
export type EventsPage = Schemas["EventsPage"];
export type TurnReplay = Schemas["TurnReplay"];
export type RulesetList = Schemas["RulesetList"];
export type ScenarioResponse = Schemas["ScenarioResponse"];
export type BotListing = Schemas["BotListing"];
export type SeatedBot = Schemas["SeatedBot"];

// Players, passkeys and notifications (issue 40; docs/notifications.md)
export type PersonalKey = Schemas["PersonalKey"];
export type MyGame = Schemas["MyGame"];
export type MyGames = Schemas["MyGames"];
export type Subscription = Schemas["Subscription"];
export type Notification = Schemas["Notification"];
export type PasskeyOptions = Schemas["PasskeyOptions"];
export type PasskeyInfo = Schemas["PasskeyInfo"];
export type PasskeySession = Schemas["PasskeySession"];

// WS /v1/games/{game_id}/stream (openapi/asyncapi.json): what the server sends, what a client may send.
export type ServerFrame =
  | Schemas["EventFrame"]
  | Schemas["EventsPageFrame"]
  | Schemas["SnapshotFrame"]
  | Schemas["CaughtUpFrame"]
  | Schemas["PingFrame"]
  | Schemas["ResultFrame"]
  | Schemas["ErrorFrame"]
  | Schemas["SpectatorMessageFrame"];
export type SpectatorMessage = Schemas["SpectatorMessage"];
export type ClientFrame = Schemas["CommandFrame"];
export type ErrorFrame = Schemas["ErrorFrame"];

// The JSON body an operation answers with a given status.
export type Answer<Op extends keyof operations, Status extends keyof operations[Op]["responses"]> =
  operations[Op]["responses"][Status] extends { content: infer C } ? C[keyof C] : never;

// What the page's DOM helpers (web/dom.js) take as a child: a node, text, or a (nested) list of them;
// null, undefined and booleans are skipped.
export type Child = Node | string | number | boolean | null | undefined | readonly Child[];

// The drawing contract's parts (docs/view-contract.md), as the page's board code names them.
export type DrawBoard = Schemas["DrawingBoard"];
export type Piece = Schemas["Piece"];
export type Effect = Schemas["Effect"];
export type Point2 = Schemas["Point2"];
export type DrawStatus = Schemas["DrawingStatus"];
/** A point in SVG units (or an axial hex, [q, r]). */
export type XY = [number, number];
