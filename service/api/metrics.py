"""Prometheus metrics (prometheus-client), one registry per app so apps in one process never clash.

By Prometheus's conventions (checked by tests/topology/test_metrics_conventions.py with the client's own
parser): whatever only grows is a counter, exposed as ``<name>_total`` (counts kept by the service and read
at scrape time too: ``ReadAtScrape``); durations are histograms in seconds; ratios are left to queries
(``rate(salvo_head_cache_hits_total[5m]) / (rate(…hits…) + rate(…misses…))``); the HTTP metrics carry the
route's template (``/v1/games/{game_id}``, never the raw path: one series per route, not per game); and the
default process, platform and GC collectors are registered (``process_*``, ``python_*``)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable

from prometheus_client import (
    GC_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from service.events.application import GameService

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

FANOUT_COUNTERS = {
    "holds_overflowed": "Holds of a commanding socket's frames that passed their limit (it read the store)",
    "holds_broken": "Holds given up for a gap, a bare notification or an audience not encoded",
    "fallbacks": "Direct sockets handed to their store reader by the fan-out (any reason)",
    "catch_ups": "Store catch-ups started by direct sockets after their join",
    "replies_held": "Socket command results written with the frames held while the command flew",
    "replies_unheld": "Socket command results written without a hold (the socket was reading the store)",
    "writes": "Transport writes of event frames by the direct path (one frame, or held frames and a result)",
    "frames_written": "Frames in those writes (divide by writes: frames per write)",
}


class ReadAtScrape(Collector):
    """Counters the service keeps itself (plain ints bumped on its hot paths), read when scraped and
    exposed as counters: ``salvo_<name>_total``."""

    def __init__(self) -> None:
        self.readers: dict[str, tuple[str, Callable[[], float]]] = {}

    def add(self, name: str, documentation: str, read: Callable[[], float]) -> None:
        self.readers[name] = (documentation, read)

    def collect(self) -> Iterable[CounterMetricFamily]:
        for name, (documentation, read) in self.readers.items():
            yield CounterMetricFamily(name, documentation, value=float(read()))


class Tally:
    """A counter child's value as a plain float, bumped by the event loop alone: no lock and no
    observability checks per command (``Counter.inc``'s, ~1 % of a websocket command); prometheus_client
    reads it (``get``) as it reads its own value."""

    __slots__ = ("value",)
    _multiprocess = False

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float) -> None:
        self.value += amount

    def set(self, value: float, timestamp: float | None = None) -> None:
        self.value = value

    def get(self) -> float:
        return self.value

    def get_exemplar(self) -> None:
        return None


class TalliedCounter(Counter):
    """A Counter whose children count in a ``Tally`` (``tally``: the one to bump), exposed as any Counter's;
    with prometheus_client's multiprocess values its children keep those."""

    def _metric_init(self) -> None:
        super()._metric_init()
        if not self._value._multiprocess:
            self._value = Tally()  # type: ignore[assignment]

    def tally(self, *labelvalues: str) -> Tally:
        return self.labels(*labelvalues)._value  # type: ignore[no-any-return]


class TalliedHistogram(Histogram):
    """A Histogram whose sum and buckets count in ``Tally`` values, observed with one bisect: no lock, no
    observability check and no bucket scan per observation (``Histogram.observe`` costs ~9.5k instructions,
    and the writer observes twice a command, ~3 % of a websocket command). Exposed as any Histogram's. Its
    observers must not run concurrently: the store's writer observes under its connection lock (the
    writer thread or an inline commit, never both at once). Unlabelled only (a parent has no buckets)."""

    def _metric_init(self) -> None:
        super()._metric_init()
        self._fast = not self._sum._multiprocess
        if self._fast:
            self._sum = Tally()  # type: ignore[assignment]
            self._buckets = [Tally() for _ in self._upper_bounds]  # type: ignore[misc]

    def observe(self, amount: float, exemplar: dict[str, str] | None = None) -> None:
        if not self._fast or exemplar:
            super().observe(amount, exemplar)
            return
        self._sum.value += amount  # type: ignore[attr-defined]
        self._buckets[bisect_left(self._upper_bounds, amount)].value += 1  # type: ignore[attr-defined]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.commands = TalliedCounter(
            "salvo_commands",
            "Commands handled, by ruleset and outcome (accepted, rejected by a rule, invalid, limited, error)",
            ["ruleset", "outcome"],
            registry=r,
        )
        self.rejections = Counter(
            "salvo_rule_rejections", "Commands refused by a rule, by rule id", ["rule"], registry=r
        )
        self.append_seconds = TalliedHistogram(
            "salvo_append_seconds",
            "From a write's submission to its durable commit",
            registry=r,
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )
        self.group_size = TalliedHistogram(
            "salvo_group_commit_size",
            "Write batches per database transaction",
            registry=r,
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
        )
        self.sockets = Gauge("salvo_sockets", "Open live streams, by audience kind", ["audience"], registry=r)
        self.direct_sockets = Gauge(
            "salvo_direct_sockets",
            "Open live streams written straight to their "
            "transport (pre-framed fan-out); the rest use the queued send path",
            registry=r,
        )
        self.slow_consumer_closes = Counter(
            "salvo_slow_consumer_closes", "Streams closed with 1013 because the client fell behind", registry=r
        )
        self.requests = Counter(
            "salvo_http_requests",
            "HTTP requests, by method, route (its template) and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.request_seconds = Histogram(
            "salvo_http_request_duration_seconds",
            "HTTP request duration, by method and route (its template)",
            ["method", "route"],
            registry=r,
        )
        self.rate_limited = Counter("salvo_rate_limited", "Requests refused with 429, by limit", ["limit"], registry=r)
        self.head_cache_size = Gauge("salvo_head_cache_size", "Game heads held in memory", registry=r)
        self.head_cache_bytes = Gauge(
            "salvo_head_cache_bytes",
            "The cached heads' states, as encoded (the budget SALVO_HEAD_CACHE_BYTES counts)",
            registry=r,
        )
        self.counted = ReadAtScrape()  # salvo_head_cache_hits/misses, salvo_commands_pipelined, salvo_fanout_*
        r.register(self.counted)
        # the default collectors a Prometheus client exposes: CPU, memory, descriptors, start time; GC
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        if GC_COLLECTOR is not None:
            GCCollector(registry=r)

    def watch(self, service: GameService) -> None:
        """Read the service's own counters at scrape time, and time its store's writes."""
        heads = service.heads
        self.head_cache_size.set_function(lambda: len(heads))
        self.head_cache_bytes.set_function(lambda: heads.bytes)
        self.counted.add("salvo_head_cache_hits", "Head lookups served from memory", lambda: heads.hits)
        self.counted.add("salvo_head_cache_misses", "Head lookups that loaded from the store", lambda: heads.misses)
        commands = service.commands
        self.counted.add(
            "salvo_commands_pipelined",
            "Commands decided while an earlier command of their game "
            "was still being committed (on the head ahead of the disk)",
            lambda: commands.pipelined,
        )
        service.store.observe_write = self.append_seconds.observe
        service.store.observe_group = self.group_size.observe

    def watch_fanout(self, counters: Callable[[], dict[str, int]]) -> None:
        """The direct fan-out's counters (fanout.Fanout.counters), read at scrape time: salvo_fanout_<name>_total."""

        def reader(name: str) -> Callable[[], float]:
            return lambda: counters()[name]

        for name, documentation in FANOUT_COUNTERS.items():
            self.counted.add(f"salvo_fanout_{name}", documentation, reader(name))

    def render(self) -> bytes:
        return generate_latest(self.registry)
