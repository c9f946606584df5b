"""docker/compose.yaml's topology for real, through scripts/topology.sh (the operator's own command): Debian's
nginx on docker/nginx.conf on a port that is not 80, one command process and two socket processes started
together on a fresh PostgreSQL schema, Redis between them. One topology per test module."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "topology.sh"
REDIS_URL = os.environ.get("SALVO_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
TINY = "tiny=tests.support.tiny:RULESET"


def _need(what: str, ok: bool, why: str) -> None:
    if ok:
        return
    if os.environ.get(f"SALVO_REQUIRE_{what}") == "1":
        pytest.fail(f"{why} (SALVO_REQUIRE_{what}=1)")
    pytest.skip(why)


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


@dataclass
class Topology:
    dir: Path
    ports: dict[str, int]
    pids: dict[str, int]

    @property
    def front(self) -> int:
        return self.ports["front"]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.front}{path}"

    def post(self, path: str, body: dict, token: str | None = None) -> dict:
        req = urllib.request.Request(
            self.url(path),
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status in (200, 201)
            return json.loads(r.read())


def _pairs(path: Path) -> dict[str, int]:
    return {name: int(value) for name, value in (line.split() for line in path.read_text().splitlines())}


@pytest.fixture(scope="module")
def topology(tmp_path_factory, postgres_base):
    _need(
        "NGINX",
        nginx_binary() is not None,
        "no nginx binary: topology tests skipped (scripts/test.sh installs Debian's nginx when run as root)",
    )
    try:
        redis.Redis.from_url(REDIS_URL).ping()
    except redis.RedisError as exc:
        _need("REDIS", False, f"Redis not reachable at {REDIS_URL}: topology tests skipped ({exc})")
    schema = "topo_" + uuid.uuid4().hex[:12]
    admin = create_engine(postgres_base.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    sep = "&" if "?" in postgres_base else "?"
    database_url = f"{postgres_base}{sep}options=-csearch_path%3D{schema}"
    work = tmp_path_factory.mktemp("topology")
    front = free_port()
    env = {**os.environ, "PYTHON": sys.executable, "SALVO_RULESETS": TINY, "SALVO_HEARTBEAT_SECONDS": "2"}
    started = subprocess.run(
        [
            "bash",
            str(SCRIPT),
            "start",
            "--port",
            str(front),
            "--database-url",
            database_url,
            "--redis-url",
            REDIS_URL,
            "--dir",
            str(work),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=170,
    )
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        yield Topology(work, _pairs(work / "ports"), _pairs(work / "pids"))
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", "--dir", str(work)], timeout=60)
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
