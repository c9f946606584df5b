"""GET /readyz: may a load balancer send this replica work?

Not ready (503) when the database does not answer, or answers but cannot take a write (a full disk: the
last write failed for want of space and a probe write still fails; SQLite's file system has no room
left). Redis is an accelerator, not a dependency: a replica whose fan-out is degraded (Redis away, or its
subscription lost) still serves commands and reads (it polls the stored log instead), so it stays ready
and says ``"redis": "degraded: ..."``: draining every replica sharing a dead Redis would take the whole
service down for a slower fan-out.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import msgspec
from starlette.responses import Response

from service.events.storage_faults import FAULTS

from . import problems

PING_TIMEOUT = 2.0  # seconds: a database slower than this to answer "select 1" is not fit for work
PROBE_BYTES = 64 * 1024  # a probe write this large must fit where SQLite writes (its WAL grows in pages)
FAILED_WRITE_HOLD = 10.0  # seconds a failed write keeps PostgreSQL not ready (no probe: traffic retries it)


async def readiness(app: Any) -> Response:
    """200 {"ok": true, "database": "ok", ...} or 503 problem+json naming what is not ready."""
    store = app.state.store
    checks: dict[str, str] = {}
    try:
        await asyncio.wait_for(store.ping(), PING_TIMEOUT)
        checks["database"] = await asyncio.to_thread(_writable, store)
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        checks["database"] = f"failed: {type(exc).__name__}"
    health = getattr(app.state.broadcaster, "health", None)
    if health is not None:
        checks["redis"] = await health()
    ready = checks["database"] == "ok"
    if ready:
        return Response(msgspec.json.encode({"ok": True, **checks}), media_type="application/json")
    return problems.problem(
        503, "Not ready", "; ".join(f"{k} {v}" for k, v in checks.items()), "/problems/NotReady", checks=checks
    )


def _writable(store: Any) -> str:
    """ "ok", or why the store cannot write (blocking: run in a thread)."""
    path = _sqlite_path(getattr(store, "url", ""))
    if path is not None:
        directory = path.parent
        try:
            stat = os.statvfs(directory)
        except OSError as exc:
            return f"failed: {exc.strerror or type(exc).__name__}"
        if stat.f_bavail * stat.f_frsize < PROBE_BYTES:
            return "failed: disk full"
        if FAULTS.write_failure is not None:  # the last write failed: does a write go through now?
            if not _probe(directory):
                return f"failed: cannot write ({FAULTS.write_failure.kind})"
            FAULTS.wrote()
        return "ok"
    failure = FAULTS.write_failure
    if failure is not None and time.monotonic() - failure.at < FAILED_WRITE_HOLD:
        return f"failed: cannot write ({failure.kind})"
    return "ok"


def _probe(directory: Path) -> bool:
    """Write, sync and remove PROBE_BYTES next to the database file."""
    probe = directory / f".salvo-ready-{os.getpid()}"
    try:
        with open(probe, "wb") as out:
            out.write(b"\0" * PROBE_BYTES)
            out.flush()
            os.fsync(out.fileno())
        return True
    except OSError:
        return False
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


def _sqlite_path(url: str) -> Path | None:
    if not url.startswith("sqlite"):
        return None
    path = url.split("///", 1)[-1]
    return Path(path) if path and path != ":memory:" else None
