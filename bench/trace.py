"""The boot trace: every read and write a real boot of the golden disk makes, replayed by fio.

A boot storm must replay what a desktop's boot really does to its disk, not a guess. The
appliance image (a real Debian 13 disk) is booted under qemu TCG from a throwaway qcow2 overlay
(the image is never written) with the ``virtio_blk_handle_read``/``_write`` trace events on qemu's
``log`` backend (Debian's build; ``-msg timestamp=on`` stamps each line ``pid@sec.usec:``), until
the console shows the login prompt. The requests are saved as JSON and written out as fio iolog v3
files (timestamps in microseconds, as fio's own ``write_iolog`` writes them) for ``read_iolog``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab import console as vmconsole
from lab.appliance_vm import TCG
from process import run

SECTOR = 512
PAD_BYTES = 4096
EVENTS = ("virtio_blk_handle_read", "virtio_blk_handle_write")
LINE = re.compile(
    r"^\d+@(?P<sec>\d+)\.(?P<usec>\d{6}):virtio_blk_handle_(?P<op>read|write) "
    r"vdev (?P<vdev>\S+) req \S+ sector (?P<sector>\d+) nsectors (?P<n>\d+)"
)
REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "build" / "bench" / "golden"


class TraceError(RuntimeError):
    """The traced boot failed: a tool is missing, or qemu left no requests in its trace log."""


def tool(name: str) -> str:
    """The absolute path of a host tool (qemu-img, lz4...) on PATH."""
    found = shutil.which(name)
    if found is None:
        raise TraceError(f"{name} is not installed")
    return found


@dataclass(frozen=True)
class Op:
    """One guest request: seconds since the first request, direction, byte offset and length."""

    t: float
    op: str  # "r" or "w"
    offset: int
    length: int

    def row(self) -> list[Any]:
        """The JSON row ``[t, "r"|"w", offset, length]``."""
        return [round(self.t, 6), self.op, self.offset, self.length]


def parse_log(lines: Iterable[str]) -> list[Op]:
    """The requests in qemu's trace log, timed from the first one; other lines are skipped.

    Only the disk of the first request's ``vdev`` is kept (the traced VM has one disk anyway).
    """
    raw: list[tuple[int, str, int, int]] = []
    vdev = ""
    for line in lines:
        match = LINE.match(line)
        if match is None:
            continue
        vdev = vdev or match["vdev"]
        if match["vdev"] != vdev:
            continue
        at = int(match["sec"]) * 1_000_000 + int(match["usec"])  # microseconds: exact
        op = "r" if match["op"] == "read" else "w"
        raw.append((at, op, int(match["sector"]) * SECTOR, int(match["n"]) * SECTOR))
    if not raw:
        return []
    start = raw[0][0]
    return [Op((at - start) / 1e6, op, offset, length) for at, op, offset, length in raw]


def summary(ops: list[Op]) -> dict[str, Any]:
    """Counts, bytes, sizes, R/W ratio and the span of offsets and time a trace covers."""
    reads = [o for o in ops if o.op == "r"]
    writes = [o for o in ops if o.op == "w"]
    read_bytes = sum(o.length for o in reads)
    write_bytes = sum(o.length for o in writes)
    touched = unique_bytes(ops)
    return {
        "ops": len(ops),
        "reads": len(reads),
        "writes": len(writes),
        "bytes_read": read_bytes,
        "bytes_written": write_bytes,
        "unique_bytes_read": unique_bytes(reads),
        "unique_bytes_touched": touched,
        "read_size_mean": round(read_bytes / len(reads)) if reads else 0,
        "write_size_mean": round(write_bytes / len(writes)) if writes else 0,
        "read_pct": round(100 * len(reads) / len(ops), 1) if ops else 0.0,
        "seconds": round(ops[-1].t, 3) if ops else 0.0,
        "max_offset_end": max((o.offset + o.length for o in ops), default=0),
    }


def unique_bytes(ops: Iterable[Op]) -> int:
    """Bytes covered by the union of the requests' extents (the compulsory misses of a replay)."""
    total, end = 0, -1
    for start, stop in sorted((o.offset, o.offset + o.length) for o in ops):
        if start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def iolog(
    ops: list[Op],
    filename: str,
    out_path: Path,
    *,
    reads_only: bool = False,
    timed: bool = True,
    iodepth: int = 1,
    scratch_offset: int | None = None,
) -> Path:
    """Write a fio iolog v3 for ``filename``: add, open, the requests, close.

    Timestamps are microseconds from the start (fio waits the difference between consecutive
    lines; ``replay_no_stall=1`` ignores them). Untimed logs stamp every line 0. The first request
    is stamped at least 1 us: fio does not wait after a line stamped 0.

    fio 3.39 replaying a log at ``iodepth`` > 1 skips the log's last ``iodepth - 1`` writes (any
    engine: libaio, nbd and nfs alike; every read is done) yet counts them in ``total_ios``. With
    ``iodepth`` > 1 and ``scratch_offset`` set, that many 4 KiB writes to ``scratch_offset`` are
    appended: they are the ones skipped, so every write of the trace is done and fio's write
    ``io_bytes`` equal the trace's (its ``total_ios`` still count the pads).
    """
    chosen = [o for o in ops if o.op == "r"] if reads_only else list(ops)
    lines = ["fio version 3 iolog", f"0 {filename} add", f"0 {filename} open"]
    last = 0
    for o in chosen:
        stamp = max(1, round(o.t * 1e6)) if timed else 0
        last = max(last, stamp)
        lines.append(f"{stamp} {filename} {'read' if o.op == 'r' else 'write'} {o.offset} {o.length}")
    if iodepth > 1 and scratch_offset is not None and any(o.op == "w" for o in chosen):
        lines += [f"{last} {filename} write {scratch_offset} {PAD_BYTES}"] * (iodepth - 1)
    lines.append(f"{last} {filename} close")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out_path


def qemu_argv(overlay: Path, console: Path, trace_log: Path) -> list[str]:
    """The traced VM: the golden disk (overlay) only, user net without forwards, no display."""
    return [
        tool("qemu-system-x86_64"),
        "-name",
        "arcvsa-bench-trace",
        *TCG,
        "-smp",
        "2",
        "-m",
        "2048",
        "-nodefaults",
        "-display",
        "none",
        "-serial",
        f"file:{console}",
        "-netdev",
        "user,id=net0,restrict=on",
        "-device",
        "virtio-net-pci,netdev=net0,romfile=",
        "-device",
        "virtio-rng-pci",
        "-blockdev",
        f"driver=qcow2,node-name=os,file.driver=file,file.filename={overlay}",
        "-device",
        "virtio-blk-pci,id=dev-os,drive=os,serial=os,bootindex=0",
        *(arg for event in EVENTS for arg in ("-trace", f"enable={event}")),
        "-D",
        str(trace_log),
        "-msg",
        "timestamp=on",
    ]


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End qemu: SIGTERM first (it exits cleanly and flushes the trace log), SIGKILL if it hangs."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def record(
    image: Path, work: Path, *, timeout: float = 600.0, settle: float = 10.0, stall: float = 240.0
) -> tuple[list[Op], float]:
    """Boot ``image`` from an overlay until the login prompt (+ ``settle`` s); (requests, boot seconds)."""
    work.mkdir(parents=True, exist_ok=True)
    overlay, console, log = work / "overlay.qcow2", work / "console.log", work / "trace.log"
    for path in (overlay, console, log):
        path.unlink(missing_ok=True)
    run(
        [tool("qemu-img"), "create", "-q", "-f", "qcow2", "-b", str(image), "-F", "qcow2", str(overlay)],
        timeout=60,
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        qemu_argv(overlay, console, log),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=(work / "qemu.stderr").open("wb"),
        start_new_session=True,
    )
    try:
        booted = vmconsole.wait_login(console, lambda: proc.poll() is None, started, timeout, stall)
        time.sleep(settle)
    finally:
        stop(proc)
        overlay.unlink(missing_ok=True)
    ops = parse_log(log.read_text(encoding="utf-8", errors="replace").splitlines())
    if not ops:
        raise TraceError(f"no virtio_blk requests in {log}")
    return ops, booted


def save(ops: list[Op], out: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write the trace JSON (``meta``, ``summary`` and ``ops`` rows); returns the summary."""
    found = summary(ops)
    doc = {**meta, "summary": found, "ops": [o.row() for o in ops]}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    return found


def load(path: Path) -> list[Op]:
    """The requests of a saved trace."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [Op(float(t), str(op), int(off), int(n)) for t, op, off, n in doc["ops"]]


def latest_image(manifest: Path = REPO / "build" / "image" / "latest.json") -> tuple[Path, str]:
    """(qcow2, image_key) of the last image build."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return Path(data["image"]), str(data["image_key"])


def ensure(
    image: Path,
    image_key: str,
    out: Path,
    *,
    timeout: float = 600.0,
    settle: float = 10.0,
    force: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The trace at ``out``, recorded again unless it is current for this image: same path *and*
    image_key (a rebuilt ``-dirty`` image keeps its path). Returns (summary, meta).

    A boot whose console stood still, or whose kernel panicked (TCG: see lab.console), is booted once
    more from a fresh overlay: a CI run once saw no login prompt in 300 s where this boot takes under
    a minute. A second such boot, or one merely too slow, fails with its console."""
    if not force and out.is_file() and image_key:
        saved = json.loads(out.read_text(encoding="utf-8"))
        if saved.get("image") == str(image) and saved.get("image_key") == image_key:
            meta = {k: saved.get(k) for k in ("image", "image_key", "boot_to_login_seconds")}
            return dict(saved["summary"]), meta
    work = out.parent / "trace-vm"
    try:
        ops, booted = record(image, work, timeout=timeout, settle=settle)
    except (vmconsole.BootStalled, vmconsole.GuestPanicked) as err:
        print(f"bench.trace: booting again: {err}", flush=True)
        ops, booted = record(image, work, timeout=timeout, settle=settle)
    meta = {"image": str(image), "image_key": image_key, "boot_to_login_seconds": round(booted, 1)}
    return save(ops, out, meta), meta


def main() -> None:
    """Record the boot trace of the last image build into build/bench/golden/boot-trace.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--image", type=Path, help="qcow2 to boot (default: build/image/latest.json's)")
    parser.add_argument("--out", type=Path, default=GOLDEN / "boot-trace.json")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds recorded after the login prompt")
    parser.add_argument("--force", action="store_true", help="record again even if the trace is current")
    args = parser.parse_args()
    image, key = latest_image()
    if args.image is not None:
        image, key = args.image.resolve(), ""
    found, meta = ensure(image, key, args.out, timeout=args.timeout, settle=args.settle, force=args.force)
    print(json.dumps({**meta, **found}, indent=2))
    print(
        f"read MiB {found['bytes_read'] / 2**20:.1f}, written MiB {found['bytes_written'] / 2**20:.1f}, "
        f"replica needs {math.ceil(found['max_offset_end'] / 2**20)} MiB"
    )


if __name__ == "__main__":
    main()
