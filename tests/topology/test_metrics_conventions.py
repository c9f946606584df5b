"""/metrics by Prometheus's conventions, read with prometheus_client's own parser (the checks promtool's
`check metrics` makes, plus the issue's): counters end in _total and nothing else does, every family has
help, names are snake_case with base units (seconds, bytes), no precomputed ratio, the service's own
counts are counters, the HTTP metrics carry the route's template (never a game id), and the default
process, platform and GC collectors are there (issue 32)."""

from __future__ import annotations

import re

from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


def scrape(sqlite_url: str):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        gid = game["game_id"]
        red = {"Authorization": f"Bearer {game['seats']['red']}"}
        assert client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=red).status_code == 201
        assert client.get(f"/v1/games/{gid}").status_code == 200
        assert client.get("/no/such/path").status_code == 404
        text = client.get("/metrics").text
    return gid, text, list(text_string_to_metric_families(text))


def test_metrics_follow_prometheus_conventions(sqlite_url):
    gid, text, families = scrape(sqlite_url)
    problems = []
    for family in families:
        name, kind = family.name, family.type
        if not family.documentation:
            problems.append(f"{name}: no help")
        if not SNAKE.match(name):
            problems.append(f"{name}: not snake_case")
        words = set(name.split("_"))
        if words & {"milliseconds", "microseconds", "ms", "minutes", "hours", "kb", "mb", "ratio", "percent"}:
            problems.append(f"{name}: not a base unit, or a ratio a query should compute")
        for sample in family.samples:
            if kind == "counter" and not sample.name.endswith(("_total", "_created")):
                problems.append(f"{sample.name}: a counter without _total")
            if kind != "counter" and sample.name.endswith("_total"):
                problems.append(f"{sample.name}: _total on a {kind}")
            if kind not in ("histogram", "summary") and sample.name.endswith(("_sum", "_count", "_bucket")):
                problems.append(f"{sample.name}: a histogram suffix on a {kind}")
        if kind == "histogram" and name.startswith("salvo_") and "seconds" not in name and "size" not in name:
            problems.append(f"{name}: a histogram neither of seconds nor of a size")
    assert problems == []
    assert gid not in text  # one series per route, never per game


def test_the_service_counts_are_counters_and_http_metrics_carry_the_route(sqlite_url):
    _, _, families = scrape(sqlite_url)
    kinds = {f.name: f.type for f in families}
    for counted in (
        "salvo_head_cache_hits",
        "salvo_head_cache_misses",
        "salvo_commands_pipelined",
        "salvo_commands",
        "salvo_http_requests",
        "salvo_rate_limited",
        "salvo_slow_consumer_closes",
    ):
        assert kinds.get(counted) == "counter", counted
    assert "salvo_head_cache_hit_ratio" not in kinds
    assert kinds["salvo_http_request_duration_seconds"] == "histogram"
    assert kinds["salvo_append_seconds"] == "histogram"
    requests = {
        tuple(sorted(s.labels.items())): s.value
        for f in families
        if f.name == "salvo_http_requests"
        for s in f.samples
        if s.name.endswith("_total")
    }
    routes = {dict(labels)["route"] for labels in requests}
    assert {"/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/commands", "unmatched"} <= routes
    assert requests[(("method", "POST"), ("route", "/v1/games/{game_id}/commands"), ("status", "201"))] == 1
    durations = {
        dict(s.labels).get("route")
        for f in families
        if f.name == "salvo_http_request_duration_seconds"
        for s in f.samples
    }
    assert "/v1/games/{game_id}" in durations


def test_the_default_process_and_runtime_collectors_are_exposed(sqlite_url):
    _, _, families = scrape(sqlite_url)
    names = {f.name for f in families}
    assert {
        "process_cpu_seconds",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_start_time_seconds",
        "python_info",
        "python_gc_collections",
    } <= names
