"""Passkeys (WebAuthn, issue 40): a player binds a public-key credential of their device to their identity,
and later signs in with it, with no password and no key to paste: the login answers with a new personal
key for that device (``players.Players.add_key``), shown once like every personal key.

The ceremonies are py_webauthn's (``webauthn``, pinned): this module keeps what they need server-side.

- A challenge is issued for one ceremony (``register`` for a player, or ``login`` for anyone), kept in
  ``webauthn_challenges`` with an expiry (CHALLENGE_TTL_MS), and consumed by the first answer naming it,
  verified or not: a replayed answer, or a second try with the same challenge, finds nothing.
- Registration asks for a discoverable credential (resident key), so the login needs no user name: the
  browser offers the passkeys it holds for the relying party, and the answer names its credential id,
  which finds the player. No attestation is asked for (``none``): a passkey proves possession, not make.
- The signature counter is checked and kept (a cloned authenticator whose counter goes back is refused by
  the library); the relying party id and the allowed origins are the caller's (the API's settings, or the
  request's own host: a WebAuthn credential is scoped to a host name, ``localhost`` in the tests).

Storage: the ``passkeys`` and ``webauthn_challenges`` tables (migration 0008) on the SQL store's engine,
each call short transactions on a worker thread."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .errors import InvalidRequest, NotFound, Unauthorized
from .players import Players
from .rows import now_iso
from .tables import PASSKEYS, PLAYERS, WEBAUTHN_CHALLENGES

CHALLENGE_TTL_MS = 5 * 60 * 1000  # a ceremony answered later than this starts again
TIMEOUT_MS = 120_000  # what the browser is told it may take
MAX_PASSKEYS = 20  # per player
MAX_LIVE_CHALLENGES = 20_000  # unexpired challenges kept at once (login options need no identity)
RP_NAME = "Salvo"

T = TypeVar("T")


def now_ms() -> int:
    return int(time.time() * 1000)


def described(row: Any) -> dict[str, Any]:
    return {
        "credential_id": row.credential_id,
        "label": row.label,
        "created_at": row.created_at,
        "last_used_at": row.last_used_at,
    }


class ChallengesExhausted(Exception):
    """Too many ceremonies are open at once: the caller answers 429."""


class Passkeys:
    def __init__(self, engine: Engine, players: Players) -> None:
        self.engine = engine
        self.players = players

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # --- challenges ----------------------------------------------------------------------------------

    def _issue(self, conn: Any, purpose: str, challenge: bytes, player_id: str | None) -> str:
        now = now_ms()
        conn.execute(delete(WEBAUTHN_CHALLENGES).where(WEBAUTHN_CHALLENGES.c.expires_at < now))
        live = conn.execute(select(func.count()).select_from(WEBAUTHN_CHALLENGES)).scalar_one()
        if live >= MAX_LIVE_CHALLENGES:
            raise ChallengesExhausted("too many passkey ceremonies are open; retry in a few minutes")
        challenge_id = "c_" + secrets.token_urlsafe(16)
        conn.execute(
            insert(WEBAUTHN_CHALLENGES).values(
                id=challenge_id,
                purpose=purpose,
                challenge=bytes_to_base64url(challenge),
                player_id=player_id,
                expires_at=now + CHALLENGE_TTL_MS,
            )
        )
        return challenge_id

    def _take(self, challenge_id: str, purpose: str, player_id: str | None) -> bytes:
        """The challenge, consumed (whatever the answer turns out to be); Unauthorized when it is unknown,
        used, expired, of another ceremony or of another player."""
        with self.engine.begin() as conn:
            row = conn.execute(select(WEBAUTHN_CHALLENGES).where(WEBAUTHN_CHALLENGES.c.id == challenge_id)).first()
            taken = conn.execute(delete(WEBAUTHN_CHALLENGES).where(WEBAUTHN_CHALLENGES.c.id == challenge_id)).rowcount
        if row is None or not taken or row.expires_at < now_ms():
            raise Unauthorized("the passkey challenge is unknown, used or expired: ask for new options")
        if row.purpose != purpose or row.player_id != player_id:
            raise Unauthorized("the passkey challenge was issued for another ceremony")
        return base64url_to_bytes(row.challenge)

    # --- registration --------------------------------------------------------------------------------

    async def registration_options(self, player_id: str, rp_id: str) -> dict[str, Any]:
        """The ``publicKey`` options for ``navigator.credentials.create`` (JSON, binary fields base64url),
        and the id of the challenge they carry."""

        def work() -> dict[str, Any]:
            with self.engine.begin() as conn:
                held = conn.execute(
                    select(PASSKEYS.c.credential_id, PASSKEYS.c.transports).where(PASSKEYS.c.player_id == player_id)
                ).all()
                if len(held) >= MAX_PASSKEYS:
                    raise InvalidRequest(f"a player holds at most {MAX_PASSKEYS} passkeys: remove one first")
                options = generate_registration_options(
                    rp_id=rp_id,
                    rp_name=RP_NAME,
                    user_id=player_id.encode(),
                    user_name=f"salvo-{player_id}",
                    user_display_name=f"Salvo player {player_id}",
                    timeout=TIMEOUT_MS,
                    authenticator_selection=AuthenticatorSelectionCriteria(
                        resident_key=ResidentKeyRequirement.REQUIRED,
                        require_resident_key=True,
                        user_verification=UserVerificationRequirement.PREFERRED,
                    ),
                    exclude_credentials=[
                        PublicKeyCredentialDescriptor(id=base64url_to_bytes(h.credential_id)) for h in held
                    ],
                )
                challenge_id = self._issue(conn, "register", options.challenge, player_id)
            return {"challenge_id": challenge_id, "public_key": json.loads(options_to_json(options))}

        return await self._run(work)

    async def register(
        self, player_id: str, challenge_id: str, credential: dict[str, Any], rp_id: str, origins: list[str], label: str
    ) -> dict[str, Any]:
        """Verify the browser's answer to a registration challenge and keep the credential."""

        def work() -> dict[str, Any]:
            challenge = self._take(challenge_id, "register", player_id)
            try:
                verified = verify_registration_response(
                    credential=credential,
                    expected_challenge=challenge,
                    expected_rp_id=rp_id,
                    expected_origin=origins,
                )
            except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
                raise Unauthorized(f"the passkey registration did not verify: {exc}") from None
            transports = credential.get("response", {}).get("transports")
            row = {
                "credential_id": bytes_to_base64url(verified.credential_id),
                "player_id": player_id,
                "public_key": bytes_to_base64url(verified.credential_public_key),
                "sign_count": verified.sign_count,
                "transports": json.dumps(transports) if isinstance(transports, list) else None,
                "label": label,
                "created_at": now_iso(),
                "last_used_at": None,
            }
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(PASSKEYS).values(**row))
                    kept = conn.execute(select(PASSKEYS).where(PASSKEYS.c.credential_id == row["credential_id"])).one()
            except IntegrityError:
                raise InvalidRequest("this passkey is registered already", field="credential") from None
            return described(kept)

        return await self._run(work)

    # --- login ---------------------------------------------------------------------------------------

    async def login_options(self, rp_id: str) -> dict[str, Any]:
        """The ``publicKey`` options for ``navigator.credentials.get``: no credentials named (the browser
        offers the discoverable passkeys it holds for ``rp_id``)."""

        def work() -> dict[str, Any]:
            options = generate_authentication_options(
                rp_id=rp_id, timeout=TIMEOUT_MS, user_verification=UserVerificationRequirement.PREFERRED
            )
            with self.engine.begin() as conn:
                challenge_id = self._issue(conn, "login", options.challenge, None)
            return {"challenge_id": challenge_id, "public_key": json.loads(options_to_json(options))}

        return await self._run(work)

    async def login(
        self, challenge_id: str, credential: dict[str, Any], rp_id: str, origins: list[str], label: str
    ) -> dict[str, Any]:
        """Verify the browser's answer to a login challenge: the passkey's player, and a new personal key
        for this device (``Players.add_key``: shown once)."""

        def work() -> str:
            challenge = self._take(challenge_id, "login", None)
            credential_id = credential.get("id") if isinstance(credential, dict) else None
            if not isinstance(credential_id, str):
                raise InvalidRequest("the credential names no id", field="credential")
            with self.engine.connect() as conn:
                stored = conn.execute(select(PASSKEYS).where(PASSKEYS.c.credential_id == credential_id)).first()
            if stored is None:
                raise Unauthorized("this passkey is not registered here (or was removed)")
            try:
                verified = verify_authentication_response(
                    credential=credential,
                    expected_challenge=challenge,
                    expected_rp_id=rp_id,
                    expected_origin=origins,
                    credential_public_key=base64url_to_bytes(stored.public_key),
                    credential_current_sign_count=stored.sign_count,
                )
            except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
                raise Unauthorized(f"the passkey login did not verify: {exc}") from None
            with self.engine.begin() as conn:
                conn.execute(
                    update(PASSKEYS)
                    .where(PASSKEYS.c.credential_id == credential_id)
                    .values(sign_count=verified.new_sign_count, last_used_at=now_iso())
                )
                if conn.execute(select(PLAYERS.c.id).where(PLAYERS.c.id == stored.player_id)).first() is None:
                    raise Unauthorized("the passkey's player is gone")
            return str(stored.player_id)

        player_id = await self._run(work)
        made = await self.players.add_key(player_id, label)
        return {**made, "credential_id": credential.get("id")}

    # --- the player's passkeys -----------------------------------------------------------------------

    async def listed(self, player_id: str) -> list[dict[str, Any]]:
        def work() -> list[Any]:
            with self.engine.connect() as conn:
                return list(
                    conn.execute(
                        select(PASSKEYS)
                        .where(PASSKEYS.c.player_id == player_id)
                        .order_by(PASSKEYS.c.created_at, PASSKEYS.c.credential_id)
                    )
                )

        return [described(r) for r in await self._run(work)]

    async def remove(self, player_id: str, credential_id: str) -> None:
        def work() -> int:
            with self.engine.begin() as conn:
                return conn.execute(
                    delete(PASSKEYS).where(PASSKEYS.c.player_id == player_id, PASSKEYS.c.credential_id == credential_id)
                ).rowcount

        if not await self._run(work):
            raise NotFound(f"no passkey {credential_id!r} of this player", field="credential_id")
