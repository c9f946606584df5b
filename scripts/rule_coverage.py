"""Which rule ids of the rules reference (docs/rules/<ruleset>.md) no test names.

Usage (from the project root): .venv/bin/python scripts/rule_coverage.py [gsc2 asc starfinder ...]
Exit status 1 when some id is named by no file under tests/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE_LINE = re.compile(r"^- ([A-Z0-9]+-[A-Z]+-[0-9]+)", re.MULTILINE)


def rule_ids(reference: Path) -> list[str]:
    return sorted(set(RULE_LINE.findall(reference.read_text(encoding="utf-8"))))


def tests_text() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in (ROOT / "tests").rglob("*")
        if p.is_file() and p.suffix in {".py", ".js", ".ts", ".json", ".md"}
    )


def missing_ids(reference: Path, text: str) -> list[str]:
    """The reference's rule ids that ``text`` never names (GSC2-MOV-12 does not name GSC2-MOV-1)."""
    return [i for i in rule_ids(reference) if not re.search(re.escape(i) + r"(?![0-9])", text)]


def main(names: list[str]) -> int:
    references = [ROOT / "docs" / "rules" / f"{n}.md" for n in names] or sorted((ROOT / "docs" / "rules").glob("*.md"))
    text = tests_text()
    status = 0
    for reference in references:
        ids = rule_ids(reference)
        missing = missing_ids(reference, text)
        print(
            f"{reference.stem}: {len(ids) - len(missing)}/{len(ids)} rule ids named in tests/"
            + (f" — missing: {' '.join(missing)}" if missing else "")
        )
        status |= bool(missing)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
