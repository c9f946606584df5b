"""Schemathesis over every operation of the OpenAPI document: zero server errors.

Bounded: a fixed number of generated cases per operation (well under a minute in all). Half of the
cases that name a game get a real one (with a real token), so the generated input reaches the decoders,
the readers and the decide path rather than stopping at 404."""

from __future__ import annotations

import json
import random
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from starlette.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

CASES_PER_OPERATION = 40


@schemathesis.serializer("application/x-ndjson")
def _json_lines(_ctx, value):
    """Battle files: generated values as JSON lines (the header, then the events)."""
    items = value if isinstance(value, list) else [value]
    return b"\n".join(json.dumps(item).encode() for item in items) + b"\n"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("schemathesis") / "s.db"
    app = create_app(
        Settings(
            database_url=f"sqlite:///{db}",
            rate_commands_per_token="off",
            rate_commands_per_address="off",
            rate_auth_failures_per_address="off",
        )
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def game(client):
    r = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"})
    assert r.status_code == 201
    return r.json()


def _operations(client):
    schema = schemathesis.openapi.from_dict(client.app.openapi())
    return [result.ok() for result in schema.get_all_operations()]


def test_every_operation_is_covered(client):
    labels = {op.label for op in _operations(client)}
    assert len(labels) >= 12, labels
    assert "POST /v1/games/{game_id}/commands" in labels and "GET /v1/games/{game_id}/turns/{turn}" in labels


def test_no_server_error_on_any_generated_input(client, game):
    failures: list[str] = []
    rng = random.Random(10)
    tokens = [game["umpire_token"], *game["seats"].values()]
    for operation in _operations(client):
        _fuzz(client, game, operation, tokens, rng, failures)
    assert not failures, "\n".join(failures[:10])


def _fuzz(client, game, operation, tokens, rng, failures) -> None:
    @settings(
        max_examples=CASES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def run(case):
        if "game_id" in (case.path_parameters or {}) and rng.random() < 0.5:
            case.path_parameters["game_id"] = game["game_id"]
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {rng.choice(tokens)}"}
        kwargs = case.as_transport_kwargs(base_url="http://testserver")
        if kwargs.get("json") is not None and rng.random() < 0.25:
            _with_a_huge_integer(kwargs, rng)
        response = client.request(
            **{
                k: v
                for k, v in kwargs.items()
                if k in ("method", "url", "headers", "params", "json", "content", "data", "files")
            }
        )
        if response.status_code >= 500:
            failures.append(
                f"{operation.label}: {response.status_code} {response.text[:200]} for "
                f"{kwargs.get('url')} {kwargs.get('params')} {str(kwargs.get('json'))[:200]}"
            )

    run()


_INTEGER = re.compile(r"(?<=[:\[,] )-?\d+(?=[,\]}])|(?<=[:\[,])-?\d+(?=[,\]}])")


def _with_a_huge_integer(kwargs, rng) -> None:
    """Issue 33: the generated JSON body with one integer literal (or, where it has none, the whole body)
    made 19 to 6,000 digits long: past 64 bits and past Python's 4,300-digit conversion limit."""
    text = json.dumps(kwargs.pop("json"))
    huge = rng.choice(["", "-"]) + "9" * rng.choice([19, 20, 400, 4301, 6000])
    spots = list(_INTEGER.finditer(text))
    if spots:
        spot = rng.choice(spots)
        text = text[: spot.start()] + huge + text[spot.end() :]
    else:
        text = huge
    kwargs["content"] = text.encode()
    kwargs["headers"] = {**(kwargs.get("headers") or {}), "content-type": "application/json"}
