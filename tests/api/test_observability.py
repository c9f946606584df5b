"""Metrics, readiness, request ids, rate limits and the page's security headers, through the API."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

SHOOT = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}


def _client(sqlite_url, **settings):
    return TestClient(create_app(Settings(database_url=sqlite_url, **settings)))


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def test_metrics_parse_and_count_what_happened(sqlite_url):
    with _client(sqlite_url) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        red = {"Authorization": f"Bearer {game['seats']['red']}"}
        gid = game["game_id"]
        assert client.post(f"/v1/games/{gid}/commands", json={"command": SHOOT}, headers=red).status_code == 201
        blue_shot = {"type": "tiny.shoot", "shooter": "blue", "target": "red"}
        assert client.post(f"/v1/games/{gid}/commands", json={"command": blue_shot}, headers=red).status_code == 403
        client.get(f"/v1/games/{gid}")
        with client.websocket_connect(f"/v1/games/{gid}/stream", headers=red) as ws:
            while ws.receive_json()["kind"] != "caught_up":
                pass
            during = _samples(client.get("/metrics").text)
        r = client.get("/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        samples = _samples(r.text)  # the Prometheus text parser accepts the whole page
    assert samples[("salvo_commands_total", (("outcome", "accepted"), ("ruleset", "tiny")))] == 1
    assert samples[("salvo_commands_total", (("outcome", "rejected"), ("ruleset", "tiny")))] == 1
    assert samples[("salvo_rule_rejections_total", (("rule", "TINY-SEAT"),))] == 1
    assert samples[("salvo_append_seconds_count", ())] == 2  # the creation and the accepted command
    assert samples[("salvo_group_commit_size_count", ())] >= 1
    assert during[("salvo_sockets", (("audience", "seat"),))] == 1
    assert samples[("salvo_sockets", (("audience", "seat"),))] == 0
    assert samples[("salvo_head_cache_size", ())] == 1
    assert samples[("salvo_head_cache_hits_total", ())] >= 1 and samples[("salvo_head_cache_misses_total", ())] == 1
    assert ("salvo_slow_consumer_closes_total", ()) in samples
    commands = (("method", "POST"), ("route", "/v1/games/{game_id}/commands"), ("status", "201"))
    assert samples[("salvo_http_requests_total", commands)] >= 1


def test_readyz_checks_the_database(sqlite_url):
    with _client(sqlite_url) as client:
        r = client.get("/readyz")
        assert r.status_code == 200 and r.json() == {"ok": True, "database": "ok"}

        async def broken():
            raise ConnectionError("database away")

        client.app.state.store.ping = broken
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json()["checks"]["database"].startswith("failed")


def test_every_response_carries_a_request_id(sqlite_url):
    with _client(sqlite_url) as client:
        assert len(client.get("/v1/rulesets").headers["x-request-id"]) == 16
        assert client.get("/v1/rulesets", headers={"X-Request-Id": "abc-1"}).headers["x-request-id"] == "abc-1"
        assert client.get("/healthz", headers={"X-Request-Id": "bad id\n"}).headers["x-request-id"] != "bad id\n"


def test_bad_tokens_are_rate_limited_per_address_with_retry_after(sqlite_url):
    with _client(sqlite_url, rate_auth_failures_per_address="5/minute") as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        url = f"/v1/games/{game['game_id']}"
        codes = [client.get(url, headers={"Authorization": f"Bearer nope{i}"}).status_code for i in range(8)]
        assert codes == [401] * 5 + [429] * 3
        r = client.get(url, headers={"Authorization": "Bearer nope9"})
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 60
        assert r.headers["content-type"] == "application/problem+json"
        # only failures are refused (issue 33): a valid token from the same address passes
        assert client.get(url, headers={"Authorization": f"Bearer {game['umpire_token']}"}).status_code == 200
        assert client.get(url).status_code == 200  # no token, nothing to guess: spectators still read
        with client.websocket_connect(f"{url}/stream", headers={"Authorization": "Bearer nope"}) as ws:
            assert ws.receive_json()["status"] == 429


def test_commands_are_rate_limited_per_token_and_append_nothing_over_the_limit(sqlite_url):
    with _client(sqlite_url, rate_commands_per_token="3/minute") as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        red = {"Authorization": f"Bearer {game['seats']['red']}"}
        url = f"/v1/games/{game['game_id']}/commands"
        codes = [client.post(url, json={"command": SHOOT}, headers=red).status_code for _ in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        assert client.get(f"/v1/games/{game['game_id']}").json()["version"] == 5
        blue = {"Authorization": f"Bearer {game['seats']['blue']}"}
        shot = {"type": "tiny.shoot", "shooter": "blue", "target": "red"}
        assert client.post(url, json={"command": shot}, headers=blue).status_code == 201  # another token
        with client.websocket_connect(f"/v1/games/{game['game_id']}/stream", headers=red) as ws:
            while ws.receive_json()["kind"] != "caught_up":
                pass
            ws.send_json({"kind": "command", "ref": "x", "command": SHOOT})
            while (msg := ws.receive_json())["kind"] == "event":
                pass
            assert msg["kind"] == "error" and msg["status"] == 429 and msg["ref"] == "x"


def test_commands_are_rate_limited_per_address(sqlite_url):
    with _client(sqlite_url, rate_commands_per_address="2/minute") as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        url = f"/v1/games/{game['game_id']}/commands"
        codes = []
        for who, other in (("red", "blue"), ("blue", "red"), ("red", "blue")):
            shot = {"type": "tiny.shoot", "shooter": who, "target": other}
            codes.append(
                client.post(
                    url, json={"command": shot}, headers={"Authorization": f"Bearer {game['seats'][who]}"}
                ).status_code
            )
        assert codes == [201, 201, 429]


def test_the_page_sends_its_security_headers(sqlite_url):
    with _client(sqlite_url) as client:
        for path in ("/", "/static/app.js"):
            r = client.get(path)
            assert r.status_code == 200
            csp = r.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
            assert r.headers["referrer-policy"] == "no-referrer" and r.headers["x-content-type-options"] == "nosniff"
        assert "content-security-policy" not in client.get("/v1/rulesets").headers
        assert client.get("/v1/rulesets").headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(("origins", "allowed"), [((), False), (("https://club.example",), True)])
def test_cors_only_for_configured_origins(sqlite_url, origins, allowed):
    with _client(sqlite_url, cors_origins=origins) as client:
        r = client.options(
            "/v1/rulesets", headers={"Origin": "https://club.example", "Access-Control-Request-Method": "GET"}
        )
        assert (r.headers.get("access-control-allow-origin") == "https://club.example") is allowed


def test_a_tallied_counter_is_exposed_as_a_counter_is():
    from prometheus_client import CollectorRegistry, Counter, generate_latest

    from service.api.metrics import TalliedCounter

    plain_registry, tallied_registry = CollectorRegistry(), CollectorRegistry()
    plain = Counter("salvo_x", "Things, by kind", ["ruleset", "outcome"], registry=plain_registry)
    tallied = TalliedCounter("salvo_x", "Things, by kind", ["ruleset", "outcome"], registry=tallied_registry)
    for labels in [("tiny", "accepted")] * 3 + [("tiny", "rejected"), ("gsc2", "accepted")]:
        plain.labels(*labels).inc()
        tallied.tally(*labels).inc(1)
    tallied.labels("tiny", "invalid").inc(2)  # Counter.inc still works on a tallied child
    plain.labels("tiny", "invalid").inc(2)

    def page(registry: CollectorRegistry) -> list[str]:  # the _created lines carry each child's own time
        return [line for line in generate_latest(registry).decode().splitlines() if "_created{" not in line]

    assert page(tallied_registry) == page(plain_registry)
    assert 'salvo_x_total{outcome="accepted",ruleset="tiny"} 3.0' in page(tallied_registry)
    assert tallied.labels("tiny", "accepted")._value.get() == 3.0
    assert sum("salvo_x_created{" in line for line in generate_latest(tallied_registry).decode().splitlines()) == 4


def test_a_tallied_histogram_is_exposed_as_a_histogram_is():
    from prometheus_client import CollectorRegistry, Histogram, generate_latest

    from service.api.metrics import TalliedHistogram

    plain_registry, tallied_registry = CollectorRegistry(), CollectorRegistry()
    buckets = (1, 2, 4, 8)
    plain = Histogram("salvo_y", "Sizes", registry=plain_registry, buckets=buckets)
    tallied = TalliedHistogram("salvo_y", "Sizes", registry=tallied_registry, buckets=buckets)
    for amount in (0, 1, 1.5, 2, 3, 8, 9, 1000, 0.25):  # on a bound, between bounds, past the last one
        plain.observe(amount)
        tallied.observe(amount)

    def page(registry: CollectorRegistry) -> list[str]:
        return [line for line in generate_latest(registry).decode().splitlines() if "_created" not in line]

    assert page(tallied_registry) == page(plain_registry)
    assert 'salvo_y_bucket{le="2.0"} 5.0' in page(tallied_registry)  # 0, 0.25, 1, 1.5, 2
    assert 'salvo_y_bucket{le="+Inf"} 9.0' in page(tallied_registry)
    assert "salvo_y_sum 1024.75" in page(tallied_registry)
