"""The run's table (stdout), its JSON and PNG charts, and the issue's targets checked against it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import host
from bench.metrics import offload
from bench.stack import LABELS

COLUMNS = (
    ("read offload", "read_offload", "x"),
    ("bound", "compulsory_bound", "x"),
    ("write offload", "write_offload", "x"),
    ("wr bound", "write_bound", "x"),
    ("aggregation", "write_aggregation", "x"),
    ("compression", "compression", "x"),
    ("ARC hit", "arc_hit_pct", "%"),
    ("L2ARC hit", "l2arc_hit_pct", "%"),
    ("client IOPS", "client.iops", ""),
    ("SAN IOPS", "san_iops", ""),
    ("rd p95 ms", "client.read_lat_ms.p95", ""),
    ("wr p95 ms", "client.write_lat_ms.p95", ""),
    ("wr p99 ms", "client.write_lat_ms.p99", ""),
    ("CPU ms/IO", "cpu.ms_per_io", ""),
    ("CPU busy", "cpu.busy_pct", "%"),
)
# the phases whose storms arcvsa must serve at least as well as a plain NAS VM: (workload, phase)
VERSUS_NAS = (
    ("provisioning-storm", "clone-boot"),
    ("provisioning-storm", "recompose"),
    ("boot-storm", "boot"),
)
# the LUN write sizes the report sums the histogram into: a band's writes are under its bound (bytes)
SIZE_BANDS = {"under 16K": 16 << 10, "16K-128K": 128 << 10, "128K and over": 1 << 62}


def pick(row: dict[str, Any], path: str) -> Any:
    value: Any = row
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


#: columns whose small values need two decimals (a stack's CPU per I/O is well under 1 ms)
FINE = {"cpu.ms_per_io"}


def fmt(value: Any, unit: str, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and digits != 1 and abs(value) < 10:
        return f"{value:.{digits}f}{unit}"
    if isinstance(value, float):
        return f"{value:,.1f}{unit}" if abs(value) < 1000 else f"{value:,.0f}{unit}"
    return f"{value}{unit}"


def table(results: dict[str, dict[str, Any]]) -> str:
    """One block per workload, one line per stack and phase."""
    lines: list[str] = []
    head = ["stack", "phase", *(c[0] for c in COLUMNS)]
    for workload, stacks in results.items():
        rows = [head]
        for stack, result in stacks.items():
            for row in result["phases"]:
                if row["kind"] in ("drop-cache", "calibrate", "sweep"):
                    continue
                if "error" in row:
                    rows.append(
                        [
                            LABELS.get(stack, stack),
                            row["phase"],
                            "failed: see JSON",
                            *([""] * (len(COLUMNS) - 1)),
                        ]
                    )
                    continue
                cells = [
                    (">=" if c[1] in row.get("floors", []) else "")
                    + fmt(pick(row, c[1]), c[2], 2 if c[1] in FINE else 1)
                    for c in COLUMNS
                ]
                rows.append([LABELS.get(stack, stack), row["phase"], *cells])
            if "error" in result:
                rows.append(
                    [LABELS.get(stack, stack), "(stack)", "failed: see JSON", *([""] * (len(COLUMNS) - 1))]
                )
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        san = next(iter(stacks.values()))["san"]
        lines.append(
            f"\n== {workload} ({next(iter(stacks.values()))['desktops']} desktops, SAN {san['name']}) =="
        )
        for r in rows:
            lines.append(
                "  ".join(
                    cell.rjust(w) if i > 1 else cell.ljust(w)
                    for i, (cell, w) in enumerate(zip(r, widths, strict=True))
                )
            )
        synced = sorted(
            LABELS.get(stack, stack)
            for stack, result in stacks.items()
            if any(pick(row, "client.writes") for row in result["phases"])
        )
        if synced:
            lines.append(
                f"  writes of {', '.join(synced)}: FILE_SYNC, each a slice of the golden image (bench.syncwrite);"
                " the others': fio's"
            )
        lines += whole_writes(stacks)
        lines += recomposes(stacks)
        lines += cpu_split(stacks)
        lines += write_bounds(stacks)
        lines += lun_writes(stacks)
        lines += density(stacks)
        lines += sweeps(stacks)
        lines += host_stalls(stacks)
    return "\n".join(lines)


def each_row(stacks: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every phase's row of a workload, with its stack's label."""
    for stack, result in stacks.items():
        for row in result["phases"]:
            yield LABELS.get(stack, stack), row


def host_stalls(stacks: dict[str, Any]) -> list[str]:
    """The timed phases that ran on a slow host disk or a robbed CPU (bench.host.stalled)."""
    lines = []
    for label, row in each_row(stacks):
        parts = host.stalled(row)
        if parts:
            lines.append(
                f"  the host was slow during {label} {row['phase']}: {', '.join(parts)}"
                " (the phase's figures are partly the host's)"
            )
    return lines


def sweeps(stacks: dict[str, Any]) -> list[str]:
    """A sweep's points, one line each, the stacks side by side: IOPS, MiB/s and p95 of each."""
    found: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for stack, result in stacks.items():
        for row in result["phases"]:
            if row["kind"] == "sweep" and "points" in row:
                found.setdefault(f"{row['phase']} ({row['rw']})", {})[stack] = row["points"]
    lines = []
    for phase, by_stack in found.items():
        names = [LABELS.get(s, s).split(" (")[0] for s in by_stack]
        lines.append(f"  sweep {phase}: IOPS / MiB/s / p95 ms (worse of read and write) per stack")
        lines.append("    " + "point".ljust(18) + "".join(n[:26].rjust(28) for n in names))
        for i, point in enumerate(next(iter(by_stack.values()))):
            label = f"{point['clients']}x {point['bs']} qd{point['iodepth']}"
            cells = []
            for points in by_stack.values():
                p = points[i] if i < len(points) else {}
                lat = [pick(p, f"client.{d}_lat_ms.p95") for d in ("read", "write")]
                worst = max((v for v in lat if v is not None), default=None)
                cells.append(
                    f"{fmt(pick(p, 'client.iops'), '')} / {fmt(p.get('mib_s'), '')} / {fmt(worst, '')}"
                )
            lines.append("    " + label.ljust(18) + "".join(c.rjust(28) for c in cells))
    return lines


def whole(result: dict[str, Any]) -> float | None:
    """The write offload over a workload's measured phases together, a recompose apart (it is a second
    provisioning): seed 004 measured its 2.5x and 2.1x over a whole provisioning, the replica's copy
    and the clones' writes in one window, where the table gives each phase its own."""
    rows = _provisioning(result)
    writes = [w for r in rows if (w := pick(r, "client.write_bytes"))]
    if len(writes) < 2:
        return None
    return offload(sum(writes), sum(pick(r, "san.write_bytes") or 0 for r in rows))


def _provisioning(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured rows :func:`whole` sums: every phase that ran, a recompose apart."""
    return [r for r in result["phases"] if "san" in r and "error" not in r and r["kind"] != "recompose"]


def whole_writes(stacks: dict[str, Any]) -> list[str]:
    """Each stack's write offload over the workload's phases together (:func:`whole`)."""
    found = []
    for stack, result in stacks.items():
        value = whole(result)
        if value is None:
            continue
        floor = not sum(pick(r, "san.write_bytes") or 0 for r in _provisioning(result))
        found.append(f"{LABELS.get(stack, stack)} {'>=' if floor else ''}{value}x")
    if not found:
        return []
    return [f"  write offload over all phases together (client writes / LUN writes): {', '.join(found)}"]


def recomposes(stacks: dict[str, Any]) -> list[str]:
    """A recompose's figures beside seed 004's (Nexenta lab: 1360x read offload, 14x aggregation)."""
    lines = []
    for label, row in each_row(stacks):
        if row["kind"] != "recompose" or "error" in row:
            continue
        copied = pick(row, "client.copied_bytes") or 0
        lines.append(
            f"  {label} recompose: the new replica ({copied / (1 << 20):,.0f} MiB) and"
            f" every clone's boot from it in one window: read offload {fmt(row.get('read_offload'), 'x')}"
            " (seed 004: 1360x), write aggregation of the clones' writes"
            f" {fmt(row.get('write_aggregation'), 'x')} (seed 004: 14x)"
        )
    return lines


def cpu_split(stacks: dict[str, Any]) -> list[str]:
    """Where each appliance phase's guest CPU went (bench.cpu), as shares of its busy time."""
    lines = []
    for label, row in each_row(stacks):
        used = row.get("cpu")
        if not used or not used.get("busy_seconds"):
            continue
        busy = used["busy_seconds"]
        parts = sorted(used["components"].items(), key=lambda kv: -kv[1])
        shares = ", ".join(f"{name} {100 * t / busy:.0f} %" for name, t in parts if t)
        lines.append(
            f"  CPU of {label} {row['phase']}: {busy:,.1f} s busy"
            f" ({used['busy_pct']} % of {used['cpus']} vCPUs), {fmt(used.get('ms_per_io'), '', 2)} ms per I/O,"
            f" {fmt(used.get('ms_per_mib'), '')} ms per MiB: {shares}"
            + (f" (other's largest: {others})" if (others := _others(used)) else "")
        )
    return lines


def write_bounds(stacks: dict[str, Any]) -> list[str]:
    """What a copy-on-write pool must write at best for the phase's FILE_SYNC writes, and what it did."""
    lines = []
    for label, row in each_row(stacks):
        if row.get("write_bound") is None:
            continue
        model, mib = row["write_model"], 1 << 20
        txgs = (
            f"{model['txgs']} txgs as the pool opened them"
            if "txgs" in model
            else f"{model['txg_seconds']:g} s txgs"
        )
        lines.append(
            f"  {label} {row['phase']}: {model['record_bytes'] // 1024}K records,"
            f" {txgs}: the writes dirtied {row['dirtied_bytes'] / mib:.1f} MiB"
            f" of records, {row['san']['write_bytes'] / mib:.1f} MiB reached the LUN"
            f" (write offload {row['write_offload']}x of a {row['write_bound']}x bound)"
        )
    return lines


def lun_writes(stacks: dict[str, Any]) -> list[str]:
    """What the aggregation figure is made of: the pool's writes to the LUN by size (bench.iostat)."""
    lines = []
    for label, row in each_row(stacks):
        sizes = row.get("lun_write_sizes")
        if not sizes or row.get("write_aggregation") is None:
            continue
        total = sum(sum(pair) for pair in sizes.values())
        share = {band: 0 for band in SIZE_BANDS}
        for bucket, pair in sizes.items():
            band = next(b for b, top in SIZE_BANDS.items() if int(bucket) < top)
            share[band] += sum(pair)
        merged = sum(pair[1] for pair in sizes.values())
        bands = ", ".join(f"{100 * n / total:.0f} % {band}" for band, n in share.items())
        lines.append(
            f"  {label} {row['phase']}: the pool's {total:,} writes to the LUN"
            f" (zpool iostat -r): {bands}; {100 * merged / total:.0f} % merged from adjacent blocks"
        )
    return lines


def density(stacks: dict[str, Any]) -> list[str]:
    """The built-in calibration's desktops supported, where a workload ran it."""
    lines = []
    for stack, row in each_row(stacks):
        if row["kind"] != "calibrate" or "skipped" in row:
            continue
        for label in ("bare", "dataset"):
            if label in row:
                found = row[label]
                where = "free LUN of the array (bare)" if label == "bare" else f"{stack} dataset"
                lines.append(
                    f"  desktops supported at p95 <= {row['threshold_ms']:g} ms: {found['desktops_supported']} on {where}"
                    f" ({found['stop_reason']})"
                )
        if row.get("density_floor"):
            lines.append(
                f"  density through arcvsa / bare LUN: >={row['density_ratio']}x (the bare LUN served none)"
            )
        elif row.get("density_ratio") is not None:
            lines.append(f"  density through arcvsa / bare LUN: {row['density_ratio']}x")
    return lines


def phase_of(results: dict[str, Any], workload: str, stack: str, phase: str) -> dict[str, Any]:
    for row in results.get(workload, {}).get(stack, {}).get("phases", []):
        if row["phase"] == phase:
            return dict(row)
    return {}


Check = tuple[str, Callable[[dict[str, Any]], float | None], float, str]

TARGETS: tuple[Check, ...] = (
    (
        "provisioning read offload",
        lambda r: phase_of(r, "provisioning-storm", "arcvsa", "clone-boot").get("read_offload"),
        38.0,
        ">=",
    ),
    (
        "provisioning offload / compulsory bound",
        lambda r: _share(phase_of(r, "provisioning-storm", "arcvsa", "clone-boot")),
        0.5,
        ">=",
    ),
    (
        "steady-state write offload",
        lambda r: phase_of(r, "steady-state", "arcvsa", "work").get("write_offload"),
        2.5,
        ">=",
    ),
    (
        "steady-state write aggregation",
        lambda r: phase_of(r, "steady-state", "arcvsa", "work").get("write_aggregation"),
        14.0,
        ">=",
    ),
    (
        "compression of the OS image",
        lambda r: phase_of(r, "provisioning-storm", "arcvsa", "copy").get("compression"),
        1.7,
        ">=",
    ),
    (
        "p95 write latency vs bare LUN (constrained)",
        lambda r: _latency_share(r),
        0.25,
        "<=",
    ),
    (
        "desktops vs bare LUN (calibration)",
        lambda r: phase_of(r, "steady-state", "arcvsa", "density").get("density_ratio"),
        1.7,
        ">=",
    ),
)


def _others(used: dict[str, Any]) -> str:
    return ", ".join(f"{comm} {t:g} s" for comm, t in used.get("other_tasks", {}).items())


def _versus_nas(workload: str, phase: str, path: str) -> Callable[[dict[str, Any]], float | None]:
    """arcvsa's figure over the NAS VM's for one phase of the same run."""

    def measure(results: dict[str, Any]) -> float | None:
        ours = pick(phase_of(results, workload, "arcvsa", phase), path)
        nas = pick(phase_of(results, workload, "nas-xfs", phase), path)
        return round(ours / nas, 2) if ours is not None and nas else None

    return measure


def _whole(results: dict[str, Any]) -> float | None:
    found = results.get("provisioning-storm", {}).get("arcvsa")
    return whole(found) if found else None


TARGETS += (
    ("whole-provisioning write offload", _whole, 2.5, ">="),
    (
        "recompose read offload",
        lambda r: phase_of(r, "provisioning-storm", "arcvsa", "recompose").get("read_offload"),
        1360.0,
        ">=",
    ),
    (
        "recompose write aggregation",
        lambda r: phase_of(r, "provisioning-storm", "arcvsa", "recompose").get("write_aggregation"),
        14.0,
        ">=",
    ),
    *(
        check
        for workload, phase in VERSUS_NAS
        for check in (
            (
                f"{phase} p95 read ms / NAS VM's",
                _versus_nas(workload, phase, "client.read_lat_ms.p95"),
                1.0,
                "<=",
            ),
            (
                f"{phase} p95 write ms / NAS VM's",
                _versus_nas(workload, phase, "client.write_lat_ms.p95"),
                1.0,
                "<=",
            ),
            (f"{phase} write offload / NAS VM's", _versus_nas(workload, phase, "write_offload"), 1.0, ">="),
        )
    ),
)


def _share(row: dict[str, Any]) -> float | None:
    got, bound = row.get("read_offload"), row.get("compulsory_bound")
    return round(got / bound, 2) if got and bound else None


def _latency_share(results: dict[str, Any]) -> float | None:
    ours = pick(phase_of(results, "steady-state", "arcvsa", "work"), "client.write_lat_ms.p95")
    bare = pick(phase_of(results, "steady-state", "bare-lun", "work"), "client.write_lat_ms.p95")
    return round(ours / bare, 3) if ours is not None and bare else None


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target the product must meet, with the measured value (None when the run did not include it)."""
    checked = []
    for name, measure, goal, op in TARGETS:
        value = measure(results)
        ok = None if value is None else (value >= goal if op == ">=" else value <= goal)
        checked.append({"target": name, "measured": value, "goal": f"{op} {goal:g}", "met": ok})
    return checked


def targets_table(checked: list[dict[str, Any]]) -> str:
    lines = ["\n== targets =="]
    for row in checked:
        state = {True: "met", False: "MISSED", None: "not run"}[row["met"]]
        value = row["measured"]
        shown = f"{value:.3g}" if isinstance(value, float) and abs(value) < 10 else fmt(value, "")
        lines.append(f"  {row['target']:<45} {shown:>10}  {row['goal']:<8} {state}")
    return "\n".join(lines)


def write_json(doc: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")


CHARTS = (
    ("read offload (x, log)", "read_offload", True),
    ("write offload (x)", "write_offload", False),
    ("write p95 latency (ms, log)", "client.write_lat_ms.p95", True),
    ("read p95 latency (ms, log)", "client.read_lat_ms.p95", True),
)


COLORS = ["#8c8c8c", "#0072a3", "#c28b00", "#6a3d9a", "#2e8540"]
SWEEP_CHARTS = (("IOPS", "client.iops"), ("MiB/s", "mib_s"), ("write p95 ms", "client.write_lat_ms.p95"))


def charts(results: dict[str, dict[str, Any]], path: Path) -> Path:
    """One row of bar charts per workload (each stack's figure for the workload's main phase), and one
    row of line charts per sweep (each stack's figures along the sweep's points)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def main_phase(result: dict[str, Any]) -> dict[str, Any] | None:
        main = [p for p in result["phases"] if p["kind"] in ("trace", "mix")]
        return main[-1] if main else None

    bars = [w for w in results if any(main_phase(r) for r in results[w].values())]
    lines = [
        (w, row["phase"])
        for w in results
        for row in next(iter(results[w].values()))["phases"]
        if row["kind"] == "sweep"
    ]
    rows = max(1, len(bars) + len(lines))
    fig, axes = plt.subplots(rows, len(CHARTS), figsize=(4.2 * len(CHARTS), 3.2 * rows), squeeze=False)
    for w, workload in enumerate(bars):
        stacks = results[workload]
        for c, (title, key, log) in enumerate(CHARTS):
            ax = axes[w][c]
            names, values = [], []
            for stack, result in stacks.items():
                main = main_phase(result)
                value = pick(main, key) if main else None
                names.append(LABELS.get(stack, stack).split(" (")[0])
                values.append(float(value) if isinstance(value, int | float) else 0.0)
            ax.bar(names, values, color=COLORS[: len(names)])
            if log and any(v > 0 for v in values):
                ax.set_yscale("log")
            ax.set_title(f"{workload}: {title}", fontsize=9)
            ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    for r, (workload, phase) in enumerate(lines, start=len(bars)):
        for c, (title, key) in enumerate(SWEEP_CHARTS):
            ax = axes[r][c]
            for n, (stack, result) in enumerate(results[workload].items()):
                row: dict[str, Any] = next((p for p in result["phases"] if p["phase"] == phase), {})
                points = row.get("points", [])
                labels = [f"{p['clients']}x{p['bs']}/{p['iodepth']}" for p in points]
                values = [float(pick(p, key) or 0.0) for p in points]
                ax.plot(
                    labels,
                    values,
                    marker="o",
                    color=COLORS[n % len(COLORS)],
                    label=LABELS.get(stack, stack).split(" (")[0],
                )
            ax.set_title(f"{workload} {phase}: {title}", fontsize=9)
            ax.tick_params(axis="x", labelrotation=45, labelsize=7)
            if c == 0:
                ax.legend(fontsize=7)
        axes[r][len(SWEEP_CHARTS)].axis("off")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def main() -> None:
    """``python -m bench.report RUN.json``: the table, targets and charts of a saved run, again."""
    import argparse

    from bench.metrics import rates

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("run", type=Path)
    parser.add_argument("--write", action="store_true", help="store the recomputed figures in the JSON")
    args = parser.parse_args()
    doc = json.loads(args.run.read_text(encoding="utf-8"))
    for stacks in doc["results"].values():
        for result in stacks.values():
            for row in result["phases"]:
                if "wall_seconds" in row and "client" in row:
                    rates(row)
    doc["targets"] = targets(doc["results"])
    if args.write:
        write_json(doc, args.run)
        charts(doc["results"], args.run.with_suffix(".png"))
    print(table(doc["results"]))
    print(targets_table(doc["targets"]))


if __name__ == "__main__":
    main()
