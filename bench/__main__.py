"""``python -m bench``: run workloads on the four stacks in one run; print the table, write JSON and PNG.

``--smoke`` is the 2-minute version `make test` runs: the smoke size of each workload, two stacks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from appliance.control.nfs.backends import Backend
from bench import report, runner, toolchain
from bench.stack import AB_STACK, STACKS, Overrides
from bench.workload import ProfileError, load_san, load_workload
from lab import tap

DEFAULT_WORKLOADS = "provisioning-storm,boot-storm,steady-state"
SMOKE_STACKS = "bare-lun,arcvsa"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--profile", default=DEFAULT_WORKLOADS, help="workloads (names or YAML paths), comma-separated"
    )
    parser.add_argument(
        "--stacks", help=f"comma-separated, of {', '.join(STACKS)} (default: all; smoke: {SMOKE_STACKS})"
    )
    parser.add_argument("--smoke", action="store_true", help="the small version of each workload")
    parser.add_argument("--json", type=Path, default=runner.REPO / "var" / "bench" / "bench.json")
    parser.add_argument("--png", type=Path, help="charts (default: beside the JSON)")
    parser.add_argument("--memory-mib", type=int, default=4096, help="each appliance VM's memory")
    parser.add_argument("--lun-gib", type=float, default=4.0)
    parser.add_argument(
        "--keep-luns", action="store_true", help="keep the LUN files for the next run (3 x --lun-gib on disk)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PROPERTY=VALUE",
        help="a ZFS property of arcvsa's dataset over its profile's (repeatable), to compare one setting",
    )
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="PARAMETER=INTEGER",
        help="a ZFS module parameter of arcvsa's over its tuning recommendation's (repeatable)",
    )
    parser.add_argument(
        "--nfs-backend",
        choices=[backend.value for backend in Backend],
        help="arcvsa's NFS server (the appliance's nfs_backend property) over the OVF default",
    )
    parser.add_argument(
        "--ab",
        action="store_true",
        help=f"run arcvsa as shipped and, right after it, {AB_STACK} with --set/--module/--nfs-backend",
    )
    parser.add_argument(
        "--network",
        choices=("tap", "user"),
        default="tap",
        help="the appliance stacks' NFS path: a tap link as a NIC (falls back to user when the host cannot "
        "make one) or qemu's user-mode forwards",
    )
    args = parser.parse_args()

    try:
        workloads = [load_workload(name) for name in args.profile.split(",") if name]
        if args.smoke:
            workloads = [w.small() for w in workloads]
        stacks = (args.stacks or (SMOKE_STACKS if args.smoke else ",".join(STACKS))).split(",")
        if args.ab:
            if "arcvsa" not in stacks:
                raise ProfileError("--ab compares arcvsa with arcvsa-b: include arcvsa in --stacks")
            if not (args.set or args.module or args.nfs_backend):
                raise ProfileError("--ab needs a setting to compare: --set, --module or --nfs-backend")
            stacks.insert(stacks.index("arcvsa") + 1, AB_STACK)
        unknown = set(stacks) - {*STACKS, AB_STACK}
        if unknown:
            raise ProfileError(f"unknown stacks {sorted(unknown)} (known: {', '.join(STACKS)})")
        sans = {w.san: load_san(w.san) for w in workloads}
        if any("=" not in item for item in args.set):
            raise ProfileError("--set takes PROPERTY=VALUE, e.g. --set recordsize=8K")
        module = [item.split("=", 1) for item in args.module]
        if any(len(pair) != 2 or not pair[1].isdigit() for pair in module):
            raise ProfileError("--module takes PARAMETER=INTEGER, e.g. --module zfs_txg_timeout=15")
        overrides = Overrides(
            properties=dict(item.split("=", 1) for item in args.set),
            module={name: int(value) for name, value in module},
            nfs_backend=args.nfs_backend,
            ab=args.ab,
        )
    except ProfileError as exc:
        raise SystemExit(f"bench: {exc}") from None

    started = time.monotonic()
    manifest = json.loads((runner.REPO / "build" / "image" / "latest.json").read_text(encoding="utf-8"))
    image, key = Path(manifest["image"]), Path(manifest["lab_key"])
    workdir = runner.REPO / "var" / "bench" / "run"
    workdir.mkdir(parents=True, exist_ok=True)
    link, network = tap.measured_path(args.network, lambda text: print(f"bench: {text}", flush=True))
    try:
        chain = toolchain.ensure(runner.BUILD / "fio-root")
        replica_mib = min((w.replica_mib for w in workloads if w.replica_mib), default=None)
        gold = runner.prepare_golden(image, str(manifest["image_key"]), replica_mib)
        san = runner.start_san(workdir / "san", int(args.lun_gib * 2**30), next(iter(sans.values())))
        run = runner.Run(chain, gold, san, workdir, image, key, args.memory_mib, overrides, link)
        try:
            for name in stacks:
                run.stack(name, workloads)
        finally:
            runner.stop_quietly(san)
            if not args.keep_luns:
                for lun in san.luns:
                    lun.path.unlink(missing_ok=True)
    except runner.FAULTS as exc:
        detail = getattr(exc, "stderr", "")
        print(f"bench failed: {exc}\n{detail[-3000:] if detail else ''}", file=sys.stderr)
        raise SystemExit(1) from None
    finally:
        if link is not None:
            tap.close_link(link)

    checked = report.targets(run.results)
    doc = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "image": manifest.get("version"),
        "fio": chain.version(),
        "network": network,  # the appliance stacks' NFS path
        "smoke": args.smoke,
        "wall_seconds": round(time.monotonic() - started),
        "golden": {
            "replica_bytes": gold.replica_bytes,
            "trace_ops": len(gold.ops),
            "unique_read_bytes": gold.unique_read_bytes(),
        },
        "sans": {name: san.model_dump() for name, san in sans.items()},
        "results": run.results,
        "targets": checked,
    }
    report.write_json(doc, args.json)
    png = report.charts(run.results, args.png or args.json.with_suffix(".png"))
    print(report.table(run.results))
    print(report.targets_table(checked))
    print(f"\nbench: {doc['wall_seconds']} s; NFS over {network}; JSON {args.json}; charts {png}")


if __name__ == "__main__":
    main()
