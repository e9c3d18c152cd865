"""The benchmark's smoke run (in `make test`): the real stacks, small sizes, figures that must hold.

Two desktops cannot show the full run's offload; they can show that every counter moves, that the
appliance absorbs reads the bare LUN sends to the SAN, and that compression is measured on real data.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.lab, pytest.mark.timeout(3600)]

REPO = Path(__file__).resolve().parents[2]


def test_smoke_run_on_bare_lun_and_arcvsa(lab_image: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "smoke.json"
    workloads = "provisioning-storm,boot-storm,steady-state"
    argv = [sys.executable, "-m", "bench", "--smoke", "--profile", workloads]
    subprocess.run([*argv, "--lun-gib", "1.5", "--json", str(out)], cwd=REPO, check=True, timeout=3000)
    doc = json.loads(out.read_text(encoding="utf-8"))
    results = doc["results"]
    assert set(results) == {"provisioning-storm", "boot-storm", "steady-state"}
    for workload in results.values():
        assert set(workload) == {"bare-lun", "arcvsa"}
    # the desktops reach arcvsa as over a NIC where the host makes tap devices (the unit tests say
    # whether this one does); the stack's setup names the path its figures were measured on
    network = results["steady-state"]["arcvsa"]["stack"]["setup"]["network"]
    assert doc["network"] == network == "tap" or doc["network"].startswith("user ("), doc["network"]

    phases = {p["phase"]: p for p in results["provisioning-storm"]["arcvsa"]["phases"]}
    bare = {p["phase"]: p for p in results["provisioning-storm"]["bare-lun"]["phases"]}
    boot = phases["clone-boot"]
    assert boot["client"]["read_bytes"] > 0 and boot["san"]["read_bytes"] >= 0
    # Two clones read the same replica blocks: the appliance serves the second from its cache.
    assert boot["read_offload"] > 1.5, boot  # a floor (client bytes / 4 KiB) when the SAN read nothing
    assert bare["clone-boot"]["read_offload"] == 1.0
    assert phases["copy"]["compression"] > 1.1, phases[
        "copy"
    ]  # real OS bytes (the boot partition's first 64 MiB)
    # over NFS the clones' writes are FILE_SYNC with real bytes (bench.replay), as ESXi sends them
    assert boot["client"]["writes"].startswith("FILE_SYNC") and boot["client"]["write_ios"] > 0, boot
    assert (
        boot["client"]["read_lat_ms"]["p95"] is not None and boot["client"]["write_lat_ms"]["p95"] is not None
    )
    # the guest's own CPU accounting: the NFS server worked for the boot, and an I/O cost some CPU
    used = boot["cpu"]
    assert used["busy_seconds"] > 0 and used["components"]["nfs server"] > 0, used
    assert 0 < used["ms_per_io"] < 1000 and 0 < used["busy_pct"] <= 100, used
    assert "cpu" not in bare["clone-boot"]  # no guest on the bare LUN
    # a recompose: the new replica and the clones' boot from it in one window
    again = phases["recompose"]
    assert again["client"]["copied_bytes"] > 0 and again["client"]["read_bytes"] > 0, again
    assert again["read_offload"] > 1.5 and again["write_aggregation"] > 1.0, again
    assert bare["recompose"]["write_offload"] == 1.0

    # The boot storm's cold cache (pool export and import): the ARC left empty, the L2ARC rebuilt
    # from the SSD, so the boot's reads come from below the ARC again (the SSD or the SAN).
    cold, storm = results["boot-storm"]["arcvsa"]["phases"]
    assert cold["arc_bytes"] < boot["arc_bytes"] / 2 and cold["l2arc_bytes"] > 0, (cold, boot)
    below = storm["san"]["read_bytes"] + storm["ssd"]["ssd-l2arc"]["rd_bytes"]
    assert storm["client"]["read_bytes"] > 0 and below > 0, storm

    work = results["steady-state"]["arcvsa"]["phases"][0]
    bare_work = results["steady-state"]["bare-lun"]["phases"][0]
    for row in (work, bare_work):
        assert row["client"]["write_bytes"] > 0 and row["client"]["write_lat_ms"]["p95"] is not None, row
        assert 0 <= row["host"]["steal_pct"] <= 100, row["host"]  # what the host went through (bench.host)
    assert work["san"]["write_bytes"] > 0, work  # the pool did write to the LUN
    assert work["write_aggregation"] > 1.0, work  # ZFS writes larger blocks than the clients
    # the same writes as ZFS issued them (zpool iostat -r of the data LUN over the same window): the
    # guest's block layer may merge or split a few on the way to qemu's counters, not halve or double them
    issued = sum(sum(pair) for pair in work["lun_write_sizes"].values())
    assert 0.5 <= issued / work["san"]["write_ops"] <= 2.0, (issued, work["san"])
    assert "lun_write_sizes" not in bare_work
    model = work["write_model"]  # the write bound's txgs: the pool's own, placed on the host's clock
    assert model["txgs"] >= 2 and 0 <= model["clock_error_s"] < 1.0, model
    assert {t["target"] for t in doc["targets"]} >= {
        "provisioning read offload",
        "steady-state write offload",
        "recompose read offload",
        "whole-provisioning write offload",
    }


def test_every_shipped_workload_makes_jobs_fio_accepts(tmp_path: Path) -> None:
    """Each profile's jobs, for both engines, through fio 3.39's own option parser (--parse-only)."""
    from bench import job, toolchain
    from bench.workload import WORKLOADS, load_workload

    chain = toolchain.ensure(REPO / "build" / "bench" / "fio-root")
    targets = (
        job.Target("nfs", "nfs://127.0.0.1/tank/vdi?nfsport=2049&mountport=20048"),
        job.Target("nbd", "nbd+unix:///lun0?socket=/tmp/absent.sock"),
    )
    sample = tmp_path / "sample.bin"
    sample.write_bytes(bytes(range(256)) * 4096)
    checked = []
    for path in sorted(WORKLOADS.glob("*.yaml")):
        work = load_workload(str(path))
        for phase in (p for p in work.phases if p.kind in ("mix", "sweep")):
            for target in targets:
                if phase.kind == "mix":
                    texts = {"": job.mix(target, phase, work.desktops, 1 << 30, [sample])}
                else:  # every point of a sweep, and its layout
                    texts = {"-layout": job.sweep_layout(target, phase, 1 << 30, [sample])}
                    for point in job.sweep_points(phase):
                        name = "-{}x{}-qd{}".format(*point)
                        texts[name] = job.sweep_point(target, phase, point, 1 << 30, [sample])
                for suffix, text in texts.items():
                    jobfile = tmp_path / f"{work.name}-{phase.name}{suffix}-{target.engine}.fio"
                    jobfile.write_text(text, encoding="utf-8")
                    argv = chain.fio_argv(["--parse-only", str(jobfile)])
                    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
                    assert done.returncode == 0, (jobfile.name, done.stderr)
                    checked.append(jobfile.name)
    assert len(checked) >= 150, len(checked)
