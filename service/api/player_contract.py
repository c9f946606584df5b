"""The bodies of the players' and notifications' routes (routes/players.py, routes/subscriptions.py), as
msgspec types: the OpenAPI document's schemas come from them (openapi_schema.py)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.events.watchers import Notice


class NewPlayer(msgspec.Struct, forbid_unknown_fields=True):
    """POST /v1/players and POST /v1/players/me/keys: a label naming the device the key is for."""

    label: str = "device"


class PersonalKey(msgspec.Struct, kw_only=True):
    """A personal key, shown here once and never again (stored as its hash). Send it as
    ``Authorization: Bearer pk_…``."""

    player_id: str
    key_id: str
    key: str
    label: str


class KeyInfo(msgspec.Struct, kw_only=True):
    key_id: str
    label: str
    created_at: str
    revoked_at: str | None


class PlayerInfo(msgspec.Struct, kw_only=True):
    """The player behind the key: its keys (never the keys themselves)."""

    player_id: str
    keys: list[KeyInfo]


class ClaimSeat(msgspec.Struct, forbid_unknown_fields=True):
    """A seat's (or the umpire's) token: the player holds that seat from now on, on every device."""

    token: str


class Claim(msgspec.Struct, kw_only=True):
    """A seat the player holds."""

    game_id: str
    role: str  # "seat" | "umpire"
    seat: str | None


class MarkSeen(msgspec.Struct, forbid_unknown_fields=True):
    """The game's version the player has looked at (default: its version now)."""

    version: int | None = None


class MyGame(msgspec.Struct, kw_only=True):
    """One game the player holds a seat in, as that seat sees it now."""

    game_id: str
    ruleset: str
    scenario: str | None
    role: str
    seat: str | None
    version: int
    turn: int
    phase: str
    phase_label: str
    whose_move: list[str]  # the seats the game waits for, as far as this seat may know
    must_act: bool  # the game waits for this seat (for the umpire: an umpire's duty is pending)
    why: str  # the ruleset's words: "your helm order", "waiting for red to move"…
    over: bool
    result: str | None
    last_seen: int  # the version the player last marked seen
    unseen_events: int  # events appended since
    changed: bool


class MyGames(msgspec.Struct, kw_only=True):
    player_id: str
    games: list[MyGame]


class PushKeys(msgspec.Struct, forbid_unknown_fields=True):
    """A browser's PushSubscription keys (``subscription.toJSON().keys``), base64url."""

    p256dh: str
    auth: str


class NewSubscription(msgspec.Struct, forbid_unknown_fields=True):
    """A webhook for the player's games (all of them, or ``game_id``, or one ``seat`` of it). ``kind``: the
    body's shape: ``json`` (the notification itself), ``discord`` ({"content"}) or ``slack`` ({"text"}); or
    ``webpush``: ``url`` is a browser's push endpoint and ``keys`` its keys (the notification is sent
    encrypted to them, aes128gcm, signed with the server's VAPID key: ``GET /v1/push/key``)."""

    url: str
    kind: str = "json"
    game_id: str | None = None
    seat: str | None = None
    keys: PushKeys | None = None


class PushKey(msgspec.Struct, kw_only=True):
    """The server's VAPID public key: a page's ``applicationServerKey`` for ``pushManager.subscribe``."""

    public_key: str  # uncompressed P-256 point, base64url


class Subscription(msgspec.Struct, kw_only=True):
    """A webhook subscription. ``secret`` (HMAC-SHA256 key of the ``X-Salvo-Signature`` header) is shown
    only when it is created."""

    id: str
    kind: str
    url: str
    game_id: str | None
    seat: str | None
    created_at: str
    failures: int  # failed deliveries in a row
    paused: bool  # after too many failures in a row; POST …/resume starts it again
    last_error: str | None
    secret: str | None = None


class SubscriptionList(msgspec.Struct, kw_only=True):
    subscriptions: list[Subscription]


# the events layer's Notice, named and documented for the API's contract (its fields are written once, there)
class Notification(Notice, kw_only=True):
    """What a webhook receives (``kind`` json), signed: ``X-Salvo-Signature: sha256=<hex HMAC-SHA256 of
    "<X-Salvo-Timestamp>." + body>``, one ``Idempotency-Key`` per notification (a redelivery repeats it).
    It carries only what its seat may see: its own status, never the state."""


# passkeys (WebAuthn; service/events/passkeys.py)
class PasskeyOptions(msgspec.Struct, kw_only=True):
    """A WebAuthn ceremony's options: ``public_key`` is what ``navigator.credentials.create`` (registration)
    or ``.get`` (login) takes as ``publicKey``, its binary fields base64url (``PublicKeyCredential.
    parseCreationOptionsFromJSON`` / ``parseRequestOptionsFromJSON`` read it as it is). ``challenge_id`` names
    the server-side challenge the answer must come back with: single use, expiring after five minutes."""

    challenge_id: str
    public_key: dict[str, Any]


class NewPasskeyOptions(msgspec.Struct, forbid_unknown_fields=True):
    """POST /v1/players/me/passkeys/options: nothing needed (a body may be empty)."""

    label: str = "passkey"


class NewPasskey(msgspec.Struct, forbid_unknown_fields=True):
    """The browser's answer to a registration: ``credential`` is ``PublicKeyCredential.toJSON()`` (id, rawId,
    type and response.clientDataJSON / attestationObject / transports, base64url)."""

    challenge_id: str
    credential: dict[str, Any]
    label: str = "passkey"


class PasskeyInfo(msgspec.Struct, kw_only=True):
    """A passkey bound to the player (its public key stays on the server)."""

    credential_id: str
    label: str
    created_at: str
    last_used_at: str | None


class PasskeyList(msgspec.Struct, kw_only=True):
    passkeys: list[PasskeyInfo]


class PasskeyLogin(msgspec.Struct, forbid_unknown_fields=True):
    """The browser's answer to a login: ``credential`` is ``PublicKeyCredential.toJSON()`` of the assertion
    (response.clientDataJSON / authenticatorData / signature / userHandle). ``label`` names the device the
    personal key it gets is for."""

    challenge_id: str
    credential: dict[str, Any]
    label: str = "passkey login"


class PasskeySession(PersonalKey, kw_only=True):
    """A passkey login's answer: a new personal key for this device (shown once, revocable as any other),
    and the passkey that signed in."""

    credential_id: str
