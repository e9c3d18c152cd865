"""Measure desktop-pool provisioning against vcsim: `python -m lab.bench_provisioning` (make bench-provisioning).

For each concurrency: apply a linked-clone pool of N desktops (clone, mark, reconfigure, power on: three
tasks and one SetField per desktop) on the lab's 4-host cluster, then destroy it, and time both. vcsim
answers tasks in milliseconds, so the figures measure arcvsa's own overhead (SOAP round trips, the one
PropertyCollector filter, the bookkeeping), not vSphere's clone speed.
"""

from __future__ import annotations

import argparse
import functools
import json
import platform
import sys
import time
from pathlib import Path

from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim
from provisioning import apply as prov
from provisioning import session
from provisioning.destroy import destroy
from provisioning.plan import DeploymentPlan


def plan(desktops: int, concurrency: int) -> DeploymentPlan:
    name = f"bench-c{concurrency}"
    pool = {
        "name": name, "count": desktops, "naming": f"{name}-####", "folder": f"bench/{name}",
        "golden_vm": GOLDEN_VM, "snapshot": GOLDEN_SNAPSHOT, "datastore": DATASTORES[0], "vcpus": 1,
        "memory_mb": 512, "memory_overcommit": 20, "concurrency": concurrency,
    }  # fmt: skip
    return DeploymentPlan.model_validate(
        {"name": name, "datacenter": DATACENTER, "cluster": CLUSTER, "pool": pool}
    )


def measure(sim: Vcsim, desktops: int, concurrency: int) -> dict[str, float | int]:
    login = functools.partial(
        session.login, sim.host, sim.port, sim.username, sim.password, thumbprint_sha256=sim.thumbprint_sha256
    )
    deployment = plan(desktops, concurrency)
    started = time.monotonic()
    made = prov.apply(login, deployment)
    apply_s = time.monotonic() - started
    if made.failed or len(made.done) != desktops:
        raise SystemExit(f"apply failed: {made.failed}")
    started = time.monotonic()
    gone = destroy(login, deployment.name, DATACENTER, CLUSTER)
    destroy_s = time.monotonic() - started
    return {
        "desktops": desktops,
        "concurrency": concurrency,
        "apply_s": round(apply_s, 2),
        "desktops_per_s": round(desktops / apply_s, 1),
        "peak_in_flight": made.peak,
        "wait_calls": made.waits,
        "tasks": desktops * 3,
        "destroy_s": round(destroy_s, 2),
        "destroyed": len(gone.done),
    }


def table(rows: list[dict[str, float | int]]) -> str:
    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    line = "  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True))
    body = ["  ".join(str(r[c]).rjust(w) for c, w in zip(cols, widths, strict=True)) for r in rows]
    return "\n".join([line, "  ".join("-" * w for w in widths), *body])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lab.bench_provisioning", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--desktops", type=int, default=200)
    parser.add_argument("--concurrency", default="8", help="comma-separated, e.g. 1,4,8,16")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    rows = []
    with Vcsim() as sim:
        for c in (int(x) for x in args.concurrency.split(",")):
            rows.append(measure(sim, args.desktops, c))
            print(f"concurrency {c}: {rows[-1]['apply_s']} s", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        doc = {
            "what": "linked-clone pool apply + destroy on vcsim (4 hosts)",
            "python": platform.python_version(),
            "rows": rows,
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
