// Run by tests/clients/test_generated_ts_client.py: an integrator's TypeScript client, openapi-fetch typed by
// the openapi.d.ts that openapi-typescript generated (beside this file, in a temporary directory) from the
// committed openapi/openapi.json, with no patching. It plays a GSC2 duel to its end as red (the first option
// each time, with If-Match) against the server's rules bot in blue, watches the game on a plain websocket as a
// spectator (WS /v1/games/{id}/stream, frames typed by ServerFrame), reads the game back (?at=, the events),
// exports the battle file and imports it. tsc --strict checks this file first, so the narrowing below (an
// event's `data` by its `type`, a frame by its `kind`, a 409's Problem) is what the document types.
// Prints one JSON line of what it saw; exits 1 with the reason on anything unexpected.
//
//     node play_gsc2.js BASE_URL
import createClient from "openapi-fetch";
import type { components, paths } from "./openapi.js";

declare const process: { argv: string[]; exitCode?: number };

type Schemas = components["schemas"];
type Envelope = Schemas["Envelope"];
type Client = ReturnType<typeof createClient<paths>>;
type Problem = Schemas["Problem"];
// what the server sends on the stream (openapi/asyncapi.json), told apart by kind
type ServerFrame = Schemas["ServerFrame"];

class Unexpected extends Error {}

function must<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.data === undefined) {
    throw new Unexpected(`${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One page of the events the client may see, after a seq. */
async function eventsAfter(client: Client, gameId: string, after: number) {
  const page = await client.GET("/v1/games/{game_id}/events", { params: { path: { game_id: gameId }, query: { after } } });
  return must(page, "events").events;
}
// an envelope as openapi-fetch hands it over (its Readable<> reads a tuple as an array)
type ReadEnvelope = Awaited<ReturnType<typeof eventsAfter>>[number];

// Reads an event's payload through its own type: each case only compiles if the document ties that `type`
// to that payload schema (a discriminated union on `type`).
function describe(event: ReadEnvelope): string {
  switch (event.type) {
    case "game.created":
      return `created ${event.data.ruleset}`;
    case "gsc2.ship_moved":
      return `${event.data.ship} moved ${event.data.moved} over ${event.data.path.length} points`;
    case "gsc2.game_over":
      return `over: ${event.data.reason}, winner ${event.data.winner ?? "none"}`;
    default:
      return event.type;
  }
}

/** The spectator's stream: every `event` frame's envelope, in order, until the game_over event. */
function watch(base: string, gameId: string) {
  const streamed: Envelope[] = [];
  const kinds = new Set<ServerFrame["kind"]>();
  let opened: () => void = () => {};
  let ended: (winner: string | null) => void = () => {};
  const refusals: ((reason: Error) => void)[] = [];
  const refused = (reason: Error) => refusals.forEach((reject) => reject(reason));
  const open = new Promise<void>((resolve, reject) => { opened = resolve; refusals.push(reject); });
  const over = new Promise<string | null>((resolve, reject) => { ended = resolve; refusals.push(reject); });
  over.catch(() => {});  // awaited later; a refusal before then is not an unhandled rejection
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/v1/games/${gameId}/stream?after=0`, ["salvo.v1"]);
  socket.onmessage = (message: MessageEvent) => {
    const frame = JSON.parse(String(message.data)) as ServerFrame;
    kinds.add(frame.kind);
    if (frame.kind === "caught_up") opened();
    if (frame.kind === "error") refused(new Unexpected(`stream refused: ${frame.status} ${frame.detail}`));
    if (frame.kind === "event") {
      streamed.push(frame.event);
      if (frame.event.type === "gsc2.game_over") ended(frame.event.data.winner);
    }
  };
  socket.onclose = (closed: CloseEvent) => refused(new Unexpected(`stream closed: ${closed.code} ${closed.reason}`));
  return { socket, streamed, kinds, open, over };
}

async function main(base: string): Promise<void> {
  const spectator = createClient<paths>({ baseUrl: base });
  const game = must(await spectator.POST("/v1/games", { body: { ruleset: "gsc2", scenario: "duel" } }), "create");
  const gameId = game.game_id;
  const path = { game_id: gameId };
  const bearer = (token: string) => createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });
  const umpire = bearer(game.umpire_token);
  const red = bearer(game.seats["red"]);
  const stream = watch(base, gameId);
  await stream.open;
  must(await umpire.POST("/v1/games/{game_id}/bots", { params: { path }, body: { seat: "blue", bot: "rules" } }),
       "seat the bot");

  let commands = 0;
  let conflicts = 0;
  const answered = new Set<string>();
  let summary = must(await spectator.GET("/v1/games/{game_id}", { params: { path } }), "read the game");
  const deadline = Date.now() + 120_000;
  while (!summary.over && Date.now() < deadline) {
    const opts = must(await red.GET("/v1/games/{game_id}/options", { params: { path } }), "options");
    const first = opts.options[0];
    if (first) {
      const answer = await red.POST("/v1/games/{game_id}/commands", {
        params: { path, header: { "If-Match": String(opts.version) } }, body: { command: first.command } });
      if (answer.error) {
        const problem: Problem = answer.error;  // every 4xx is a Problem in the document
        if (problem.status !== 409) throw new Unexpected(`command refused: ${JSON.stringify(problem)}`);
        conflicts += 1;  // the bot moved first
      } else {
        commands += 1;
        for (const event of answer.data.events) answered.add(event.type);
      }
    } else {
      await sleep(50);
    }
    summary = must(await spectator.GET("/v1/games/{game_id}", { params: { path } }), "read the game");
  }
  const winner = await Promise.race([stream.over, sleep(20_000).then(() => { throw new Unexpected("no game_over on the stream"); })]);

  const events: ReadEnvelope[] = [];
  for (;;) {
    const page = await eventsAfter(spectator, gameId, events.length ? events[events.length - 1].seq : 0);
    if (!page.length) break;
    events.push(...page);
  }
  const first = must(await spectator.GET("/v1/games/{game_id}", { params: { path, query: { at: 1 } } }), "?at=1");
  const last = events[events.length - 1].seq;  // what follows game_over (the dice reveal) streams too
  for (const until = Date.now() + 20_000; stream.streamed.length && stream.streamed[stream.streamed.length - 1].seq < last;) {
    if (Date.now() > until) throw new Unexpected(`the stream stopped before seq ${last}`);
    await sleep(20);
  }
  stream.socket.close();

  // openapi-fetch reads a success body as JSON unless told otherwise (it never looks at the media type the
  // document gives, application/x-ndjson here): parseAs "text" is its way to read any other body, and the
  // identity bodySerializer its way to send one (it JSON-encodes a body otherwise).
  const battle = must(await umpire.GET("/v1/games/{game_id}/export", { params: { path }, parseAs: "text" }), "export");
  const imported = must(await spectator.POST("/v1/games/import", {
    body: battle, bodySerializer: (body: string) => body, headers: { "Content-Type": "application/x-ndjson" } }),
    "import");

  console.log(JSON.stringify({
    over: summary.over, winner, commands, conflicts, answered: [...answered].sort(),
    events: events.map((e) => [e.seq, e.type, describe(e)]),
    streamed: stream.streamed.map((e) => e.seq), frame_kinds: [...stream.kinds].sort(),
    at_1: first.at, export_lines: battle.split("\n").filter((line: string) => line).length,
    imported: imported.verified === true && imported.game_id !== gameId,
  }));
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
