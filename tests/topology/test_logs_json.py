"""Every line a `salvo serve` process writes is one JSON object, the first line too (it was plain text),
and none carries uvicorn's ``color_message`` (the message again, with ANSI colour escapes): issue 32."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.server import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_every_line_of_a_serving_process_is_json(tmp_path):
    port = free_port()
    env = {**os.environ, "SALVO_LOG_LEVEL": "info", "SALVO_LOG_FORMAT": "json", "PYTHONPATH": str(ROOT)}
    out = open(tmp_path / "serve.log", "w+")  # noqa: SIM115 - read back below
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service",
            "serve",
            "--port",
            str(port),
            "--database-url",
            f"sqlite:///{tmp_path}/salvo.db",
        ],
        cwd=ROOT,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.1)
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/rulesets", timeout=10).read()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    out.seek(0)
    lines = [line for line in out.read().splitlines() if line.strip()]
    out.close()
    records = [json.loads(line) for line in lines]  # each line parses alone
    assert records[0]["msg"].startswith("Salvo on http://127.0.0.1:") and "limits" in records[0]
    assert all("\x1b" not in line and "\\u001b" not in line for line in lines)
    assert all("color_message" not in r for r in records)
    assert any(r.get("logger") == "salvo.access" for r in records)  # the request's access line
    assert any(r.get("logger", "").startswith("uvicorn") for r in records)  # uvicorn's own lines, as JSON
