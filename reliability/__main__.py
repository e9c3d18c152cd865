"""``python -m reliability``: power-cut cycles, NFS restarts and power cuts in the middle of a reconcile
on the lab appliance; a table and JSON.

Exits 1 when an acknowledged write is lost, a pool does not come back ONLINE, a restart is not
survived, or a reconcile cut loses an acknowledged change or does not converge (each is listed).
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from reliability import reconcilecut
from reliability.powercut import Options, execute
from reliability.table import table

REPO = Path(__file__).resolve().parents[1]


def cycle_survived(cycle: dict[str, Any]) -> bool:
    """No loss and every pool ONLINE after the reboot."""
    return bool(cycle["lost"] == 0 and all(s == "ONLINE" for s in cycle["pool_states"].values()))


def merge(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs (each its own appliance and seed) as one: their cycles and restarts side by side."""
    cycles = [dict(c, cycle=f"{run['seed']}/{c['cycle']}") for run in runs for c in run["cycles"]]
    cuts = [
        dict(c, cycle=f"{run['seed']}/{c['cycle']}") for run in runs for c in run.get("reconcile_cuts", [])
    ]
    return {
        "seed": ", ".join(str(run["seed"]) for run in runs),
        "writers": runs[0].get("writers", {}),
        "cycles": cycles,
        "restarts": [r for run in runs for r in run["restarts"]],
        "reconcile_cuts": cuts,
    }


def report(data: dict[str, Any]) -> tuple[str, bool]:
    """The tables of a run and whether it passed."""
    cycles: list[dict[str, Any]] = data["cycles"]
    restarts: list[dict[str, Any]] = data["restarts"]
    cuts: list[dict[str, Any]] = data.get("reconcile_cuts", [])
    rows = [
        [
            "pool",
            "SLOG",
            "writer (stable_how)",
            "power-cut cycles",
            "acked writes verified",
            "torn unacked",
            "lost",
        ]
    ]
    totals = [0, 0, 0]
    for name, info in data.get("writers", {}).items():
        verified = sum(c["acked_this_cycle"][name] for c in cycles)
        # Slots where an unacknowledged write lies partly over the acknowledged one (ledger.py's rule)
        torn = sum(c["verdicts"][name].get("torn_unacked_present", 0) for c in cycles)
        lost = sum(len(c["verdicts"][name]["lost"]) for c in cycles)
        totals = [totals[0] + verified, totals[1] + torn, totals[2] + lost]
        how = "FILE_SYNC" if info["mode"] == "sync" else "UNSTABLE+COMMIT"
        slog = "yes" if info["slog"] else "no"
        rows.append([info["pool"], slog, how, str(len(cycles)), str(verified), str(torn), str(lost)])
    rows.append(["all", "", "", str(len(cycles)), *(str(t) for t in totals)])
    faults = [["fault", "injected", "survived"]]
    for mode, label in (
        ("random", "power cut (SIGKILL qemu) at a random moment"),
        ("txg-sync", "power cut right after a txg sync started"),
    ):
        chosen = [c for c in cycles if c["kill_mode"] == mode]
        faults.append([label, str(len(chosen)), str(sum(cycle_survived(c) for c in chosen))])
    for restart in restarts:
        faults.append([f"{restart['unit']} restart under load", "1", "1" if restart["survived"] else "0"])
    for fault in data.get("lun_faults", {}).values():  # tests/lab/faults (make reliability runs it first)
        faults.append([fault["fault"], "1", "1" if fault["survived"] else "0"])
    if cuts:
        label = "power cut during a burst of api changes (exports, NFS server, tuning, iSCSI)"
        faults.append([label, str(len(cuts)), str(sum(bool(c["survived"]) for c in cuts))])
    text = f"seed {data['seed']}\n\n{table(rows)}\n\n{table(faults)}"
    if restarts:
        rrows = [
            [
                "restart",
                "resume after (s)",
                "longest stall (s)",
                "re-sent writes",
                "errors",
                "exports unchanged",
                "lost",
            ]
        ]
        for r in restarts:
            rrows.append(
                [
                    r["unit"],
                    str(max(r["resume_after_restart_s"].values())),
                    str(max(r["stall_s"].values())),
                    str(sum(r["resent_writes"].values())),
                    str(len(r["errors"])),
                    "yes" if r["exports_unchanged"] else "NO",
                    str(r["lost"]),
                ]
            )
        text += f"\n\n{table(rrows)}"
    if cuts:
        text += f"\n\n{table(reconcilecut.rows(cuts))}"
    lost_lines = [
        f"cycle {c['cycle']} {name}: offset {lost['offset']} expected seq {lost['expected_seq']}, found {lost['found']}"
        for c in cycles
        for name, verdict in c["verdicts"].items()
        for lost in verdict["lost"]
    ]
    lost_lines += [
        f"{r['unit']} restart {name}: offset {lost['offset']} expected seq {lost['expected_seq']}, found {lost['found']}"
        for r in restarts
        for name, verdict in r["verdicts"].items()
        for lost in verdict["lost"]
    ]
    if lost_lines:
        text += "\n\nLOST acknowledged writes:\n" + "\n".join(lost_lines)
    failed = [f"restart {r['unit']}: errors {r['errors']}" for r in restarts if not r["survived"]]
    failed += [f"cycle {c['cycle']}: pools {c['pool_states']}" for c in cycles if not cycle_survived(c)]
    failed += reconcilecut.failures(cuts)
    if failed:
        text += "\n\nFAILED:\n" + "\n".join(failed)
    return text, not lost_lines and not failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reliability", description=__doc__)
    parser.add_argument("--cycles", type=int, default=20, help="power-cut cycles (each covers both pools)")
    parser.add_argument(
        "--restarts", default="ganesha,knfsd", help="NFS servers to restart under load ('' for none)"
    )
    parser.add_argument(
        "--reconcile-cuts",
        type=int,
        default=0,
        help="power cuts in the middle of a burst of api changes, after the cycles and restarts",
    )
    parser.add_argument("--seed", type=int, default=None, help="RNG seed (default: a new one, printed)")
    parser.add_argument("--memory-mib", type=int, default=2048, help="the VM's memory")
    parser.add_argument("--lun-mib", type=int, default=512, help="size of each of the two LUNs")
    parser.add_argument(
        "--dir", type=Path, default=None, help="work folder (default var/reliability/run-<time>)"
    )
    parser.add_argument("--json", type=Path, default=REPO / "var" / "reliability" / "reliability.json")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (LUNs, VM disks, logs)")
    parser.add_argument(
        "--lun-faults",
        type=Path,
        default=None,
        help="the LUN-fault lab test's figures (JSON) to put in the table and the run's JSON",
    )
    parser.add_argument(
        "--report",
        type=Path,
        nargs="+",
        default=None,
        help="print the combined table of earlier runs' JSON files (no VM is booted)",
    )
    args = parser.parse_args(argv)
    if args.report:
        text, passed = report(merge([json.loads(p.read_text(encoding="utf-8")) for p in args.report]))
        print(text)
        return 0 if passed else 1
    seed = args.seed if args.seed is not None else secrets.randbelow(1 << 31)
    directory = (
        args.dir or REPO / "var" / "reliability" / f"run-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    )
    restarts = [r for r in args.restarts.split(",") if r]
    options = Options(
        args.cycles, restarts, seed, directory, args.json, args.memory_mib, args.lun_mib, args.keep
    )
    cases = [reconcilecut.ReconcileCuts(args.reconcile_cuts, seed)] if args.reconcile_cuts else []
    try:
        data = execute(options, cases)
    finally:
        keep_logs(directory, args.json.parent / f"logs-{seed}")
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)  # LUN files and VM disks are large
    if args.lun_faults is not None:
        data["lun_faults"] = json.loads(args.lun_faults.read_text(encoding="utf-8"))
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    text, passed = report(data)
    print(f"\n{text}\n\nJSON: {args.json}")
    converged = "; every reconcile cut converged" if data.get("reconcile_cuts") else ""
    print(f"PASS: zero acknowledged writes lost{converged}" if passed else "FAIL")
    return 0 if passed else 1


def keep_logs(directory: Path, target: Path) -> None:
    """The writers' logs (the record of every acknowledged write) and the VM console, kept beside the JSON."""
    logs = directory / "logs"
    if logs.is_dir():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(logs, target)
    for name in ("console.log", "qemu.log"):  # the guest's, and qemu's own (why it ended)
        kept = directory / "vm" / name
        if kept.is_file():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(kept, target / name)


if __name__ == "__main__":
    sys.exit(main())
