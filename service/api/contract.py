"""The API contract's types: every response body and websocket frame, as msgspec structs.

The handlers build these bodies as plain dicts on their hot paths; these structs say what those dicts
are, and the OpenAPI and AsyncAPI documents are generated from them (tests check real responses against
the documents). Ruleset-specific parts stay open: a view is the ruleset's dict plus the common ``draw``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core.choices import Form, Option
from service.domain.core.drawing import Drawing
from service.events.envelope import Envelope


class Problem(msgspec.Struct, kw_only=True):
    """application/problem+json (RFC 9457): every failure names the rule or the field at fault."""

    type: str  # "/problems/rule/<RULE-ID>" for a rule violation, "/problems/<Kind>" otherwise
    title: str
    status: int
    detail: str
    rule: str | None = None  # the rule id refused (rule violations)
    # the typed refusal, the same for every ruleset: rule | not-your-piece | wrong-phase | unknown-command
    code: str | None = None
    field: str | None = None  # the request field at fault, as a JSON path ("$.command.target") or a name


class Links(msgspec.Struct):
    self: str
    stream: str
    spectate: str


class GameCreatedResponse(msgspec.Struct, kw_only=True):
    """A new game (created, forked or imported): the tokens are shown here once, never again."""

    game_id: str
    ruleset: str
    ruleset_version: str
    seats: dict[str, str]  # seat -> its bearer token
    umpire_token: str
    dice_commitment: str  # sha256 of the first turn's secret dice seed
    version: int
    links: Links
    forked_from: str | None = None
    forked_at: int | None = None  # the seq a fork goes on from: a command's last event
    requested_at: int | None = None  # a fork asked at a seq inside a command (forked_at: that command's end)
    imported_from: str | None = None
    verified: bool | None = None  # an import: signed by a key this server trusts
    unverified: str | None = None  # an import accepted with allow_unverified: why it is not verified


class GameView(msgspec.Struct):
    """The ruleset's view for the caller (its own keys, see the ruleset) plus the common drawing."""

    draw: Drawing | None  # None only for a ruleset that does not draw yet


class Deadline(msgspec.Struct):
    """A game's deadline (issue 39): its rule, the point (turn, and phase per phase) it runs for, when it
    falls (UTC) and the seconds left (null: nothing pending: the game is over, or the command was refused)."""

    per: str  # "phase" | "turn"
    seconds: int
    command: dict[str, Any]  # appended as the umpire when it passes
    turn: int | None
    phase: str | None
    due_at: str | None
    seconds_left: float | None


class GameClock(msgspec.Struct):
    """A game's chess-style clocks (issue 39): each seat's bank at the start, the increment given back when
    a seat stops being awaited, the command appended as the umpire when a bank runs out, the seats whose
    clocks run now, each seat's seconds left now and when the first running bank runs out (UTC)."""

    seconds: int
    increment: int
    command: dict[str, Any]
    turn: int | None
    phase: str | None
    running: list[str]
    seconds_left: dict[str, float]
    due_at: str | None


class DeadlineState(msgspec.Struct):
    """The game's deadline and clocks (null: it has none)."""

    game_id: str
    deadline: Deadline | None
    clock: GameClock | None = None


class ClockState(msgspec.Struct):
    """The game's clocks (null: it has none)."""

    game_id: str
    clock: GameClock | None


class GameSummary(msgspec.Struct, kw_only=True):
    game_id: str
    ruleset: str
    ruleset_version: str
    seats: list[str]
    viewer: str  # "umpire" | "spectator" | "seat:<name>"
    version: int  # the game's latest seq
    at: int  # the seq this view is at (= version unless ?at=)
    turn: int
    phase: str
    over: bool
    unverified: str | None  # an imported game (or a fork of one) whose origin could not be verified: why
    state: GameView
    deadline: Deadline | None = None  # the game's deadline now (null: none, or a past point ?at=)
    clock: GameClock | None = None  # the game's clocks now (null: none, or a past point ?at=)


class CommandAccepted(msgspec.Struct):
    """The events a command appended, as the caller may see them, and the game's new version."""

    version: int
    events: list[Envelope]


class OptionsResponse(msgspec.Struct):
    version: int
    viewer: str
    options: list[Option]
    forms: list[Form]


class EventsPage(msgspec.Struct):
    events: list[Envelope]


class TurnStep(msgspec.Struct):
    event: Envelope
    text: str  # the event explained in words


class TurnReplay(msgspec.Struct, kw_only=True):
    game_id: str
    turn: int
    phase: str | None
    from_seq: int
    to_seq: int
    before: GameView
    events: list[TurnStep]
    after: GameView
    # more of this turn's events follow the last step: ask again with ?after=<this seq> (a turn of thousands)
    next_after: int | None = None


class RulesetInfo(msgspec.Struct, kw_only=True):
    name: str
    version: str
    title: str
    scenarios: list[str]
    commands: dict[str, Any]  # a JSON Schema ({"$defs", "anyOf"}) of the ruleset's commands
    events: dict[str, Any]  # a JSON Schema of its events


class RulesetList(msgspec.Struct):
    rulesets: list[RulesetInfo]


class ScenarioResponse(msgspec.Struct):
    ruleset: str
    scenario: dict[str, Any]


class SigningKey(msgspec.Struct, kw_only=True):
    key_id: str  # first 16 hex of sha256 of the public key; battle files name it in their signature
    alg: str  # "Ed25519"
    public_key: str  # raw 32 bytes, hex
    status: str  # "active" (signs new files) | "retired" (still verifies old ones)
    created_at: str | None = None


class SigningKeys(msgspec.Struct):
    """The public keys that sign this server's battle files (save it to trust them elsewhere)."""

    keys: list[SigningKey]


class Rewound(msgspec.Struct):
    version: int
    rewound_to: int
    requested_to: int | None = None  # a to_seq inside a command (rewound_to: that command's end)


class BotSeatInfo(msgspec.Struct, kw_only=True):
    seat: str
    bot: str
    stand_in: bool  # the ruleset lists no bot of that name yet: the random bot plays it
    moves: int
    state: str  # "waiting" | "thinking" | "stuck" | "over" | "failed"
    error: str | None
    refused: list[str]  # the last commands of this bot that the rules refused ("RULE: detail")


class SeatedBot(BotSeatInfo, kw_only=True):
    game_id: str


class LinkedBattle(msgspec.Struct, kw_only=True):
    """A campaign battle fought as a linked GSC2 game (FTC-ARR-8). The campaign's tokens open its seats:
    each player holds its own side, the campaign umpire umpires it; ``seats``/``umpire_token`` (the
    game's own tokens) are shown once, to the umpire who created it."""

    campaign: str
    battle: str
    tactical_game_id: str
    created: bool
    sides: list[str] = []
    seats: dict[str, str] | None = None
    umpire_token: str | None = None


class BattleLink(msgspec.Struct, kw_only=True):
    """Where a linked tactical game comes from: its campaign and battle, and the players holding its sides."""

    game_id: str
    campaign: str | None  # None: the game is not linked from a campaign battle
    battle: str | None
    sides: list[str]


class BotOffer(msgspec.Struct):
    name: str
    stand_in: bool


class BotListing(msgspec.Struct):
    game_id: str
    available: list[BotOffer]
    bots: list[BotSeatInfo]


# --- websocket frames (WS /v1/games/{game_id}/stream), tagged by "kind" ---------------------------


class StreamView(msgspec.Struct):
    """With ?frames=view: the viewer's view after an update, what GET /v1/games/{id} (``game``, without
    ``deadline`` and ``clock``: the time is read over HTTP) and GET /options (``options``) would answer."""

    game: GameSummary
    options: OptionsResponse


class EventFrame(msgspec.Struct, tag_field="kind", tag="event"):
    """One envelope the caller may see, in seq order (hidden seqs are skipped). With ?frames=view, an
    update's last event frame carries ``view``: the viewer's view and options after it."""

    event: Envelope
    view: StreamView | None = None


class EventsPageFrame(msgspec.Struct, tag_field="kind", tag="events"):
    """With ?history=compact: a catch-up page of envelopes (the seqs in (k·1000, (k+1)·1000] the viewer
    may see) in one message, each entry leaving out what the entries before it said (openapi/websocket.md):
    game_id is the page's; seq, when omitted, is the previous + 1; type, v, turn, phase, actor,
    recorded_at and command_id, when omitted, are the previous entry's (recorded_at and command_id may
    come as [n, rest]: the previous entry's first n characters, then rest; dt instead of recorded_at: the
    previous time plus dt microseconds); data, when omitted, is the previous same-type entry's (d: that
    data with these keys replaced); r instead of rolls: the previous same-type entry's rolls with these
    keys replaced; dd instead of dice: the previous dice with base and slot moved on by dd."""

    game_id: str
    events: list[dict[str, Any]]


class CaughtUpFrame(msgspec.Struct, tag_field="kind", tag="caught_up"):
    """Everything up to ``seq`` has been sent; what follows is live. Sent again whenever the log moves on
    with events hidden from this viewer: ``seq`` is then the new head (as GET /v1/games/{id} reports it).
    With ?frames=view it carries ``view`` at the join, after a read of the store, and when an update's
    last event is hidden from the viewer."""

    seq: int
    view: StreamView | None = None


class SnapshotFrame(msgspec.Struct, tag_field="kind", tag="snapshot"):
    """With ?join=present: the viewer's view at ``seq`` in one message (what GET /v1/games/{id} answers
    there), instead of the history before it; the events after ``seq`` follow with no gap."""

    seq: int
    game: GameSummary


class PingFrame(msgspec.Struct, tag_field="kind", tag="ping"):
    """Heartbeat, when nothing else was sent for SALVO_HEARTBEAT_SECONDS."""


class ResultFrame(msgspec.Struct, tag_field="kind", tag="result", kw_only=True):
    """The answer to a command sent on the socket: exactly what POST /commands returns."""

    ref: str | None = None
    version: int
    events: list[Envelope]


class ErrorFrame(msgspec.Struct, tag_field="kind", tag="error", kw_only=True):
    """A refused command (with its ``ref``) or a refused connection (then close code 1008)."""

    ref: str | None = None
    type: str | None = None  # the problem type, as in problem+json (one error mapper serves both)
    status: int
    title: str
    detail: str
    rule: str | None = None
    code: str | None = None  # the typed refusal, as in problem+json
    field: str | None = None


class SpectatorMessage(msgspec.Struct):
    """One message of the spectators' channel (never in the game's log)."""

    id: int
    name: str
    text: str
    posted_at: str


class SpectatorMessageFrame(msgspec.Struct, tag_field="kind", tag="spectator_message"):
    """A message said in the spectators' channel just now (issue 39): sent live to spectators' and the
    umpire's connections only, never a seat's, and never in the game's log (POST …/spectator-messages)."""

    message: SpectatorMessage


class CommandFrame(msgspec.Struct, tag_field="kind", tag="command", kw_only=True):
    """A command sent by a seat or umpire connection (the same decide path as POST /commands)."""

    command: dict[str, Any]  # one command of the game's ruleset
    ref: str | None = None
    salt: str = ""
    idempotency_key: str | None = None
    expected_version: int | None = None


SERVER_FRAMES: tuple[type[Any], ...] = (
    EventFrame,
    EventsPageFrame,
    SnapshotFrame,
    CaughtUpFrame,
    PingFrame,
    ResultFrame,
    ErrorFrame,
    SpectatorMessageFrame,
)
CLIENT_FRAMES: tuple[type[Any], ...] = (CommandFrame,)
