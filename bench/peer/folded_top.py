# ruff: noqa: E501
# Part of the peer benchmark (bench/peer/README.md).
"""Top costs from a py-spy raw (folded) profile: per thread, self time by function, inclusive time by
function, and self time by package. Percentages are of all non-idle samples (py-spy without --idle).

    python folded_top.py profile.folded [N]
"""

from __future__ import annotations

import re
import sys
from collections import Counter

FRAME = re.compile(r"^(?P<fn>.*?) \((?P<file>[^():]*)(?::\d+)?\)$")


def short(frame: str) -> str:
    m = FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    path = m.group("file")
    for marker in ("site-packages/", "lib/python3.11/", "/service/", "/tests/"):
        if marker in path:
            path = (
                path.split(marker, 1)[1]
                if marker not in ("/service/", "/tests/")
                else marker.strip("/") + "/" + path.split(marker, 1)[1]
            )
            break
    return f"{m.group('fn')} ({path})"


def package(frame: str) -> str:
    m = FRAME.match(frame.strip())
    path = m.group("file") if m else frame
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0]
    if "/service/" in path:
        parts = path.split("/service/", 1)[1].split("/")
        return "service/" + (parts[0] if len(parts) > 1 else parts[0])
    if "lib/python3.11/" in path:
        rest = path.split("lib/python3.11/", 1)[1]
        return "stdlib:" + rest.split("/", 1)[0].replace(".py", "")
    return path


def main() -> None:
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    self_t: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    pkgs: Counter[str] = Counter()
    total = 0
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        try:
            c = int(count)
        except ValueError:
            continue
        frames = stack.split(";")
        thread = next((f for f in frames if f.startswith("thread ")), "?")
        frames = [f for f in frames if not f.startswith(("thread ", "process "))]
        if not frames:
            continue
        total += c
        threads[thread] += c
        leaf = frames[-1]
        self_t[short(leaf)] += c
        pkgs[package(leaf)] += c
        for f in {short(f) for f in frames}:
            incl[f] += c
    print(f"{path}: {total} samples (non-idle)")
    print("\n## threads")
    for t, c in threads.most_common():
        print(f"{100 * c / total:6.1f}%  {t}")
    print("\n## self time by package (leaf frame)")
    for p, c in pkgs.most_common(20):
        print(f"{100 * c / total:6.1f}%  {p}")
    print(f"\n## self time by function (top {n})")
    for f, c in self_t.most_common(n):
        print(f"{100 * c / total:6.1f}%  {f}")
    print(f"\n## inclusive time by function (top {n})")
    for f, c in incl.most_common(n):
        print(f"{100 * c / total:6.1f}%  {f}")


if __name__ == "__main__":
    main()
