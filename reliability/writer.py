"""The NFS writer (tools/nfswriter, C against libnfs): built here, run as a child, stopped by signal."""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from process import run
from reliability.ledger import Write, read_ledger

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "tools" / "nfswriter" / "nfswriter.c"
BINARY = REPO / "build" / "nfswriter" / "nfswriter"
# One block per write: a 16 KiB block at a 16 KiB-aligned offset is one record of the dataset
# (recordsize=16K, the stateless-linked profile). A transaction group writes it whole or not at all,
# but the ZIL may split a write across log blocks: replay can leave part of one nobody acknowledged.
BLOCK_SIZE = 16384
MASK64 = (1 << 64) - 1
BLOCKS = 512  # an 8 MiB file per writer: small enough to read back every cycle
TIMEOUT_MS = 60_000  # the NFS timeout: a write or COMMIT unanswered for this long is an error


def build() -> Path:
    """Compile the writer when its binary is missing or older than its source; returns the binary."""
    if BINARY.is_file() and BINARY.stat().st_mtime >= SOURCE.stat().st_mtime:
        return BINARY
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise RuntimeError("no C compiler (gcc) for tools/nfswriter: make setup")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    argv = [compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-o", str(BINARY), str(SOURCE)]
    run([*argv, "-lnfs", "-lcrypto"], timeout=120)
    return BINARY


@dataclass
class WriterSpec:
    """One writer: which export and file, which stable_how, where its log goes."""

    name: str
    url: str
    file: str
    mode: str  # "sync" (FILE_SYNC) or "unstable" (UNSTABLE + COMMIT)
    log: Path
    seed: int
    rate: int = 0  # writes per second (0: as fast as the server answers)

    def content(self, write: Write) -> bytes:
        """The bytes this writer sent in ``write`` (nfswriter.c's fill_block, regenerated)."""
        return fill_block(self.seed, write.seq, write.offset, write.length)


def _splitmix(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def fill_block(seed: int, seq: int, offset: int, size: int) -> bytes:
    """Write ``seq``'s data exactly as tools/nfswriter/nfswriter.c makes it (header, then splitmix64)."""
    state = (seed ^ (seq * 0xD1342543DE82EF95)) & MASK64
    words = []
    for _ in range(size // 8):
        state, value = _splitmix(state)
        words.append(value)
    data = bytearray(struct.pack(f"<{len(words)}Q", *words).ljust(size, b"\0"))
    header = f"arcvsa-nfswriter seq={seq:020d} offset={offset:020d}\n".encode()[:size]
    data[: len(header)] = header
    return bytes(data)


class Writer:
    """A running writer process; its log is the record of what the server acknowledged."""

    def __init__(self, spec: WriterSpec, start_seq: int, stderr: Path) -> None:
        self.spec = spec
        argv = [
            str(build()),
            "--url",
            spec.url,
            "--file",
            spec.file,
            "--log",
            str(spec.log),
            "--mode",
            spec.mode,
            "--block-size",
            str(BLOCK_SIZE),
            "--blocks",
            str(BLOCKS),
            "--seed",
            str(spec.seed),
            "--start-seq",
            str(start_seq),
            "--timeout-ms",
            str(TIMEOUT_MS),
            "--rate",
            str(spec.rate),
        ]
        spec.log.parent.mkdir(parents=True, exist_ok=True)
        with stderr.open("ab") as sink:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
            )

    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGKILL) -> int:
        """Signal the writer (SIGKILL: every acknowledged record is already fsynced) and reap it."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(self.proc.pid, signal.SIGKILL)
            return self.proc.wait(timeout=30)


def wait_acked(writers: list[Writer], count_acked: dict[str, int], timeout: float) -> None:
    """Until every writer's log has more acknowledged records than ``count_acked`` says it had."""
    deadline = time.monotonic() + timeout
    while True:
        behind = [
            w.spec.name for w in writers if len(read_ledger(w.spec.log).acked) <= count_acked[w.spec.name]
        ]
        if not behind:
            return
        dead = [w.spec.name for w in writers if not w.alive()]
        if dead:
            raise RuntimeError(f"writers ended early: {dead} (see their logs)")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no acknowledged write within {timeout:.0f} s from {behind}")
        time.sleep(0.5)
