"""The client package as an integrator installs it: `pip install clients/python` into a fresh virtualenv,
from a copy of that folder alone (so nothing can reach back into the repository), run from a directory
outside it.

Its dependencies (httpx, rich, cryptography…) are not downloaded: the folder of the project's venv that
holds exactly them (their modules and dist-info, found from the package's own Requires-Dist) is linked
into the new venv through a .pth file; the service, its editable install and the repository are not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT_SRC = ROOT / "clients" / "python"


@dataclass(frozen=True)
class InstalledClient:
    venv: Path
    workdir: Path  # outside the repository

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """`salvo-client ARGS` from the venv, with no PYTHONPATH and the working directory outside the repo."""
        clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SALVO_URL", "VIRTUAL_ENV")}
        clean.update({"SALVO_HOME": str(self.workdir / "home"), "NO_COLOR": "1", **(env or {})})
        return subprocess.run(
            [str(self.venv / "bin" / "salvo-client"), *args],
            capture_output=True,
            text=True,
            cwd=self.workdir,
            env=clean,
            timeout=timeout,
        )


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return re.split(r"[ ;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]


def dependency_closure(names: list[str]) -> list[metadata.Distribution]:
    """The installed distributions ``names`` need, transitively (extras left out; a requirement of
    another Python version is not installed here and is skipped)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if _key(name) in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[_key(name)] = dist
        todo += [_requirement_name(r) for r in dist.requires or [] if "extra ==" not in r]
    return list(seen.values())


def _link_dependencies(target: Path) -> None:
    declared = tomllib.loads((CLIENT_SRC / "pyproject.toml").read_text())["project"]["dependencies"]
    target.mkdir()
    for dist in dependency_closure([_requirement_name(r) for r in declared]):
        site = Path(str(dist.locate_file("")))
        entries = {f.parts[0] for f in dist.files or [] if f.parts[0] not in ("..", "bin", "__pycache__")}
        for entry in entries:
            if not (target / entry).exists():
                (target / entry).symlink_to(site / entry)


def install_client(base: Path) -> InstalledClient:
    source = base / "src" / "salvo-client"
    shutil.copytree(CLIENT_SRC, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    venv = base / "venv"
    # the interpreter the project's venv was made from (a venv's own python would chain to it anyway)
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)  # type: ignore[attr-defined]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-deps",
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    site = next((venv / "lib").glob("python3*/site-packages"))
    _link_dependencies(base / "deps")
    (site / "salvo-client-deps.pth").write_text(str(base / "deps") + "\n")
    workdir = base / "work"
    workdir.mkdir()
    shutil.rmtree(source)  # the installed copy is all there is now
    return InstalledClient(venv, workdir)
