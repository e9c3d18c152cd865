"""``python -m reliability.soak_ab --before REV``: the soak's load on two images side by side, in turns.

A is an earlier commit's image (built by lab.previous as `make image` builds it), B this tree's (`make
image`). Each boots on its own SAN and tap link and gets the soak's storage, replica and desktops' deltas
(reliability.soak). Then the soak's load, the desktops' fio mix and wrk on the dashboards' paths, runs on
one appliance while the other is paused (QMP ``stop``: its emulated CPUs take no host CPU), in the order
A B B A A B B A ..., so that a host which speeds up or slows down during the run weighs on both alike.
Each phase starts after a short settle, since a resumed guest first runs the timers that fell due while
it was paused.

Per phase: the api's latency per path (wrk's percentiles), its requests and errors; the CPU the api's and
the poller's units used (their cgroups' ``cpu.stat``) and the guest's busy share; the desktops' I/Os and
their latency. Per side: the worst phase's worst path p99 (wrk gives percentiles per run, which do not
add up, so the worst is what is compared), the median phase's, and the api's CPU per request over all
its phases. Prints the table with B / A ratios and writes JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench import job, toolchain
from lab import previous, tap
from lab.tap import TapLink
from process import ProcessError
from reliability import soak, steadiness
from reliability.powercut import Lab, Options, image_and_key, say
from reliability.table import table

REPO = Path(__file__).resolve().parents[1]
SIDES = ("A", "B")
SETTLE_S = 20.0


@dataclasses.dataclass
class Side:
    """One appliance of the comparison: its name, the commit it was built from, and its lab."""

    key: str
    rev: str
    lab: Lab
    link: TapLink | None
    network: str
    target: job.Target | None = None
    patterns: list[Path] = dataclasses.field(default_factory=list)


def order(phases_per_side: int) -> Iterator[str]:
    """A B B A, repeated: every side gets ``phases_per_side`` turns, and each pair of pairs is balanced
    about its middle, so a steady change of the host's speed favours neither side."""
    if phases_per_side < 1:
        raise ValueError("at least one phase per side")
    for pair in range(phases_per_side):
        yield from SIDES if pair % 2 == 0 else reversed(SIDES)


def paused(side: Side, pause: bool) -> None:
    """Stop or resume the side's emulated CPUs (the guest's clock stops with them)."""
    with side.lab.vm.qmp() as qmp:
        qmp.execute("stop" if pause else "cont")


def guest_cpu(side: Side) -> dict[str, Any]:
    """The guest's /proc/stat counters (steadiness.cpu_sample; no per-command times)."""
    return steadiness.cpu_sample(side.lab.vm.ssh(["cat", "/proc/stat"], timeout=60), "")


def run_phase(
    side: Side, chain: toolchain.Toolchain, options: soak.SoakOptions, index: int
) -> dict[str, Any]:
    """One turn of the load on ``side`` (running): fio's desktops and wrk for ``options.seconds``."""
    assert side.target is not None
    logs = options.directory / "latency" / f"{index:02d}-{side.key}"
    logs.mkdir(parents=True, exist_ok=True)
    text = soak.soak_job(side.target, options, side.patterns, logs)
    jobfile = soak.fio_file(options.directory, f"{index:02d}-{side.key}", text)
    units = {unit: soak.api_cpu_stat(side.lab, unit) for unit in soak.API_CGROUPS}
    cpu_before = guest_cpu(side)
    started = time.monotonic()
    wrks = soak.ApiLoad(side.lab, options, options.seconds, f"{index:02d}-{side.key}")
    out: dict[str, Any] = {"phase": index, "side": side.key}
    try:
        result = chain.run_fio(jobfile, timeout=options.seconds + 900)
        out["io_errors"] = sum(int(j.get("error", 0)) for j in result.get("jobs", []))
        out["fio_ios"] = sum(int(j[d]["total_ios"]) for j in result["jobs"] for d in ("read", "write"))
    except toolchain.FioError as exc:
        out["fio_error"] = str(exc)[:2000]
        wrks.stop()
    api = wrks.figures()
    seconds = time.monotonic() - started
    out["seconds"] = round(seconds, 1)
    out["api" if isinstance(api, dict) else "api_error"] = api
    for unit, key in soak.API_CGROUPS.items():
        end = soak.api_cpu_stat(side.lab, unit)
        if units[unit] and end:
            out[key] = steadiness.quota_use(units[unit], end, seconds)
    out["guest_cpu"] = steadiness.cpu_between(cpu_before, guest_cpu(side))
    lat = steadiness.read_lat_logs(sorted(logs.glob("soak_lat.*.log")))
    out["latency"] = {
        direction: {
            "ios": len(points),
            "p50_ms": round(steadiness.percentile([p[1] for p in points], 50), 2),
            "p99_ms": round(steadiness.percentile([p[1] for p in points], 99), 2),
        }
        for direction, points in lat.items()
        if points
    }
    shutil.rmtree(logs, ignore_errors=True)  # a phase's per-I/O lines: tens of MiB, summed above
    return out


def summary(phases: list[dict[str, Any]]) -> dict[str, Any]:
    """One side's phases in a line each of the table: the api's requests and errors, the worst and the
    median phase's p99 (the worst path of each), its p50, its CPU per request and the poller's share,
    the guest's busy share and the desktops' I/O."""
    measured = [p for p in phases if "api" in p]
    if not measured:
        return {"phases": len(phases), "measured": 0}
    requests = sum(p["api"]["requests"] for p in measured)
    api_cpu_s = sum(p["api_quota"]["cpu_s"] for p in measured if "api_quota" in p)
    seconds = sum(p["seconds"] for p in measured)
    poller_s = sum(p["poller_quota"]["cpu_s"] for p in measured if "poller_quota" in p)
    p99s = [p["api"]["p99_ms"] for p in measured]
    busy = [p["guest_cpu"]["busy_pct"] for p in measured if p.get("guest_cpu")]
    out: dict[str, Any] = {
        "phases": len(phases),
        "measured": len(measured),
        "requests": requests,
        "errors": sum(p["api"]["errors"] for p in measured),
        "p99_ms_worst": max(p99s),
        "p99_ms_median": round(statistics.median(p99s), 2),
        "p50_ms_median": round(statistics.median(p["api"]["p50_ms"] for p in measured), 2),
        "api_cpu_ms_per_request": round(1000 * api_cpu_s / requests, 2) if requests else None,
        "poller_cpu_pct_of_one": round(100 * poller_s / seconds, 1) if seconds else None,
        "guest_busy_pct": round(statistics.mean(busy), 1) if busy else None,
        "io_errors": sum(p.get("io_errors", 0) for p in phases),
        "ios_per_s": round(sum(p.get("fio_ios", 0) for p in measured) / seconds, 1) if seconds else None,
    }
    for direction in ("read", "write"):
        worst = [p["latency"][direction]["p99_ms"] for p in measured if direction in p.get("latency", {})]
        if worst:
            out[f"{direction}_p99_ms_median"] = round(statistics.median(worst), 2)
    return out


ROWS = (
    ("api requests", "requests"),
    ("api errors", "errors"),
    ("api p99, worst phase (ms)", "p99_ms_worst"),
    ("api p99, median phase (ms)", "p99_ms_median"),
    ("api p50, median phase (ms)", "p50_ms_median"),
    ("api CPU per request (ms)", "api_cpu_ms_per_request"),
    ("poller CPU (% of one CPU)", "poller_cpu_pct_of_one"),
    ("guest CPU busy (%)", "guest_busy_pct"),
    ("desktops' I/Os per s", "ios_per_s"),
    ("desktops' read p99, median phase (ms)", "read_p99_ms_median"),
    ("desktops' write p99, median phase (ms)", "write_p99_ms_median"),
    ("I/O errors", "io_errors"),
)


def report(figures: dict[str, Any]) -> str:
    """The side-by-side table: A, B, and B over A where both are numbers and A is not zero."""
    a, b = figures["summary"]["A"], figures["summary"]["B"]
    rows = [["figure", f"A {figures['revs']['A']}", f"B {figures['revs']['B']}", "B / A"]]
    for label, key in ROWS:
        left, right = a.get(key), b.get(key)
        ratio = (
            f"{right / left:.2f}"
            if isinstance(left, int | float) and isinstance(right, int | float) and left
            else ""
        )
        rows.append([label, "" if left is None else str(left), "" if right is None else str(right), ratio])
    return table(rows)


def boot(side: Side, chain: toolchain.Toolchain, options: soak.SoakOptions) -> dict[str, Any]:
    """The side's appliance up with the soak's storage and layout; its boot and storage figures."""
    lab = side.lab
    lab.san.start()
    found: dict[str, Any] = {"boot_to_api_s": round(lab.start(), 1)}
    found["dataset"] = soak.make_storage(lab, options)
    side.target = job.Target("nfs", lab.url(soak.POOL))
    found["nfs_writable_after_s"] = round(
        chain.wait_writable(lab.url(soak.POOL), options.directory / f"probe-{side.key}", timeout=600), 1
    )
    side.patterns = soak.samples(options.directory / "patterns")
    replica = job.deltas_like(
        side.target, 1, 0, options.replica_mib << 20, side.patterns, lambda _: job.REPLICA
    )
    chain.run_fio(soak.fio_file(options.directory, f"replica-{side.key}", replica), timeout=3600)
    layout = job.deltas(
        side.target, options.desktops, options.replica_mib << 20, options.delta_mib << 20, side.patterns
    )
    chain.run_fio(soak.fio_file(options.directory, f"deltas-{side.key}", layout), timeout=3600)
    say(f"{side.key} ({side.rev}): laid out the replica and {options.desktops} deltas")
    return found


def execute(before: str, options: soak.SoakOptions, phases_per_side: int) -> dict[str, Any]:
    """Build A's image, boot both, run the turns; the figures."""
    record = previous.build(before, upgradable=False)
    images = {"A": (Path(str(record["image"])), Path(str(record["lab_key"]))), "B": image_and_key()}
    revs = {
        "A": previous.git("rev-parse", "--short", before),
        "B": images["B"][0].stem.removeprefix("arcvsa-"),
    }
    chain = toolchain.ensure(REPO / "build" / "bench" / "fio-root")
    sides: dict[str, Side] = {}
    figures: dict[str, Any] = {"revs": revs, "before": before, "phase_seconds": options.seconds}
    try:
        for key, network in zip(SIDES, (tap.NETWORK, tap.SECOND_NETWORK), strict=True):
            link, path = tap.measured_path(
                options.network, say, f"{tap.default_name()[:13]}{key.lower()}", network
            )
            lab_options = Options(
                0, [], 0, options.directory / key, options.json_path, options.memory_mib, options.lun_mib
            )
            sides[key] = Side(key, revs[key], Lab(lab_options, link, images[key]), link, path)
        for side in sides.values():
            figures[f"setup_{side.key}"] = {"network": side.network, **boot(side, chain, options)}
            paused(side, True)
        figures["phases"] = []
        for index, key in enumerate(order(phases_per_side)):
            side = sides[key]
            paused(side, False)
            time.sleep(SETTLE_S)
            say(f"phase {index}: {key} ({side.rev}) for {options.seconds} s")
            figures["phases"].append(run_phase(side, chain, options, index))
            paused(side, True)
            _save(options.json_path, figures)
        figures["summary"] = {k: summary([p for p in figures["phases"] if p["side"] == k]) for k in SIDES}
    finally:
        for side in sides.values():
            try:
                paused(side, False)
            except (OSError, ProcessError, RuntimeError) as exc:
                say(f"{side.key}: could not resume before the shutdown ({exc})")
            try:
                side.lab.stop()
            finally:
                if side.link is not None:
                    tap.close_link(side.link)
    return figures


def _save(path: Path, figures: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reliability.soak_ab", description=__doc__)
    parser.add_argument("--before", required=True, help="the commit whose image is side A")
    parser.add_argument("--phase-seconds", type=int, default=150)
    parser.add_argument("--phases", type=int, default=4, help="turns per side")
    parser.add_argument("--desktops", type=int, default=100)
    parser.add_argument("--iops", type=int, default=3)
    parser.add_argument("--network", choices=("tap", "user"), default="tap")
    parser.add_argument("--json", type=Path, default=REPO / "var" / "reliability" / "soak-ab.json")
    args = parser.parse_args(argv)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    options = soak.SoakOptions(
        desktops=args.desktops,
        seconds=args.phase_seconds,
        iops_per_desktop=args.iops,
        directory=REPO / "var" / "reliability" / f"soak-ab-{stamp}",
        json_path=args.json,
        network=args.network,
    )
    figures = execute(args.before, options, args.phases)
    _save(args.json, figures)
    shutil.rmtree(options.directory, ignore_errors=True)  # LUN files and VM disks
    print(f"\n{report(figures)}\n\nJSON: {args.json}")
    failed = [k for k in SIDES if figures["summary"][k].get("measured", 0) < args.phases]
    if failed:
        print(f"FAIL: side(s) {', '.join(failed)} lost a phase's api figures (see the JSON)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
