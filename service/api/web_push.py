"""Web Push delivery (RFC 8030/8291/8292) through pywebpush's encryption and py_vapid's signature: the
notification, encrypted (aes128gcm) to the browser's keys, posted to its push endpoint with a VAPID
``Authorization`` signed by the server's key. The request goes through webhooks.post, so a push endpoint
is held to the same rules as any webhook target (public addresses only, no redirects, timeouts)."""

from __future__ import annotations

import json

from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPusher

from service.events.outbox import Due

from .webhooks import Target

TTL_SECONDS = 86_400  # a push service keeps the message this long for a browser that is offline


class PushSender:
    def __init__(self, private_key: ec.EllipticCurvePrivateKey, public_key: str, subject: str) -> None:
        self.vapid = Vapid02(private_key)
        self.public_key = public_key  # base64url, the pages' applicationServerKey
        self.subject = subject  # the operator's contact, as push services ask (mailto: or https:)

    def request(self, due: Due, target: Target) -> tuple[bytes, dict[str, str]]:
        """The encrypted body and the headers of one push message."""
        keys = json.loads(due.push_keys or "{}")
        encoded = WebPusher({"endpoint": due.url, "keys": keys}).encode(due.body.encode(), "aes128gcm")
        default_port = 443 if target.scheme == "https" else 80
        audience = f"{target.scheme}://{target.host}" + ("" if target.port == default_port else f":{target.port}")
        headers = {
            "Content-Type": "application/octet-stream",
            "Content-Encoding": "aes128gcm",
            "TTL": str(TTL_SECONDS),
            "Urgency": "high",
            "User-Agent": "Salvo-Webhook/1",
            **self.vapid.sign({"sub": self.subject, "aud": audience}),
        }
        return bytes(encoded["body"]), headers
