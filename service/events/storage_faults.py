"""The store's failures that are the storage's, not the request's: the database unreachable (503, retry
soon) or out of space (507). ``as_storage_error`` turns the driver's exception into one of these
AppErrors where the store meets it (its reads, its writer), so every caller (HTTP, the lean command
endpoint, the websocket, the bot runner) answers problem+json, never a 500 or a dropped connection.

Logging: one line per kind per ``LOG_INTERVAL`` (with how many more were seen since the last line), not
a traceback per request: a 20-second outage under load wrote megabytes of the same traceback.
``write_failure`` keeps the last failed write for readiness (a store that cannot write is not ready).
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass

from .errors import AppError

log = logging.getLogger("salvo.storage")

LOG_INTERVAL = 10.0  # seconds between two lines of one kind
RETRY_AFTER = 1  # seconds: a database that went away is usually back (or failed over) within seconds


class StorageUnavailable(AppError):
    status = 503
    title = "Storage unavailable"
    retry_after = RETRY_AFTER

    def __init__(self, detail: str = "the database cannot be reached; nothing was written, retry shortly") -> None:
        super().__init__(detail)


class StorageFull(AppError):
    status = 507
    title = "Insufficient storage"
    retry_after = 30

    def __init__(self, detail: str = "the database is out of space; nothing was written") -> None:
        super().__init__(detail)


# SQLSTATE classes: 08 connection exception, 57P0x the server shutting down or starting, 53 insufficient
# resources (53100 disk full); psycopg's ``sqlstate``
_UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300")
_FULL_STATES = ("53100",)
_FULL_WORDS = ("database or disk is full", "no space left on device", "disk full")
_SQLITE_UNAVAILABLE_WORDS = ("database is locked", "unable to open database file", "disk i/o error")


def kind_of(exc: BaseException) -> str | None:
    """ "full", "unavailable", or None when ``exc`` is not a storage failure (a bug, a conflict...)."""
    if isinstance(exc, StorageFull):
        return "full"
    if isinstance(exc, StorageUnavailable):
        return "unavailable"
    for err in _chain(exc):
        kind = _kind_of_one(err)
        if kind is not None:
            return kind
    return None


def _kind_of_one(err: BaseException) -> str | None:
    """One exception of the chain, by its errno, its SQLSTATE, or its driver's type and words."""
    if isinstance(err, OSError) and err.errno == errno.ENOSPC:
        return "full"
    kind = _by_sqlstate(getattr(err, "sqlstate", None))
    if kind is not None:
        return kind
    text = str(err).lower()
    if isinstance(err, sqlite3.Error):  # sqlite3 names SQL mistakes OperationalError too: by its words
        if any(word in text for word in _FULL_WORDS):
            return "full"
        if any(word in text for word in _SQLITE_UNAVAILABLE_WORDS):
            return "unavailable"
        return None
    module, name = type(err).__module__, type(err).__name__
    if module.startswith("psycopg") and name in ("OperationalError", "InterfaceError"):
        return "full" if any(word in text for word in _FULL_WORDS) else "unavailable"  # the connection's
    if module.startswith("sqlalchemy") and name in ("TimeoutError", "DisconnectionError"):
        return "unavailable"  # no pooled connection in time, or one found dead
    return None


def _by_sqlstate(state: object) -> str | None:
    if isinstance(state, str):
        if state.startswith(_FULL_STATES):
            return "full"
        if state.startswith(_UNAVAILABLE_STATES):
            return "unavailable"
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 8:
        seen.append(current)
        orig = getattr(current, "orig", None)  # SQLAlchemy's wrapped DB-API error
        current = orig if isinstance(orig, BaseException) else (current.__cause__ or current.__context__)
    return seen


def as_storage_error(exc: BaseException, writing: bool = False) -> BaseException:
    """``exc`` as StorageUnavailable or StorageFull (logged, rate-limited), or ``exc`` itself."""
    if isinstance(exc, (StorageUnavailable, StorageFull)):
        return exc
    kind = kind_of(exc)
    if kind is None:
        return exc
    FAULTS.seen(kind, exc, writing)
    error: AppError = StorageFull() if kind == "full" else StorageUnavailable()
    error.__cause__ = exc
    return error


@dataclass
class WriteFailure:
    kind: str
    at: float  # time.monotonic()


class StorageFaults:
    """What the process saw of its storage's failures: the log's rate limit and the last failed write."""

    def __init__(self, interval: float = LOG_INTERVAL) -> None:
        self.interval = interval
        self._lock = threading.Lock()  # the writer thread and the readers' threads report here
        self._logged: dict[str, float] = {}  # kind -> when its last line was written
        self._unlogged: dict[str, int] = {}  # kind -> failures since that line
        self.write_failure: WriteFailure | None = None
        self.counts: dict[str, int] = {"full": 0, "unavailable": 0}

    def seen(self, kind: str, exc: BaseException, writing: bool) -> None:
        now = time.monotonic()
        with self._lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if writing:
                self.write_failure = WriteFailure(kind, now)
            last = self._logged.get(kind)
            if last is not None and now - last < self.interval:
                self._unlogged[kind] = self._unlogged.get(kind, 0) + 1
                return
            more = self._unlogged.pop(kind, 0)
            self._logged[kind] = now
        since = f" ({more} more in the last {self.interval:.0f} s)" if more else ""
        log.error(
            "storage %s: %s: %s%s", kind, type(exc).__name__, _first_line(exc), since, extra={"storage_fault": kind}
        )

    def wrote(self) -> None:
        """A write went through since the last failure: the store writes again."""
        self.write_failure = None


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0][:200] if text else ""


FAULTS = StorageFaults()  # per process, as the store's writer is


def noted_as_storage_fault(exc: BaseException) -> bool:
    """For a background loop's failure (the notifier, the deadline scheduler): True when it is the storage
    failing, counted and logged here at most once per kind and interval; False: the caller logs it."""
    if isinstance(exc, (StorageUnavailable, StorageFull)):
        return True  # already counted and logged where it was raised
    kind = kind_of(exc)
    if kind is None:
        return False
    FAULTS.seen(kind, exc, writing=False)
    return True


__all__ = ["FAULTS", "StorageFaults", "StorageFull", "StorageUnavailable", "as_storage_error", "kind_of"]
