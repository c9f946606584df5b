"""The rows' clock writes exactly what ``datetime.now(UTC).isoformat`` did (stored rows compare and
parse as before), across second boundaries too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.events.rows import now_iso


def _iso(ns: int) -> str:
    at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=ns // 1000)
    return at.isoformat(timespec="microseconds").replace("+00:00", "Z")


def test_now_iso_is_the_isoformat_of_the_clock_it_reads() -> None:
    ticks = [
        1_700_000_000_999_998_000,
        1_700_000_000_999_999_999,
        1_700_000_001_000_000_000,
        1_700_000_001_000_001_500,
        1_700_000_060_123_456_000,
        1_799_999_999_000_000_000,
    ]
    for ns in ticks:
        assert now_iso(lambda ns=ns: ns) == _iso(ns), ns


def test_now_iso_reads_the_wall_clock() -> None:
    before = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    now = now_iso()
    after = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    assert before <= now <= after and len(now) == len(before) and now.endswith("Z")
