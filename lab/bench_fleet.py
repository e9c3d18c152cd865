"""Time the manager's fleet view over many appliances: `python -m lab.bench_fleet` (make bench-fleet).

The manager is the real api (`python -m api`, HTTPS) with one deployment of N appliances. Each appliance
is the real arcvsa api too, on the strict replay of the lab VM's 'fleet' recording with the counters the
sampler read in the lab VM (the 'metrics_series' recording) in its sample store, served over TLS; they
run in several worker processes so that they answer side by side, as N machines would, as far as this
machine's cores allow. The view is read in three cases, each once to log in and then ``runs`` times:

- all: every appliance answers;
- refused: the last appliance's address refuses connections (its host up, its api down);
- silent: the last appliance accepts connections and never answers (a hung api or machine).

The claim: one dead appliance adds no more than its time budget to the view, because the others are read
beside it. Printed as a table and written as JSON; exit 1 when a dead appliance costs more than that.
A benchmark, not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import platform
import secrets
import socket
import ssl
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

from lab.stack import ApiServer
from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, Vcsim

RECORDING = "fleet"
SAMPLES = "metrics_series"


def serve(count: int, folder: str, password: str, pipe: Connection) -> None:
    """A worker: ``count`` appliance apis on their replays, with the recorded samples stored, until told
    to stop. Runs in its own process (tests/ on PYTHONPATH: the replay and the server are test support)."""
    from datetime import UTC, datetime, timedelta

    from fixtures.appliance.replay import replay_log
    from support.appliance_server import replayed_appliances

    from api.metrics import sampler, store

    gw, files, _ = replay_log(SAMPLES, Path(folder) / "recorded")
    now = datetime.now(UTC)
    samples = [sampler.take(gw, files, now - timedelta(seconds=10 * (3 - i))) for i in range(4)]
    with replayed_appliances(Path(folder), count, RECORDING, password) as served:
        for server, _ in served:
            with server.app.state.sessionmaker() as db:
                for sample in samples:
                    store.add(db, sample)
                db.commit()
        pipe.send([(server.endpoint, server.thumbprint) for server, _ in served])
        pipe.recv()  # stop


@contextlib.contextmanager
def appliances(count: int, workers: int, folder: Path, password: str) -> Iterator[list[tuple[str, str]]]:
    """``count`` appliances over ``workers`` processes: their (endpoint, thumbprint)."""
    ctx = multiprocessing.get_context("spawn")
    shares = [count // workers + (1 if i < count % workers else 0) for i in range(workers)]
    started = []
    try:
        for i, share in enumerate(s for s in shares if s):
            ours, theirs = ctx.Pipe()
            proc = ctx.Process(target=serve, args=(share, str(folder / f"worker-{i}"), password, theirs))
            proc.start()
            started.append((proc, ours))
        found: list[tuple[str, str]] = []
        for _, pipe in started:
            if not pipe.poll(300):
                raise SystemExit("an appliance worker did not start within 300 s")
            found += pipe.recv()
        yield found
    finally:
        for proc, pipe in started:
            with contextlib.suppress(OSError):
                pipe.send("stop")
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(api: httpx.Client, pid: int, runs: int) -> dict[str, Any]:
    """One read to log in where needed, then ``runs`` reads of the view, timed and costed."""
    first = api.get("/api/fleet", params={"minutes": 60}, timeout=120)
    first.raise_for_status()
    walls, reported, cpus, last = [], [], [], first.json()
    for _ in range(runs):
        cpu, started = cpu_seconds(pid), time.monotonic()
        answer = api.get("/api/fleet", params={"minutes": 60}, timeout=120)
        walls.append(time.monotonic() - started)
        cpus.append(cpu_seconds(pid) - cpu)
        answer.raise_for_status()
        last = answer.json()
        reported.append(last["seconds"])
    rows = [a for d in last["deployments"] for a in d["appliances"]]
    return {
        "appliances": len(rows),
        "answering": sum(1 for a in rows if a["state"] == "ok"),
        "states": sorted({a["state"] for a in rows}),
        "first_seconds": first.json()["seconds"],
        "view_seconds_median": round(statistics.median(walls), 3),
        "view_seconds_max": round(max(walls), 3),
        "api_seconds_median": round(statistics.median(reported), 3),
        "manager_cpu_seconds_per_view": round(statistics.median(cpus), 3),
        "slowest_appliance_seconds": max(a["seconds"] for a in rows),
        "last_appliance": {"state": rows[-1]["state"], "seconds": rows[-1]["seconds"]},
        "response_bytes": len(answer.content),
        "timeout_seconds": last["timeout_seconds"],
    }


def run(count: int, workers: int, runs: int) -> dict[str, Any]:
    password = secrets.token_urlsafe(18)
    admin = secrets.token_urlsafe(18)
    load_before = round(os.getloadavg()[0], 2)
    cases: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="arcvsa-bench-fleet-") as tmp,
        Vcsim() as sim,
        appliances(count, workers, Path(tmp) / "appliances", password) as live,
        ApiServer(Path(tmp) / "manager", admin) as manager,
        socket.create_server(("127.0.0.1", 0)) as silent,
    ):
        pid = manager.pid
        ctx = ssl.create_default_context(cafile=str(manager.data_dir / "tls.crt"))
        with httpx.Client(base_url=manager.url, verify=ctx, timeout=60) as api:
            token = api.post("/api/auth/token", json={"username": "admin", "password": admin})
            token.raise_for_status()
            api.headers["Authorization"] = f"Bearer {token.json()['token']}"
            vc = {"name": "vcsim", "host": sim.host, "port": sim.port, "username": sim.username,
                  "password": sim.password, "thumbprint_sha256": sim.thumbprint_sha256}  # fmt: skip
            vcenter = api.post("/api/vcenters", json=vc)
            vcenter.raise_for_status()
            deployment = None
            dead = {
                "all": live[-1],
                "refused": ("127.0.0.1:9", "AB" * 32),
                "silent": (f"127.0.0.1:{silent.getsockname()[1]}", "CD" * 32),
            }
            for case, last in dead.items():
                specs = [
                    {
                        "host": f"esx-{i:02d}",
                        "name": f"vsa-{i:02d}",
                        "api_endpoint": endpoint,
                        "api_thumbprint_sha256": thumbprint,
                    }
                    for i, (endpoint, thumbprint) in enumerate([*live[:-1], last])
                ]
                fleet = {"ova_path": "arcvsa.ova", "network": "vsa-nfs", "datastore": DATASTORES[0],
                         "admin_password": password, "appliances": specs}  # fmt: skip
                nfs = {"name": "arcvsa-nfs", "server": "192.0.2.21", "path": "/tank/vdi"}
                plan = {"name": "bench-fleet", "datacenter": DATACENTER, "cluster": CLUSTER, "fleet": fleet,
                        "nfs": nfs}  # fmt: skip
                if deployment is None:
                    made = api.post(
                        "/api/deployments", json={"vcenter_id": vcenter.json()["id"], "plan": plan}
                    )
                    made.raise_for_status()
                    deployment = made.json()["id"]
                else:
                    api.put(f"/api/deployments/{deployment}", json={"plan": plan}).raise_for_status()
                cases[case] = measure(api, pid, runs)
    base = cases["all"]["view_seconds_median"]
    budget = cases["all"]["timeout_seconds"]
    for case in ("refused", "silent"):
        cases[case]["added_seconds"] = round(cases[case]["view_seconds_median"] - base, 3)
        cases[case]["within_budget"] = cases[case]["added_seconds"] <= budget
    return {
        "appliances": count,
        "workers": workers,
        "runs": runs,
        "budget_seconds": budget,
        "machine": {
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": round(os.getloadavg()[0], 2),
            "system": platform.platform(),
        },
        "cases": cases,
        "dead_within_budget": all(cases[c]["within_budget"] for c in ("refused", "silent")),
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        f"{report['appliances']} appliances in {report['workers']} processes; each has "
        f"{report['budget_seconds']:g} s for all its reads; median of {report['runs']} reads of GET /api/fleet",
        f"{'case':<8} {'answering':>9} {'view s':>7} {'max s':>6} {'added s':>7} {'last one':>18} "
        f"{'first s':>7} {'mgr CPU s':>9} {'KiB':>6}",
        "-" * 86,
    ]
    for name, c in report["cases"].items():
        last = f"{c['last_appliance']['state']} {c['last_appliance']['seconds']:.2f} s"
        added = f"{c['added_seconds']:+.2f}" if "added_seconds" in c else "-"
        lines.append(
            f"{name:<8} {c['answering']:>5} / {c['appliances']:<2} {c['view_seconds_median']:>6.2f} "
            f"{c['view_seconds_max']:>6.2f} {added:>7} {last:>18} {c['first_seconds']:>7.2f} "
            f"{c['manager_cpu_seconds_per_view']:>9.3f} {c['response_bytes'] / 1024:>6.0f}"
        )
    machine = report["machine"]
    lines.append(
        f"machine: {machine['cpus']} CPUs, 1-minute load {machine['load_before']} before and "
        f"{machine['load_after']} after"
    )
    verdict = "met" if report["dead_within_budget"] else "MISSED"
    lines.append(
        f"target: one dead appliance adds no more than its {report['budget_seconds']:g} s — {verdict}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m lab.bench_fleet", description=__doc__)
    parser.add_argument("--appliances", type=int, default=32, help="appliances in the deployment")
    parser.add_argument("--workers", type=int, default=4, help="processes serving them")
    parser.add_argument("--runs", type=int, default=5, help="timed reads per case (after one that logs in)")
    parser.add_argument("--json", type=Path, help="write the report here too")
    args = parser.parse_args()
    report = run(args.appliances, args.workers, args.runs)
    print(table(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"written: {args.json}")
    sys.exit(0 if report["dead_within_budget"] else 1)


if __name__ == "__main__":
    main()
