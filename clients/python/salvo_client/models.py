"""The API's bodies as typed structs (mirroring openapi/openapi.json; a test keeps them in step).

Unknown keys are ignored, so a newer server does not break an older client; a missing or mistyped key
fails loudly at decode time. Ruleset-specific parts (a view's own keys, a command) stay dicts.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Model(msgspec.Struct, kw_only=True):
    pass


class Problem(Model):
    type: str
    title: str
    status: int
    detail: str
    rule: str | None = None
    code: str | None = None  # rule | not-your-piece | wrong-phase | unknown-command
    field: str | None = None


class Links(Model):
    self: str
    stream: str
    spectate: str


class GameCreated(Model):
    game_id: str
    ruleset: str
    ruleset_version: str
    seats: dict[str, str]
    umpire_token: str
    dice_commitment: str
    version: int
    links: Links
    forked_from: str | None = None
    forked_at: int | None = None  # the seq a fork goes on from: a command's last event
    requested_at: int | None = None  # a fork asked inside a command (forked_at: that command's end)
    imported_from: str | None = None
    verified: bool | None = None  # an import: signed by a key the server trusts
    unverified: str | None = None  # an import accepted with allow_unverified: why it is not verified


class Envelope(Model):
    game_id: str
    seq: int
    type: str
    v: int
    turn: int
    phase: str
    actor: str
    recorded_at: str
    data: dict[str, Any]
    command_id: str | None = None
    rolls: list[dict[str, Any]] = []
    dice: dict[str, Any] | None = None
    superseded: bool = False


class GameSummary(Model):
    game_id: str
    ruleset: str
    ruleset_version: str
    seats: list[str]
    viewer: str
    version: int
    at: int
    turn: int
    phase: str
    over: bool
    unverified: str | None  # an imported game whose origin could not be verified: why (else None)
    state: dict[str, Any]  # the ruleset's view plus "draw" (see Drawing in the OpenAPI document)
    deadline: dict[str, Any] | None = None  # the game's deadline now (due_at, seconds_left…), None: none
    clock: dict[str, Any] | None = None  # the game's chess-style clocks now (seconds_left per seat…), None: none

    @property
    def draw(self) -> dict[str, Any] | None:
        return self.state.get("draw")

    @property
    def status(self) -> dict[str, Any]:
        return (self.draw or {}).get("status") or {}


class CommandAccepted(Model):
    version: int
    events: list[Envelope]


class Option(Model):
    command: dict[str, Any]
    label: str
    piece: str | None = None
    target: str | None = None
    group: str | None = None
    rule: str | None = None


class Value(Model):
    value: Any
    label: str
    piece: str | None = None


class Field(Model):
    key: str
    label: str
    kind: str  # "choice" | "number" | "legs" | "hexpath" | "flag"
    values: list[Value] = []
    min: float | None = None
    max: float | None = None
    step: float | None = None
    unit: str | None = None
    default: Any = None
    required: bool = True
    limits: dict[str, Any] = {}


class PieceChoices(Model):
    piece: str
    label: str
    fields: list[Field]
    fixed: dict[str, Any] = {}


class Form(Model):
    command: str
    label: str
    pieces: list[PieceChoices]
    fixed: dict[str, Any] = {}
    list_key: str | None = None
    piece_key: str = "id"
    optional_pieces: bool = False
    group: str | None = None
    rule: str | None = None


class OptionsResponse(Model):
    version: int
    viewer: str
    options: list[Option]
    forms: list[Form]


class EventsPage(Model):
    events: list[Envelope]


class TurnStep(Model):
    event: Envelope
    text: str


class TurnReplay(Model):
    game_id: str
    turn: int
    phase: str | None
    from_seq: int
    to_seq: int
    before: dict[str, Any]
    events: list[TurnStep]
    after: dict[str, Any]
    next_after: int | None = None  # more steps of this turn follow: ask again with after=<this>


class RulesetInfo(Model):
    name: str
    version: str
    title: str
    scenarios: list[str]
    commands: dict[str, Any]
    events: dict[str, Any]


class RulesetList(Model):
    rulesets: list[RulesetInfo]


class ScenarioResponse(Model):
    ruleset: str
    scenario: dict[str, Any]


class Rewound(Model):
    version: int
    rewound_to: int
    requested_to: int | None = None  # a to_seq inside a command (rewound_to: that command's end)


class BotSeatInfo(Model):
    seat: str
    bot: str
    stand_in: bool
    moves: int
    state: str
    error: str | None
    refused: list[str]


class SeatedBot(BotSeatInfo):
    game_id: str


class BotOffer(Model):
    name: str
    stand_in: bool


class BotListing(Model):
    game_id: str
    available: list[BotOffer]
    bots: list[BotSeatInfo]


# --- players and notifications (issue 40) ---------------------------------------------------------


class PersonalKey(Model):
    player_id: str
    key_id: str
    key: str  # shown once: send it as the bearer token
    label: str


class KeyInfo(Model):
    key_id: str
    label: str
    created_at: str
    revoked_at: str | None


class PlayerInfo(Model):
    player_id: str
    keys: list[KeyInfo]


class Claim(Model):
    game_id: str
    role: str
    seat: str | None


class MyGame(Model):
    game_id: str
    ruleset: str
    scenario: str | None
    role: str
    seat: str | None
    version: int
    turn: int
    phase: str
    phase_label: str
    whose_move: list[str]
    must_act: bool
    why: str
    over: bool
    result: str | None
    last_seen: int
    unseen_events: int
    changed: bool


class MyGames(Model):
    player_id: str
    games: list[MyGame]


class Subscription(Model):
    id: str
    kind: str
    url: str
    game_id: str | None
    seat: str | None
    created_at: str
    failures: int
    paused: bool
    last_error: str | None
    secret: str | None = None  # only when it is created


class SubscriptionList(Model):
    subscriptions: list[Subscription]


class PushKey(Model):
    public_key: str


class Notification(Model):
    """What a webhook subscription (kind json) receives, signed (``X-Salvo-Signature``), and a Web Push one
    encrypted: ``type`` is your_turn, game_over, rewound, battle (a battle needs you: ``linked_game_id``),
    ruling (an umpire's ruling settling a dispute) or paused."""

    id: str  # the Idempotency-Key: a redelivery repeats it
    type: str
    game_id: str
    ruleset: str
    scenario: str | None
    role: str
    seat: str | None
    version: int
    turn: int
    phase: str
    phase_label: str
    must_act: bool
    why: str
    over: bool
    result: str | None
    text: str
    linked_game_id: str | None = None


# passkeys (WebAuthn): the ceremony's browser side is the authenticator's; these carry its JSON


class PasskeyOptions(Model):
    challenge_id: str  # single use, expiring: send it back with the answer
    public_key: dict[str, Any]  # navigator.credentials.create / get's publicKey, binary fields base64url


class PasskeyInfo(Model):
    credential_id: str
    label: str
    created_at: str
    last_used_at: str | None


class PasskeyList(Model):
    passkeys: list[PasskeyInfo]


class PasskeySession(Model):
    player_id: str
    key_id: str
    key: str  # a new personal key for this device, shown once: the bearer token from now on
    label: str
    credential_id: str


# --- websocket frames ------------------------------------------------------------------------------


class Frame(msgspec.Struct, tag_field="kind", kw_only=True):
    pass


class StreamView(Model):
    """With ``frames=view``: the viewer's game and options after an update (no GET needed)."""

    game: GameSummary
    options: OptionsResponse


class EventFrame(Frame, tag="event"):
    event: Envelope
    view: StreamView | None = None


class CaughtUpFrame(Frame, tag="caught_up"):
    seq: int
    view: StreamView | None = None


class PingFrame(Frame, tag="ping"):
    pass


class ResultFrame(Frame, tag="result", kw_only=True):
    ref: str | None = None
    version: int
    events: list[Envelope]


class ErrorFrame(Frame, tag="error", kw_only=True):
    ref: str | None = None
    type: str | None = None
    status: int
    title: str
    detail: str
    rule: str | None = None
    code: str | None = None
    field: str | None = None


ServerFrame = EventFrame | CaughtUpFrame | PingFrame | ResultFrame | ErrorFrame
