"""make mutation: mutate the modules of tests/mutation/modules.toml, print a score per module, write JSON.

    python -m tools.mutation [--group NAME]... [--module PATH]... [--jobs N] [--json FILE] [--check]

--check exits 1 when a module scores under its group's target, or an equivalent listed for it no longer
exists (the code moved on: the list must follow it).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

from tools.mutation import engine
from tools.mutation.operators import Site, sites

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/mutation/modules.toml"
EQUIVALENT = ROOT / "tests/mutation/equivalent.toml"


def keyed(found: list[Site]) -> list[tuple[Site, str]]:
    seen: Counter[tuple[str, str, str, str]] = Counter()
    out = []
    for site in found:
        ident = (site.scope, site.operator, site.before, site.after)
        out.append((site, site.key(seen[ident])))
        seen[ident] += 1
    return out


def score(module: dict) -> float:
    judged = module["total"] - module["equivalent"]
    return 100.0 * (judged - module["survived"]) / judged if judged else 100.0


def run_module(group: str, target: float, spec: dict, equivalents: dict[str, str], jobs: int) -> dict:
    path = ROOT / spec["path"]
    tree = ast.parse(path.read_text(), str(path))
    name = engine.module_name(path, ROOT)
    all_sites = keyed(sites(tree))
    judged = [(s, k) for s, k in all_sites if k not in equivalents]
    stale = sorted(set(equivalents) - {k for _, k in all_sites})
    # "args": pytest options, e.g. --noconftest for pure unit tests (halves each child's start)
    tests = [*spec["tests"], *spec.get("args", [])]
    base = engine.baseline(name, path, tests)
    timeout = max(20.0, 6 * base)
    started = time.monotonic()
    counts: Counter[str] = Counter()
    survivors = []
    for n, outcome in enumerate(engine.run(name, path, tree, judged, tests, jobs, timeout), 1):
        counts[outcome.status] += 1
        if outcome.status == engine.SURVIVED:
            s = outcome.site
            survivors.append(
                {
                    "key": outcome.key,
                    "line": s.line,
                    "operator": s.operator,
                    "before": s.before,
                    "after": s.after,
                }
            )
        if sys.stderr.isatty():
            print(f"\r  {spec['path']}: {n}/{len(judged)}", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    result = {
        "path": spec["path"],
        "group": group,
        "target": target,
        "total": len(all_sites),
        "killed": counts[engine.KILLED] + counts[engine.TIMEOUT],
        "timeouts": counts[engine.TIMEOUT],
        "survived": counts[engine.SURVIVED],
        "equivalent": len(all_sites) - len(judged),
        "seconds": round(time.monotonic() - started + base, 1),
        "baseline_seconds": round(base, 2),
        "survivors": sorted(survivors, key=lambda s: (s["line"], s["key"])),
        "equivalents": [{"key": k, "reason": r} for k, r in sorted(equivalents.items()) if k not in stale],
        "stale_equivalents": stale,
    }
    result["score"] = round(score(result), 1)
    return result


def table(results: list[dict]) -> str:
    head = f"{'module':<42} {'mutants':>7} {'killed':>6} {'surv':>5} {'equiv':>5} {'score':>6} {'target':>6}  time"
    lines = [head, "-" * len(head)]
    for r in results:
        mark = "" if r["score"] >= r["target"] and not r["stale_equivalents"] else "  BELOW"
        lines.append(
            f"{r['path']:<42} {r['total']:>7} {r['killed']:>6} {r['survived']:>5} {r['equivalent']:>5} "
            f"{r['score']:>5.1f}% {r['target']:>5}%  {r['seconds']:>5.0f}s{mark}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mutation", description=__doc__.splitlines()[0])
    parser.add_argument("--group", action="append", default=[], help="only these groups")
    parser.add_argument("--module", action="append", default=[], help="only these paths")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--check", action="store_true", help="exit 1 below a target or on a stale equivalent")
    args = parser.parse_args(argv)
    config = tomllib.loads(CONFIG.read_text())
    equivalents = tomllib.loads(EQUIVALENT.read_text()) if EQUIVALENT.exists() else {}
    results: list[dict] = []
    failed: list[str] = []
    for group, spec in config["groups"].items():
        if args.group and group not in args.group:
            continue
        for module in spec["modules"]:
            if args.module and module["path"] not in args.module:
                continue
            try:
                results.append(
                    run_module(group, spec["target"], module, equivalents.get(module["path"], {}), args.jobs)
                )
            except engine.BaselineFailed as exc:
                print(f"error  {exc}", file=sys.stderr)
                failed.append(module["path"])
    if not results and not failed:
        parser.error("no module matches")
    print(table(results))
    for r in results:
        for s in r["survivors"]:
            print(f"survived  {r['path']}:{s['line']}  {s['key']}")
        for key in r["stale_equivalents"]:
            print(f"stale equivalent  {r['path']}  {key}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"modules": results}, indent=2) + "\n")
    below = [r for r in results if r["score"] < r["target"] or r["stale_equivalents"]]
    return 1 if failed or (args.check and below) else 0


if __name__ == "__main__":
    sys.exit(main())
