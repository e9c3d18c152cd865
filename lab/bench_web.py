"""Measure the production web bundle page by page: `python -m lab.bench_web` (make bench-web).

The real api (`python -m api`, HTTPS) serves web/dist; headless Chromium loads each page cold (a fresh
context: empty cache, the session cookie only) and web/scripts/bench-web.mjs reports, per page, the time
from navigation start to the page's heading being visible and the JS and CSS bytes transferred. The
target: every page under 1 s on this machine (the median of its cold loads; the slowest is shown). A benchmark, not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from lab.stack import ApiServer

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
TARGET_MS = 1000.0


def run(dist: Path, runs: int) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is missing: run make setup")
    if not (dist / "index.html").exists():
        raise SystemExit(f"{dist}/index.html is missing: run make web first")
    password = secrets.token_urlsafe(18)
    load_before = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="arcvsa-bench-web-") as tmp:
        raw = Path(tmp) / "raw.json"
        with ApiServer(Path(tmp) / "data", password, web_dist=dist) as api:
            env = {
                **os.environ,
                "ARCVSA_URL": api.url,
                "ARCVSA_ADMIN_USER": "admin",
                "ARCVSA_ADMIN_PASSWORD": password,
                "BENCH_RUNS": str(runs),
                "BENCH_OUT": str(raw),
            }
            subprocess.run([node, "scripts/bench-web.mjs"], cwd=WEB, env=env, check=True, timeout=900)
        measured: dict[str, Any] = json.loads(raw.read_text())
    pages = []
    for result in measured["results"]:
        samples = result["samples"]
        times = [s["ms"] for s in samples]
        first = samples[0]
        pages.append(
            {
                "page": result["path"],
                "js_bytes": first["js"],
                "css_bytes": first["css"],
                "js_files": first["jsFiles"],
                "css_files": first["cssFiles"],
                "js_bytes_unzipped": first["jsRaw"],
                "css_bytes_unzipped": first["cssRaw"],
                "load_ms_median": round(statistics.median(times), 1),
                "load_ms_max": round(max(times), 1),
                "load_ms": [round(t, 1) for t in times],
                "under_target": statistics.median(times) < TARGET_MS,
            }
        )
    return {
        "target_ms": TARGET_MS,
        "runs": runs,
        "chromium": measured["chromium"],
        "machine": {
            "cpus": os.cpu_count(),
            # Other work on the machine slows every figure: the 1-minute load before and after the runs.
            "load_before": load_before,
            "load_after": round(os.getloadavg()[0], 2),
            "system": platform.platform(),
        },
        "pages": pages,
        "all_under_target": all(p["under_target"] for p in pages),
    }


def table(report: dict[str, Any]) -> str:
    kib = 1024
    lines = [
        "KiB as transferred (gzip), and unzipped in brackets",
        f"{'page':<18} {'JS KiB':>14} {'files':>5} {'CSS KiB':>12} {'files':>5} {'median ms':>9} {'max ms':>7}  < 1 s",
        "-" * 83,
    ]
    for p in report["pages"]:
        lines.append(
            f"{p['page']:<18} {p['js_bytes'] / kib:>6.1f} ({p['js_bytes_unzipped'] / kib:>6.1f}) {p['js_files']:>5} "
            f"{p['css_bytes'] / kib:>5.1f} ({p['css_bytes_unzipped'] / kib:>5.1f}) {p['css_files']:>5} "
            f"{p['load_ms_median']:>9.0f} {p['load_ms_max']:>7.0f}  "
            f"{'yes' if p['under_target'] else 'NO'}"
        )
    machine = report["machine"]
    lines.append(
        f"machine: {machine['cpus']} CPUs, 1-minute load {machine['load_before']} before and "
        f"{machine['load_after']} after the runs"
    )
    verdict = "met" if report["all_under_target"] else "MISSED"
    lines.append(
        f"target: every page's heading visible in under {report['target_ms'] / 1000:.0f} s (median of "
        f"{report['runs']} cold loads) — {verdict}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.bench_web", description=__doc__)
    parser.add_argument("--dist", type=Path, default=WEB / "dist", help="the built web app (make web)")
    parser.add_argument("--runs", type=int, default=5, help="cold loads per page (after one warm-up)")
    parser.add_argument("--json", type=Path, help="write the report here too")
    args = parser.parse_args()
    report = run(args.dist.resolve(), args.runs)
    print(table(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"written: {args.json}")
    sys.exit(0 if report["all_under_target"] else 1)


if __name__ == "__main__":
    main()
