"""Webhook delivery that cannot be turned against the host.

A target is an http(s) URL whose host resolves only to addresses outside the private, loopback,
link-local, shared, multicast and reserved ranges, unless the operator's allow-list
(``SALVO_WEBHOOK_ALLOW``: host names, addresses or networks) names it. The check runs when a subscription
is made and again before every delivery, and the connection goes to an address the check passed (a name
that resolves elsewhere in between is not called: no DNS rebinding). Redirects are not followed (a 3xx
is a failure), connecting and reading each have a timeout, and only the head and a bounded part of the
answer are read: the status is all a delivery needs.

The request is written by hand on asyncio's streams (no client library): the connection, its address
and every limit are then exactly those above."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.events.errors import InvalidRequest

MAX_ANSWER_BYTES = 64 * 1024  # the answer's head and body read at most (the rest is never read)
MAX_URL = 2000
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TargetRefused(InvalidRequest):
    """The URL may not be called from this server (or cannot be resolved)."""


class DeliveryFailed(Exception):
    pass


@dataclass(frozen=True)
class AllowList:
    names: frozenset[str]
    networks: tuple[Network, ...]

    @classmethod
    def parse(cls, items: tuple[str, ...] | list[str]) -> AllowList:
        names, networks = set(), []
        for item in items:
            try:
                networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                names.add(item.strip().lower().rstrip("."))
        return cls(frozenset(names), tuple(networks))

    def allows(self, host: str, address: Address) -> bool:
        return host in self.names or any(address in net for net in self.networks if net.version == address.version)


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str  # path and query, as sent in the request line
    addresses: tuple[str, ...]  # the checked addresses, connected to in order


def _public(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not (
        address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


def split_target(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of an acceptable URL's shape; TargetRefused naming ``url`` otherwise."""
    if len(url) > MAX_URL:
        raise TargetRefused(f"the URL is longer than {MAX_URL} characters", field="url")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise TargetRefused(f"not a URL: {exc}", field="url") from None
    if parts.scheme not in ("http", "https"):
        raise TargetRefused("only http and https targets are called", field="url")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("a target URL carries no user or password", field="url")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise TargetRefused("the URL names no host", field="url")
    if any(c in url for c in "\r\n\t "):
        raise TargetRefused("the URL holds white space", field="url")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path


async def check_target(url: str, allow: AllowList) -> Target:
    """The target, resolved and checked; TargetRefused (problem+json naming ``url``) when any address it
    resolves to is private, loopback, link-local or otherwise not public and the allow-list does not
    name it. Nothing is connected to here."""
    scheme, host, port, path = split_target(url)
    try:
        literal: Address | None = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None:
        found = [literal]
    else:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise TargetRefused(f"the host {host!r} does not resolve: {exc}", field="url") from None
        found = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not found:
        raise TargetRefused(f"the host {host!r} resolves to no address", field="url")
    for address in found:
        if not _public(address) and not allow.allows(host, address):
            raise TargetRefused(
                f"the host {host!r} resolves to {address}, which is not public (private, "
                "loopback, link-local or reserved): SALVO_WEBHOOK_ALLOW must name it",
                field="url",
            )
    return Target(scheme, host, port, path, tuple(dict.fromkeys(str(a) for a in found)))


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``X-Salvo-Signature``: HMAC-SHA256 of "<timestamp>." + body, keyed by the subscription's secret."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def signed_headers(secret: str, key: str, event: str, body: bytes) -> dict[str, str]:
    timestamp = str(int(time.time()))
    return {
        "Content-Type": "application/json",
        "User-Agent": "Salvo-Webhook/1",
        "Idempotency-Key": key,
        "X-Salvo-Event": event,
        "X-Salvo-Timestamp": timestamp,
        "X-Salvo-Signature": signature(secret, timestamp, body),
    }


async def post(target: Target, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST ``body`` to the checked target; its status (2xx) or DeliveryFailed saying why not."""
    context = ssl.create_default_context() if target.scheme == "https" else None
    last: Exception | None = None
    for address in target.addresses[:3]:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    address,
                    target.port,
                    ssl=context,
                    server_hostname=target.host if context else None,
                    limit=MAX_ANSWER_BYTES,
                ),
                timeout,
            )
        except (TimeoutError, OSError, ssl.SSLError) as exc:
            last = exc
            continue
        try:
            return await _exchange(reader, writer, target, body, headers, timeout)
        finally:
            writer.close()
    raise DeliveryFailed(f"could not connect: {last!r}")


async def _exchange(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    target: Target,
    body: bytes,
    headers: dict[str, str],
    timeout: float,
) -> int:
    default_port = 443 if target.scheme == "https" else 80
    host = target.host if target.port == default_port else f"{target.host}:{target.port}"
    if ":" in target.host:
        host = f"[{target.host}]" + ("" if target.port == default_port else f":{target.port}")
    lines = [
        f"POST {target.path} HTTP/1.1",
        f"Host: {host}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    try:
        await asyncio.wait_for(writer.drain(), timeout)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except asyncio.LimitOverrunError:
        raise DeliveryFailed(f"the answer's head is longer than {MAX_ANSWER_BYTES} bytes") from None
    except asyncio.IncompleteReadError:
        raise DeliveryFailed("the connection closed before an answer") from None
    except (TimeoutError, OSError, ssl.SSLError) as exc:
        raise DeliveryFailed(f"no answer: {exc!r}") from None
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise DeliveryFailed(f"not an HTTP answer: {status_line[:80]!r}")
    status = int(parts[1])
    if 300 <= status < 400:
        raise DeliveryFailed(f"answered {status}: redirects are not followed")
    if not 200 <= status < 300:
        raise DeliveryFailed(f"answered {status}")
    return status
