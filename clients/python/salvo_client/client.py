"""The typed HTTP client, sync (``SalvoClient``) and async (``AsyncSalvoClient``): one method per operation.

    with SalvoClient("http://127.0.0.1:8000") as salvo:
        game = salvo.create_game("gsc2", "duel")
        red = salvo.with_token(game.seats["red"])
        opts = red.options(game.game_id)
        red.command(game.game_id, opts.options[0].command, if_match=opts.version)

Every failure raises ``ApiError`` carrying the server's problem (rule or field named).
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx

from . import calls
from . import models as m
from .calls import Call
from .errors import raise_for

T = TypeVar("T")


def _headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class SalvoClient:
    def __init__(
        self, base_url: str, token: str | None = None, timeout: float = 30.0, http: httpx.Client | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.http = http or httpx.Client(base_url=self.base_url, timeout=timeout)

    def with_token(self, token: str | None) -> SalvoClient:
        """The same connection, speaking for another seat (or the umpire, or a spectator: None)."""
        return SalvoClient(self.base_url, token, http=self.http)

    def send(self, call: Call[T]) -> T:
        r = self.http.request(
            call.method,
            call.path,
            params=call.params,
            json=call.json,
            content=call.content,
            headers={**_headers(self.token), **call.headers},
        )
        raise_for(r.status_code, r.content)
        return call.decode(r.content)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> SalvoClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def rulesets(self) -> m.RulesetList:
        return self.send(calls.rulesets())

    def scenario(self, ruleset: str, name: str) -> m.ScenarioResponse:
        return self.send(calls.scenario(ruleset, name))

    def create_game(
        self, ruleset: str, scenario: str | dict[str, Any], options: dict[str, Any] | None = None
    ) -> m.GameCreated:
        return self.send(calls.create_game(ruleset, scenario, options))

    def game(self, game_id: str, at: int | None = None) -> m.GameSummary:
        return self.send(calls.game(game_id, at))

    def options(self, game_id: str) -> m.OptionsResponse:
        return self.send(calls.options(game_id))

    def command(
        self, game_id: str, body: Any, salt: str = "", idempotency_key: str | None = None, if_match: int | None = None
    ) -> m.CommandAccepted:
        return self.send(calls.command(game_id, body, salt, idempotency_key, if_match))

    def events(self, game_id: str, after: int = 0, limit: int = 1000) -> m.EventsPage:
        return self.send(calls.events(game_id, after, limit))

    def turn(self, game_id: str, number: int, phase: str | None = None) -> m.TurnReplay:
        return self.send(calls.turn(game_id, number, phase))

    def rewind(
        self,
        game_id: str,
        to_seq: int | None = None,
        turn: int | None = None,
        phase: str | None = None,
        reason: str = "",
    ) -> m.Rewound:
        return self.send(calls.rewind(game_id, to_seq, turn, phase, reason))

    def fork(self, game_id: str, at: int | None = None) -> m.GameCreated:
        return self.send(calls.fork(game_id, at))

    def export(self, game_id: str) -> str:
        return self.send(calls.export(game_id))

    def import_game(self, battle_file: bytes) -> m.GameCreated:
        return self.send(calls.import_game(battle_file))

    def seat_bot(self, game_id: str, seat: str, bot: str = "rules") -> m.SeatedBot:
        return self.send(calls.seat_bot(game_id, seat, bot))

    def bots(self, game_id: str) -> m.BotListing:
        return self.send(calls.bots(game_id))

    def unseat_bot(self, game_id: str, seat: str) -> None:
        self.send(calls.unseat_bot(game_id, seat))

    # players and notifications: the client's token is a personal key (create_player's, or pk_…)
    def create_player(self, label: str = "device") -> m.PersonalKey:
        return self.send(calls.create_player(label))

    def me(self) -> m.PlayerInfo:
        return self.send(calls.me())

    def add_key(self, label: str = "device") -> m.PersonalKey:
        return self.send(calls.add_key(label))

    def revoke_key(self, key_id: str) -> None:
        self.send(calls.revoke_key(key_id))

    def claim_seat(self, token: str) -> m.Claim:
        return self.send(calls.claim_seat(token))

    def release_seat(self, game_id: str) -> None:
        self.send(calls.release_seat(game_id))

    def my_games(self) -> m.MyGames:
        return self.send(calls.my_games())

    def mark_seen(self, game_id: str, version: int | None = None) -> None:
        self.send(calls.mark_seen(game_id, version))

    def subscribe(
        self,
        url: str,
        kind: str = "json",
        game_id: str | None = None,
        seat: str | None = None,
        keys: dict[str, str] | None = None,
    ) -> m.Subscription:
        return self.send(calls.subscribe(url, kind, game_id, seat, keys))

    def subscriptions(self) -> m.SubscriptionList:
        return self.send(calls.subscriptions())

    def unsubscribe(self, subscription_id: str) -> None:
        self.send(calls.unsubscribe(subscription_id))

    def resume_subscription(self, subscription_id: str) -> m.Subscription:
        return self.send(calls.resume_subscription(subscription_id))

    def push_key(self) -> m.PushKey:
        return self.send(calls.push_key())

    # passkeys: ``credential`` is the authenticator's answer as PublicKeyCredential.toJSON() gives it
    def passkey_options(self) -> m.PasskeyOptions:
        return self.send(calls.passkey_options())

    def add_passkey(self, challenge_id: str, credential: dict[str, Any], label: str = "passkey") -> m.PasskeyInfo:
        return self.send(calls.add_passkey(challenge_id, credential, label))

    def passkeys(self) -> m.PasskeyList:
        return self.send(calls.passkeys())

    def remove_passkey(self, credential_id: str) -> None:
        self.send(calls.remove_passkey(credential_id))

    def passkey_login_options(self) -> m.PasskeyOptions:
        return self.send(calls.passkey_login_options())

    def passkey_login(
        self, challenge_id: str, credential: dict[str, Any], label: str = "passkey login"
    ) -> m.PasskeySession:
        return self.send(calls.passkey_login(challenge_id, credential, label))


class AsyncSalvoClient:
    def __init__(
        self, base_url: str, token: str | None = None, timeout: float = 30.0, http: httpx.AsyncClient | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.http = http or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)

    def with_token(self, token: str | None) -> AsyncSalvoClient:
        return AsyncSalvoClient(self.base_url, token, http=self.http)

    async def send(self, call: Call[T]) -> T:
        r = await self.http.request(
            call.method,
            call.path,
            params=call.params,
            json=call.json,
            content=call.content,
            headers={**_headers(self.token), **call.headers},
        )
        raise_for(r.status_code, r.content)
        return call.decode(r.content)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncSalvoClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def rulesets(self) -> m.RulesetList:
        return await self.send(calls.rulesets())

    async def scenario(self, ruleset: str, name: str) -> m.ScenarioResponse:
        return await self.send(calls.scenario(ruleset, name))

    async def create_game(
        self, ruleset: str, scenario: str | dict[str, Any], options: dict[str, Any] | None = None
    ) -> m.GameCreated:
        return await self.send(calls.create_game(ruleset, scenario, options))

    async def game(self, game_id: str, at: int | None = None) -> m.GameSummary:
        return await self.send(calls.game(game_id, at))

    async def options(self, game_id: str) -> m.OptionsResponse:
        return await self.send(calls.options(game_id))

    async def command(
        self, game_id: str, body: Any, salt: str = "", idempotency_key: str | None = None, if_match: int | None = None
    ) -> m.CommandAccepted:
        return await self.send(calls.command(game_id, body, salt, idempotency_key, if_match))

    async def events(self, game_id: str, after: int = 0, limit: int = 1000) -> m.EventsPage:
        return await self.send(calls.events(game_id, after, limit))

    async def turn(self, game_id: str, number: int, phase: str | None = None) -> m.TurnReplay:
        return await self.send(calls.turn(game_id, number, phase))

    async def rewind(
        self,
        game_id: str,
        to_seq: int | None = None,
        turn: int | None = None,
        phase: str | None = None,
        reason: str = "",
    ) -> m.Rewound:
        return await self.send(calls.rewind(game_id, to_seq, turn, phase, reason))

    async def fork(self, game_id: str, at: int | None = None) -> m.GameCreated:
        return await self.send(calls.fork(game_id, at))

    async def export(self, game_id: str) -> str:
        return await self.send(calls.export(game_id))

    async def import_game(self, battle_file: bytes) -> m.GameCreated:
        return await self.send(calls.import_game(battle_file))

    async def seat_bot(self, game_id: str, seat: str, bot: str = "rules") -> m.SeatedBot:
        return await self.send(calls.seat_bot(game_id, seat, bot))

    async def bots(self, game_id: str) -> m.BotListing:
        return await self.send(calls.bots(game_id))

    async def unseat_bot(self, game_id: str, seat: str) -> None:
        await self.send(calls.unseat_bot(game_id, seat))

    # players and notifications: the client's token is a personal key (create_player's, or pk_…)
    async def create_player(self, label: str = "device") -> m.PersonalKey:
        return await self.send(calls.create_player(label))

    async def me(self) -> m.PlayerInfo:
        return await self.send(calls.me())

    async def add_key(self, label: str = "device") -> m.PersonalKey:
        return await self.send(calls.add_key(label))

    async def revoke_key(self, key_id: str) -> None:
        await self.send(calls.revoke_key(key_id))

    async def claim_seat(self, token: str) -> m.Claim:
        return await self.send(calls.claim_seat(token))

    async def release_seat(self, game_id: str) -> None:
        await self.send(calls.release_seat(game_id))

    async def my_games(self) -> m.MyGames:
        return await self.send(calls.my_games())

    async def mark_seen(self, game_id: str, version: int | None = None) -> None:
        await self.send(calls.mark_seen(game_id, version))

    async def subscribe(
        self,
        url: str,
        kind: str = "json",
        game_id: str | None = None,
        seat: str | None = None,
        keys: dict[str, str] | None = None,
    ) -> m.Subscription:
        return await self.send(calls.subscribe(url, kind, game_id, seat, keys))

    async def subscriptions(self) -> m.SubscriptionList:
        return await self.send(calls.subscriptions())

    async def unsubscribe(self, subscription_id: str) -> None:
        await self.send(calls.unsubscribe(subscription_id))

    async def resume_subscription(self, subscription_id: str) -> m.Subscription:
        return await self.send(calls.resume_subscription(subscription_id))

    async def push_key(self) -> m.PushKey:
        return await self.send(calls.push_key())

    async def passkey_options(self) -> m.PasskeyOptions:
        return await self.send(calls.passkey_options())

    async def add_passkey(self, challenge_id: str, credential: dict[str, Any], label: str = "passkey") -> m.PasskeyInfo:
        return await self.send(calls.add_passkey(challenge_id, credential, label))

    async def passkeys(self) -> m.PasskeyList:
        return await self.send(calls.passkeys())

    async def remove_passkey(self, credential_id: str) -> None:
        await self.send(calls.remove_passkey(credential_id))

    async def passkey_login_options(self) -> m.PasskeyOptions:
        return await self.send(calls.passkey_login_options())

    async def passkey_login(
        self, challenge_id: str, credential: dict[str, Any], label: str = "passkey login"
    ) -> m.PasskeySession:
        return await self.send(calls.passkey_login(challenge_id, credential, label))
