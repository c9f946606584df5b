"""The notifier: delivers the outbox's notifications (service/events/outbox.py) to their webhooks, signed,
each with its idempotency key, retried with backoff; and keeps the index of watched games fresh for the
other replicas' claims and subscriptions (service/events/watchers.py).

One task per process. It looks for due rows every ``SALVO_NOTIFY_POLL_SECONDS`` and as soon as a command
of a watched game has been decided here (``wake``), leases a few, and delivers them concurrently."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgspec

from service.events.outbox import Due, Outbox
from service.events.storage_faults import noted_as_storage_fault
from service.events.watchers import Notice, Watchers

from .web_push import PushSender
from .webhooks import AllowList, DeliveryFailed, TargetRefused, check_target, post, signed_headers

log = logging.getLogger(__name__)

BATCH = 20  # rows leased per round
AFTER_WAKE = (0.002, 0.005, 0.01, 0.02, 0.05)  # seconds: looks after a wake-up that found nothing yet
REFRESH_EVERY = 5.0  # seconds between reloads of the watched games' index (other replicas' changes)


def body_for(due: Due) -> bytes:
    """The body in the subscription's shape: the notification itself, or a chat server's message."""
    if due.shape == "json":
        return due.body.encode()
    text = msgspec.json.decode(due.body, type=Notice).text
    if due.shape == "discord":  # mentions never parsed: a notification pings nobody
        return msgspec.json.encode({"content": text, "allowed_mentions": {"parse": []}})
    return msgspec.json.encode({"text": text})


class Notifier:
    def __init__(
        self,
        outbox: Outbox,
        watchers: Watchers,
        allow: AllowList,
        timeout: float,
        poll: float,
        push: PushSender | None = None,
    ) -> None:
        self.outbox = outbox
        self.push = push  # Web Push (VAPID); None: webpush subscriptions fail their deliveries
        self.watchers = watchers
        self.allow = allow
        self.timeout = timeout
        self.poll = poll
        self.lease_seconds = 2 * timeout + 1  # one attempt: connect, then read
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.delivered = 0
        self.failures = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def wake(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        refreshed = loop.time()
        woken = False
        while True:
            self._wake.clear()  # before the round: a wake-up during it starts the next one at once
            try:
                if loop.time() - refreshed >= REFRESH_EVERY:
                    refreshed = loop.time()
                    await self.watchers.refresh()
                found = 0
                while leased := await self.deliver_due():
                    found += leased
                # woken when a command decided its notifications, which land with its commit a moment later:
                # look again shortly rather than a whole poll later
                for pause in AFTER_WAKE if woken and not found else ():
                    await asyncio.sleep(pause)
                    if await self.deliver_due():
                        break
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database away: try again next round
                if not noted_as_storage_fault(exc):
                    log.exception("the notifier's round failed")
            try:
                await asyncio.wait_for(self._wake.wait(), self.poll)
                woken = True
            except TimeoutError:
                woken = False

    async def deliver_due(self) -> int:
        """Lease and deliver one round of due rows; how many were leased."""
        leased = await self.outbox.lease(BATCH, self.lease_seconds)
        if leased:
            await asyncio.gather(*(self._deliver(due) for due in leased))
        return len(leased)

    async def _deliver(self, due: Due) -> None:
        try:
            target = await check_target(due.url, self.allow)  # again: a name may resolve elsewhere now
            if due.shape == "webpush":
                if self.push is None:
                    raise DeliveryFailed("Web Push is not set up on this server")
                body, headers = self.push.request(due, target)
            else:
                body = body_for(due)
                headers = signed_headers(due.secret, due.id, due.kind, body)
            await post(target, body, headers, self.timeout)
        except (TargetRefused, DeliveryFailed) as exc:
            self.failures += 1
            if await self.outbox.failed(due, exc.detail if isinstance(exc, TargetRefused) else str(exc)):
                log.warning("subscription %s paused after failed deliveries", due.subscription_id)
                await self.watchers.refresh()
            return
        self.delivered += 1
        await self.outbox.delivered(due)
