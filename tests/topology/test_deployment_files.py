"""The deployment files say what issue 32 asks, checked where Docker does not run: images pinned to
versions, restart policies, services waiting for healthy dependencies, X-Forwarded-For trusted from the
proxy's address only, a HEALTHCHECK in exec form on liveness, a runtime lock without development tools
that still holds everything the running service imports, and a .dockerignore. The image's layout (only
what the Dockerfile copies, at PYTHONPATH=/app) is rebuilt in a temporary folder and served from."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()
DEV_TOOLS = {"pytest", "mypy", "playwright", "ruff", "schemathesis", "hypothesis", "import-linter", "matplotlib"}
PINNED = re.compile(r"^[\w./-]+(:\d+\.\d+(\.\d+)?[\w.-]*(@sha256:[0-9a-f]{64})?|@sha256:[0-9a-f]{64})$")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[_norm(name)] = version.split(";")[0].strip()
    return out


def test_every_image_is_pinned_to_a_version():
    images = [s["image"] for s in COMPOSE["services"].values() if "image" in s]
    images += re.findall(r"^FROM\s+(\S+)", DOCKERFILE, re.M)
    assert images and all(PINNED.match(i) for i in images), images  # postgres:15 or redis:7 float


def test_services_restart_and_wait_for_healthy_dependencies():
    services = COMPOSE["services"]
    assert all(s.get("restart") in ("unless-stopped", "always", "on-failure") for s in services.values())
    for name, service in services.items():
        for dependency, how in (service.get("depends_on") or {}).items():
            assert how == {"condition": "service_healthy"}, (name, dependency)
            assert "healthcheck" in services[dependency] or dependency in ("commands", "sockets"), dependency
    assert set(services["commands"]["depends_on"]) == {"postgres", "redis"}
    assert set(services["proxy"]["depends_on"]) == {"commands", "sockets"}


def test_forwarded_headers_are_trusted_from_the_proxy_address_only():
    proxy_address = COMPOSE["services"]["proxy"]["networks"]["salvo"]["ipv4_address"]
    for name in ("commands", "sockets"):
        trusted = COMPOSE["services"][name]["environment"]["FORWARDED_ALLOW_IPS"]
        assert trusted == proxy_address and "*" not in trusted


def test_the_healthcheck_is_exec_form_on_liveness():
    healthcheck = re.search(r"^HEALTHCHECK\b.*?\bCMD\s+(.*)$", DOCKERFILE, re.M | re.S)
    assert healthcheck is not None
    command = json.loads(healthcheck.group(1).splitlines()[0])  # exec form: a JSON array, no shell
    assert isinstance(command, list) and "/healthz" in " ".join(command) and "/readyz" not in " ".join(command)


def test_the_runtime_lock_has_no_development_tool_and_agrees_with_the_development_lock():
    runtime, development = pins(ROOT / "requirements-runtime.lock"), pins(ROOT / "requirements.lock")
    assert "requirements-runtime.lock" in DOCKERFILE and "requirements.lock " not in DOCKERFILE
    assert not DEV_TOOLS & set(runtime)
    assert {name: development.get(name) for name in runtime} == runtime  # the same versions
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in declared:
        name, version = re.match(r"^([\w.-]+)(?:\[[^\]]*\])?==(\S+)$", requirement).groups()  # type: ignore[union-attr]
        assert runtime.get(_norm(name)) == version, requirement


def test_dockerignore_keeps_the_build_context_small_and_the_copied_paths_in():
    ignored = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert {".git", ".venv", "clients/node_modules", "tests"} <= set(ignored)
    for source in image_sources():
        assert not any(source == i or source.startswith(i.rstrip("/") + "/") for i in ignored), source


def image_sources() -> list[str]:
    sources: list[str] = []
    for line in DOCKERFILE.splitlines():
        if line.startswith("COPY "):
            sources += line.split()[1:-1]
    return sources


# Run in the rebuilt image layout: the app's start-up, its page, a rule page and its metrics; then every
# imported module's distribution (the test checks each one is in the runtime lock).
IN_IMAGE = """
import importlib.metadata, json, sys
from starlette.testclient import TestClient
import service
from service.api.app import create_app
from service.api.routes.problem_pages import rule_texts
from service.settings import Settings
app = create_app(Settings(database_url="sqlite:///" + sys.argv[1]))
with TestClient(app) as client:
    statuses = {p: client.get(p).status_code for p in ("/", "/healthz", "/readyz", "/metrics", "/problems/Forbidden")}
    page = client.get("/").headers["content-type"]
dists = importlib.metadata.packages_distributions()
used = sorted({d for m in list(sys.modules) for d in dists.get(m.split(".")[0], [])})
print(json.dumps({"root": service.__file__, "statuses": statuses, "page": page, "rules": len(rule_texts()),
                  "distributions": used}))
"""


def test_the_image_layout_serves_the_page_and_imports_only_runtime_packages(tmp_path):
    app = tmp_path / "app"
    for source in image_sources():
        for path in sorted(ROOT.glob(source)):
            target = app / path.relative_to(ROOT)
            if path.is_dir():
                shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(app), "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", IN_IMAGE, str(tmp_path / "salvo.db")],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["root"].startswith(str(app))  # the copied source, not the checkout
    assert seen["statuses"] == {"/": 200, "/healthz": 200, "/readyz": 200, "/metrics": 200, "/problems/Forbidden": 200}
    assert seen["page"].startswith("text/html")
    from service.api.routes.problem_pages import rule_texts

    assert seen["rules"] == len(rule_texts())  # the rule texts came along (docs/rules, docs/rulings-*.md)
    runtime = set(pins(ROOT / "requirements-runtime.lock"))
    # setuptools: its _distutils_hack is loaded by a .pth at interpreter start (the base image has it too)
    assert {_norm(d) for d in seen["distributions"]} - runtime - {"salvo", "setuptools"} == set()
