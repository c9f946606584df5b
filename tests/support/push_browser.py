"""What a browser's PushManager holds for one Web Push subscription (its P-256 key pair and auth secret),
and the decryption a browser makes of what arrives (aes128gcm, RFC 8291): for tests with a local push
endpoint (tests/api/test_web_push.py, tests/web/test_my_games.py)."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Browser:
    """What a browser's PushManager holds for one subscription: its key pair and auth secret."""

    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.keys = {"p256dh": b64url(point), "auth": b64url(self.auth)}

    def decrypt(self, body: bytes) -> Any:
        return json.loads(
            http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")
        )
