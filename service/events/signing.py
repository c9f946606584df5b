"""The server's Ed25519 signing keys (battle files are signed with them) and the keys it trusts.

A key is created at first start and kept in the database (table ``signing_keys``) or, when configured,
in a file (raw 32-byte private key, hex). Keys have an id (the first 16 hex of sha256 of the public key)
so they can rotate: rotation retires every current key and creates a new one; retired keys still verify
old files and stay published at GET /.well-known/salvo-keys. Other servers' keys are trusted when listed
in a file of the same shape as that endpoint's answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from sqlalchemy import Engine, select, update

from .schema import lock_for_migration
from .tables import KEYS_TABLE

ALG = "Ed25519"


class SignatureProblem(Exception):
    """A signature that does not verify, or one made by a key this server does not trust."""


def key_id_of(public_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(public_hex)).hexdigest()[:16]


def _public_hex(private: Ed25519PrivateKey) -> str:
    return private.public_key().public_bytes_raw().hex()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class PublicKey:
    key_id: str
    public_key: str  # hex
    status: str  # "active" | "retired" | "trusted"
    created_at: str | None = None

    def published(self) -> dict[str, Any]:
        out = {"key_id": self.key_id, "alg": ALG, "public_key": self.public_key, "status": self.status}
        if self.created_at:
            out["created_at"] = self.created_at
        return out


@dataclass
class Keyring:
    """The active signing key, every key of this server (active and retired), and trusted foreign keys."""

    active_id: str
    signer: Ed25519PrivateKey
    own: dict[str, PublicKey]
    trusted: dict[str, PublicKey] = field(default_factory=dict)
    engine: Engine | None = None  # set when the keys live in the database (lets verify see new keys)

    def sign(self, message: bytes) -> dict[str, str]:
        return {"alg": ALG, "key_id": self.active_id, "value": self.signer.sign(message).hex()}

    def verify(self, signature: Any, message: bytes) -> str:
        """Whose key made a valid signature: "this server" or "trusted key <id>". Raises SignatureProblem."""
        if not isinstance(signature, dict) or not all(
            isinstance(signature.get(k), str) for k in ("alg", "key_id", "value")
        ):
            raise SignatureProblem("signature must be {alg, key_id, value}")
        if signature["alg"] != ALG:
            raise SignatureProblem(f"signature algorithm {signature['alg'][:40]!r} is not {ALG}")
        key_id = signature["key_id"]
        if key_id not in self.own and key_id not in self.trusted and self.engine is not None:
            self.own = _db_keys(self.engine)  # another replica may have rotated or created a key
        known = self.own.get(key_id) or self.trusted.get(key_id)
        if known is None:
            raise SignatureProblem(f"signed by key {key_id[:40]!r}, which this server does not trust")
        try:
            value = bytes.fromhex(signature["value"])
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(known.public_key)).verify(value, message)
        except (ValueError, InvalidSignature):
            raise SignatureProblem(f"the signature does not verify with key {key_id}") from None
        return "this server" if key_id in self.own else f"trusted key {key_id}"

    def published(self) -> dict[str, Any]:
        """GET /.well-known/salvo-keys: this server's public keys (never the trusted foreign ones)."""
        return {"keys": [k.published() for k in self.own.values()]}


# --- loading ---------------------------------------------------------------------------------------


def load_keyring(engine: Engine, key_file: str | None = None, trusted_file: str | None = None) -> Keyring:
    """The keyring at start-up: from the configured file, else from the database (created if missing)."""
    trusted = load_trusted(trusted_file) if trusted_file else {}
    if key_file:
        private = _file_key(Path(key_file))
        public = _public_hex(private)
        kid = key_id_of(public)
        return Keyring(kid, private, {kid: PublicKey(kid, public, "active")}, trusted)

    with engine.begin() as conn:
        # under the migration lock: replicas starting together would each create a key, and one that read
        # before another's insert committed would sign with a key its peers do not publish yet
        lock_for_migration(conn)
        current = conn.execute(select(KEYS_TABLE).where(KEYS_TABLE.c.retired_at.is_(None))).all()
        if not current:
            _insert_new(conn)
    return _from_db(engine, trusted)


def rotate(engine: Engine, trusted: dict[str, PublicKey] | None = None) -> Keyring:
    """Retire every current key and create a new active one; old files still verify with retired keys."""
    with engine.begin() as conn:
        conn.execute(update(KEYS_TABLE).where(KEYS_TABLE.c.retired_at.is_(None)).values(retired_at=_now()))
        _insert_new(conn)
    return _from_db(engine, trusted or {})


def load_trusted(path: str) -> dict[str, PublicKey]:
    """A JSON file shaped like GET /.well-known/salvo-keys: {"keys": [{key_id, alg, public_key}, ...]}."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, PublicKey] = {}
    for entry in data.get("keys", []):
        public = str(entry["public_key"])
        if entry.get("alg", ALG) != ALG or key_id_of(public) != entry.get("key_id", key_id_of(public)):
            raise ValueError(f"trusted key {entry.get('key_id')!r} in {path}: not an {ALG} key matching its id")
        out[key_id_of(public)] = PublicKey(key_id_of(public), public, "trusted")
    return out


def _file_key(path: Path) -> Ed25519PrivateKey:
    if path.exists():
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(path.read_text(encoding="ascii").strip()))
    private = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # readable by the service only
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(private.private_bytes_raw().hex() + "\n")
    return private


def _insert_new(conn: Any) -> None:
    private = Ed25519PrivateKey.generate()
    public = _public_hex(private)
    conn.execute(
        KEYS_TABLE.insert(),
        [
            {
                "key_id": key_id_of(public),
                "private_key": private.private_bytes_raw().hex(),
                "public_key": public,
                "created_at": _now(),
                "retired_at": None,
            }
        ],
    )


def _rows(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(KEYS_TABLE).order_by(KEYS_TABLE.c.created_at, KEYS_TABLE.c.key_id)).all())


def _db_keys(engine: Engine) -> dict[str, PublicKey]:
    return {
        r.key_id: PublicKey(r.key_id, r.public_key, "retired" if r.retired_at else "active", r.created_at)
        for r in _rows(engine)
    }


def _from_db(engine: Engine, trusted: dict[str, PublicKey]) -> Keyring:
    rows = _rows(engine)
    # a rotation racing another (salvo keys rotate twice at once) may leave two live keys: take the oldest
    live = next(r for r in rows if r.retired_at is None)
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(live.private_key))
    return Keyring(live.key_id, private, _db_keys(engine), trusted, engine)
