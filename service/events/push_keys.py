"""The server's VAPID key pair for Web Push (RFC 8292): made once by the first process that needs it and kept
in the database, so every replica signs with the key the browsers subscribed with (their
``applicationServerKey``, ``GET /v1/push/key``)."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from .rows import now_iso
from .tables import VAPID_KEYS

KEY_ID = "vapid"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def public_point(key: ec.EllipticCurvePublicKey) -> str:
    return b64url(key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))


def load_or_make(engine: Engine) -> tuple[ec.EllipticCurvePrivateKey, str]:
    """(the private key, its public point in base64url), made and stored on first use."""
    with engine.begin() as conn:
        row = conn.execute(select(VAPID_KEYS).where(VAPID_KEYS.c.key_id == KEY_ID)).first()
    if row is None:
        made = ec.generate_private_key(ec.SECP256R1())
        pem = made.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        try:
            with engine.begin() as conn:
                conn.execute(
                    insert(VAPID_KEYS).values(
                        key_id=KEY_ID, private_key=pem, public_key=public_point(made.public_key()), created_at=now_iso()
                    )
                )
        except IntegrityError:  # another replica made it first: theirs is the key
            pass
        with engine.begin() as conn:
            row = conn.execute(select(VAPID_KEYS).where(VAPID_KEYS.c.key_id == KEY_ID)).one()
    key = serialization.load_pem_private_key(row.private_key.encode(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key, str(row.public_key)
