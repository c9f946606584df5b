"""Lighthouse on the page (issue 38): the lobby and one game per ruleset, as a seat opens it, on an emulated
phone (Lighthouse's mobile defaults: Moto G power, slow 4G, 4x CPU slowdown). One row per page: performance,
accessibility, cumulative layout shift and largest contentful paint from Lighthouse; from the page itself
(Playwright, 390x844) the share of text under 12 px and what moved in the layout shifts. Run by
scripts/lighthouse.sh (which installs the pinned Lighthouse from bench/lighthouse/package-lock.json);
Chromium is Debian's (CHROME_PATH)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.server import ServerProcess  # noqa: E402

LIGHTHOUSE = ROOT / "bench" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
GAMES = [("gsc2", "duel"), ("asc", "duel"), ("starfinder", "duel"), ("ftcampaign", "intro-duel")]
# the audits whose failures the table names (what a page change can fix)
WATCHED = (
    "color-contrast",
    "target-size",
    "layout-shifts",
    "unsized-images",
    "render-blocking-resources",
    "uses-text-compression",
    "uses-long-cache-ttl",
    "total-byte-weight",
    "button-name",
    "label",
    "bootup-time",
    "mainthread-work-breakdown",
    "dom-size",
)
FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"


def _scenario(base: str, ruleset: str, wanted: str) -> str:
    listed = httpx.get(f"{base}/v1/rulesets", timeout=30).json()["rulesets"]
    names = next(r["scenarios"] for r in listed if r["name"] == ruleset)
    return wanted if wanted in names else names[0]


def _pages(base: str) -> list[tuple[str, str]]:
    out = [("lobby", base + "/")]
    for ruleset, scenario in GAMES:
        scenario = _scenario(base, ruleset, scenario)
        r = httpx.post(f"{base}/v1/games", json={"ruleset": ruleset, "scenario": scenario}, timeout=30)
        r.raise_for_status()
        game = r.json()
        seat, token = next(iter(game["seats"].items()))
        out.append((f"{ruleset} {scenario} ({seat})", f"{base}/?game={game['game_id']}#token={token}"))
    return out


def _audit(url: str, out: Path) -> dict[str, object]:
    cmd = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        "--only-categories=performance,accessibility",
        f"--chrome-flags={FLAGS}",
    ]
    chrome = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
    subprocess.run(cmd, check=True, env={**os.environ, "CHROME_PATH": chrome})
    report = json.loads(out.read_text())
    cats, audits = report["categories"], report["audits"]
    return {
        "performance": round(100 * (cats["performance"]["score"] or 0)),
        "accessibility": round(100 * (cats["accessibility"]["score"] or 0)),
        "cls": round(audits["cumulative-layout-shift"]["numericValue"], 3),
        "lcp_s": round(audits["largest-contentful-paint"]["numericValue"] / 1000, 2),
        "failed": sorted(
            k for k in WATCHED if (audits.get(k) or {}).get("score") is not None and audits[k]["score"] < 0.9
        ),
    }


# In the page, after it has settled: the layout shifts seen (with what moved) and how much text is under 12 px.
# Lighthouse 12 has no font-size audit any more: this counts characters of visible text by their size on screen
# (an SVG label by its font size times the map's scale), the page's text and the map's labels apart.
SETTLE_JS = """() => new Promise((done) => setTimeout(() => {
  const shifts = (window.__shifts || []).filter((e) => !e.hadRecentInput);
  const name = (n) => !n ? '?' : n.nodeType !== 1 ? name(n.parentElement)
    : n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + (n.classList.length ? '.' + [...n.classList].join('.') : '');
  const moved = {};
  for (const e of shifts) for (const s of e.sources || []) moved[name(s.node)] = (moved[name(s.node)] || 0) + e.value;
  const size = { html: [0, 0], svg: [0, 0] };
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const chars = t.textContent.trim().length, el = t.parentElement;
    if (!chars || !el || !el.getClientRects().length) continue;
    if (el.closest('[hidden], details:not([open]) > :not(summary)')) continue;
    const svgText = el.closest('text');
    const px = svgText ? parseFloat(getComputedStyle(svgText).fontSize) * Math.abs(svgText.getScreenCTM()?.a || 1)
      : parseFloat(getComputedStyle(el).fontSize);
    const k = svgText ? 'svg' : 'html';
    size[k][0] += chars;
    if (px < 12) size[k][1] += chars;
  }
  done({ cls: shifts.reduce((a, e) => a + e.value, 0), moved, small: size });
}, 2500))"""


def _in_page(url: str) -> dict[str, object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get("CHROME_PATH", "/usr/bin/chromium"),
            args=["--headless", "--no-sandbox", "--disable-gpu"],
        )
        try:
            ctx = browser.new_context(
                viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2
            )
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)  # Lighthouse's mobile throttling, roughly: what shifts on a slow phone
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            cdp.send("Network.enable")
            slow_4g = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 7.5e5 / 8}
            cdp.send("Network.emulateNetworkConditions", slow_4g)
            page.add_init_script(
                "window.__shifts = []; new PerformanceObserver((l) => window.__shifts.push("
                "...l.getEntries())).observe({type: 'layout-shift', buffered: true})"
            )
            page.goto(url)
            got = page.evaluate(SETTLE_JS)
        finally:
            browser.close()
    share = {k: round(100 * v[1] / v[0]) if v[0] else None for k, v in got["small"].items()}
    top = sorted(got["moved"].items(), key=lambda kv: -kv[1])[:3]
    return {
        "small_text_pct": share["html"],
        "small_map_labels_pct": share["svg"],
        "shifted": ", ".join(f"{k} {v:.2f}" for k, v in top),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url", help="an already running service (default: start one on a temporary SQLite file)")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    if not LIGHTHOUSE.exists():
        print("Lighthouse is not installed: run scripts/lighthouse.sh", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        base = args.url
        if base is None:
            server = ServerProcess(f"sqlite:///{tmp}/lighthouse.db")
            server.start()
            base = server.url
        try:
            rows = []
            for i, (name, url) in enumerate(_pages(base)):
                row = {"page": name, **_audit(url, Path(tmp) / f"report-{i}.json"), **_in_page(url)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            if server is not None:
                server.stop()

    def pct(v: object) -> str:
        return "—" if v is None else f"{v} %"

    print(
        "\n| page | performance | accessibility | CLS | LCP (s) | text < 12 px | map labels < 12 px "
        "| audits under 0.9 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['page']} | {r['performance']} | {r['accessibility']} | {r['cls']} | {r['lcp_s']} "
            f"| {pct(r['small_text_pct'])} | {pct(r['small_map_labels_pct'])} | {', '.join(r['failed']) or '—'} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
