"""Every operation of the API as a request description: built once, sent by the sync or async client."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import msgspec

from . import models as m

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    answer: type[T] | None  # a model, ``str`` for a text body, None for no body
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    content: bytes | Iterable[bytes] | None = None  # an iterable streams the upload (progress bars)
    headers: dict[str, str] = field(default_factory=dict)
    media: str = "application/json"

    def decode(self, body: bytes) -> T:
        if self.answer is None:
            return None  # type: ignore[return-value]
        if self.answer is str:
            return body.decode()  # type: ignore[return-value]
        return msgspec.json.decode(body, type=self.answer)


def _game(game_id: str) -> str:
    return f"/v1/games/{quote(game_id, safe='')}"


def _drop_none(**params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def rulesets() -> Call[m.RulesetList]:
    return Call("GET", "/v1/rulesets", m.RulesetList)


def scenario(ruleset: str, name: str) -> Call[m.ScenarioResponse]:
    return Call("GET", f"/v1/rulesets/{quote(ruleset, safe='')}/scenarios/{quote(name, safe='')}", m.ScenarioResponse)


def create_game(
    ruleset: str, scenario: str | dict[str, Any], options: dict[str, Any] | None = None
) -> Call[m.GameCreated]:
    return Call(
        "POST", "/v1/games", m.GameCreated, json={"ruleset": ruleset, "scenario": scenario, "options": options or {}}
    )


def game(game_id: str, at: int | None = None) -> Call[m.GameSummary]:
    return Call("GET", _game(game_id), m.GameSummary, params=_drop_none(at=at))


def options(game_id: str) -> Call[m.OptionsResponse]:
    return Call("GET", _game(game_id) + "/options", m.OptionsResponse)


def command(
    game_id: str, body: Any, salt: str = "", idempotency_key: str | None = None, if_match: int | None = None
) -> Call[m.CommandAccepted]:
    headers = {}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    if if_match is not None:
        headers["If-Match"] = str(if_match)
    payload: dict[str, Any] = {"command": body}
    if salt:
        payload["salt"] = salt
    return Call("POST", _game(game_id) + "/commands", m.CommandAccepted, json=payload, headers=headers)


def events(game_id: str, after: int = 0, limit: int = 1000) -> Call[m.EventsPage]:
    return Call("GET", _game(game_id) + "/events", m.EventsPage, params={"after": after, "limit": limit})


def turn(game_id: str, number: int, phase: str | None = None, after: int | None = None) -> Call[m.TurnReplay]:
    """One turn explained; a long turn comes in pages (``next_after`` -> ``after``)."""
    return Call("GET", _game(game_id) + f"/turns/{number}", m.TurnReplay, params=_drop_none(phase=phase, after=after))


def rewind(
    game_id: str, to_seq: int | None = None, turn: int | None = None, phase: str | None = None, reason: str = ""
) -> Call[m.Rewound]:
    return Call(
        "POST",
        _game(game_id) + "/rewind",
        m.Rewound,
        json={**_drop_none(to_seq=to_seq, turn=turn, phase=phase), "reason": reason},
    )


def fork(game_id: str, at: int | None = None) -> Call[m.GameCreated]:
    return Call("POST", _game(game_id) + "/fork", m.GameCreated, params=_drop_none(at=at))


def export(game_id: str) -> Call[str]:
    return Call("GET", _game(game_id) + "/export", str, media="application/x-ndjson")


def import_game(battle_file: bytes) -> Call[m.GameCreated]:
    return Call(
        "POST", "/v1/games/import", m.GameCreated, content=battle_file, headers={"Content-Type": "application/x-ndjson"}
    )


def seat_bot(game_id: str, seat: str, bot: str = "rules") -> Call[m.SeatedBot]:
    return Call("POST", _game(game_id) + "/bots", m.SeatedBot, json={"seat": seat, "bot": bot})


def bots(game_id: str) -> Call[m.BotListing]:
    return Call("GET", _game(game_id) + "/bots", m.BotListing)


def unseat_bot(game_id: str, seat: str) -> Call[None]:
    return Call("DELETE", _game(game_id) + f"/bots/{quote(seat, safe='')}", None)


# --- players and notifications (the bearer is a personal key, pk_…) -----------------------------------


def create_player(label: str = "device") -> Call[m.PersonalKey]:
    return Call("POST", "/v1/players", m.PersonalKey, json={"label": label})


def me() -> Call[m.PlayerInfo]:
    return Call("GET", "/v1/players/me", m.PlayerInfo)


def add_key(label: str = "device") -> Call[m.PersonalKey]:
    return Call("POST", "/v1/players/me/keys", m.PersonalKey, json={"label": label})


def revoke_key(key_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/players/me/keys/{quote(key_id, safe='')}", None)


def claim_seat(token: str) -> Call[m.Claim]:
    return Call("POST", "/v1/players/me/seats", m.Claim, json={"token": token})


def release_seat(game_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/players/me/seats/{quote(game_id, safe='')}", None)


def my_games() -> Call[m.MyGames]:
    return Call("GET", "/v1/players/me/games", m.MyGames)


def mark_seen(game_id: str, version: int | None = None) -> Call[None]:
    return Call("POST", f"/v1/players/me/games/{quote(game_id, safe='')}/seen", None, json=_drop_none(version=version))


def subscribe(
    url: str,
    kind: str = "json",
    game_id: str | None = None,
    seat: str | None = None,
    keys: dict[str, str] | None = None,
) -> Call[m.Subscription]:
    return Call(
        "POST",
        "/v1/players/me/subscriptions",
        m.Subscription,
        json=_drop_none(url=url, kind=kind, game_id=game_id, seat=seat, keys=keys),
    )


def subscriptions() -> Call[m.SubscriptionList]:
    return Call("GET", "/v1/players/me/subscriptions", m.SubscriptionList)


def unsubscribe(subscription_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/players/me/subscriptions/{quote(subscription_id, safe='')}", None)


def resume_subscription(subscription_id: str) -> Call[m.Subscription]:
    return Call("POST", f"/v1/players/me/subscriptions/{quote(subscription_id, safe='')}/resume", m.Subscription)


def push_key() -> Call[m.PushKey]:
    return Call("GET", "/v1/push/key", m.PushKey)


# --- passkeys (WebAuthn): bind one with the personal key; sign in with one (no token needed) -------------


def passkey_options() -> Call[m.PasskeyOptions]:
    return Call("POST", "/v1/players/me/passkeys/options", m.PasskeyOptions, json={})


def add_passkey(challenge_id: str, credential: dict[str, Any], label: str = "passkey") -> Call[m.PasskeyInfo]:
    return Call(
        "POST",
        "/v1/players/me/passkeys",
        m.PasskeyInfo,
        json={"challenge_id": challenge_id, "credential": credential, "label": label},
    )


def passkeys() -> Call[m.PasskeyList]:
    return Call("GET", "/v1/players/me/passkeys", m.PasskeyList)


def remove_passkey(credential_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/players/me/passkeys/{quote(credential_id, safe='')}", None)


def passkey_login_options() -> Call[m.PasskeyOptions]:
    return Call("POST", "/v1/passkeys/login/options", m.PasskeyOptions, json={})


def passkey_login(
    challenge_id: str, credential: dict[str, Any], label: str = "passkey login"
) -> Call[m.PasskeySession]:
    return Call(
        "POST",
        "/v1/passkeys/login",
        m.PasskeySession,
        json={"challenge_id": challenge_id, "credential": credential, "label": label},
    )
