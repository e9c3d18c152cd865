"""The host load generator: fio 3.39 and libnfs 5 from a Debian 13 root tree, run without chroot.

Debian 12's fio has no ``nfs`` engine; Debian 13's links libnfs 5 and libnbd. The tree is made with
mmdebstrap from the build machine's own Debian mirror (as the image build does; no registry host is
written anywhere) and cached under ``build/bench/fio-root`` with a ``.done`` marker holding the hash
of its inputs. fio runs through the tree's own dynamic loader and library path, not in a chroot, so
it sees the host's unix sockets (NBD exports) and files (golden data, iologs) at their real paths.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from appliance.image import sources
from appliance.image.rootfs import release_mounts
from process import ProcessAborted, ProcessFailed, ProcessTimeout, run, stream

PACKAGES = ("fio", "libnfs-utils")
# Bump when the way the tree is made changes in a way the argv does not show.
RECIPE = 1
MMDEBSTRAP_TIMEOUT = 1800.0
LOADER = "lib64/ld-linux-x86-64.so.2"
# Library directories of the tree, in the order the tree's own ld.so.cache would search them.
LIB_DIRS = (
    "usr/lib/x86_64-linux-gnu",
    "lib/x86_64-linux-gnu",
    "usr/lib/x86_64-linux-gnu/ceph",
    "usr/lib",
    "lib",
)


class ToolchainError(RuntimeError):
    """The tree could not be built or one of its tools failed to start."""


class FioError(RuntimeError):
    """fio exited non-zero or printed no JSON; the message carries its stderr."""

    def __init__(self, message: str, stderr: str) -> None:
        super().__init__(f"{message}\n{stderr.strip()}")
        self.stderr = stderr


class FioTimeout(FioError):
    """fio did not end within its timeout (it was killed)."""


def mmdebstrap_argv(source_line: str, target: Path) -> list[str]:
    """The bootstrap command; everything but ``target`` is part of the cache key."""
    return [
        "mmdebstrap",
        "--verbose",
        "--mode=root",
        "--format=directory",
        "--variant=apt",
        f"--include={','.join(PACKAGES)}",
        sources.TARGET_SUITE,
        str(target),
        source_line,
    ]


def cache_key(source_line: str) -> str:
    """Hash of everything the tree is made from (recipe, packages, mirror line)."""
    digest = hashlib.sha256(f"recipe={RECIPE}\n".encode())
    digest.update(json.dumps(mmdebstrap_argv(source_line, Path("TARGET"))[1:]).encode())
    return digest.hexdigest()


def host_source_line() -> str:
    """The mmdebstrap source line for this machine's Debian mirror (trixie, main contrib)."""
    return sources.mmdebstrap_source(sources.debian_mirror(sources.read_sources(), sources.host_codename()))


@dataclass(frozen=True)
class Toolchain:
    """A built tree; its tools are run via ``ROOT/lib64/ld-linux-x86-64.so.2 --library-path ...``."""

    root: Path

    @property
    def library_path(self) -> str:
        """The tree's library directories that exist, colon-separated."""
        return ":".join(str(self.root / d) for d in LIB_DIRS if (self.root / d).is_dir())

    def tool_argv(self, tool: str, args: list[str]) -> list[str]:
        """argv running ``ROOT/usr/bin/<tool>`` with the tree's loader and libraries."""
        return [
            str(self.root / LOADER),
            "--library-path",
            self.library_path,
            str(self.root / "usr/bin" / tool),
            *args,
        ]

    def fio_argv(self, args: list[str]) -> list[str]:
        """argv for the tree's fio."""
        return self.tool_argv("fio", args)

    def version(self) -> str:
        """``fio --version`` (e.g. ``fio-3.39``)."""
        return self._capture(self.fio_argv(["--version"])).strip()

    def engines(self) -> list[str]:
        """The I/O engines this fio was built with (``--enghelp``)."""
        out = self._capture(self.fio_argv(["--enghelp"]))
        return [line.strip() for line in out.splitlines()[1:] if line.strip()]

    def run_fio(
        self,
        jobfile: Path,
        *,
        timeout: float,
        extra: list[str] | None = None,
        abort: threading.Event | None = None,
    ) -> dict[str, Any]:
        """Run a job file and return fio's parsed JSON output; raise FioError on failure, on timeout
        or as soon as ``abort`` is set (a watcher saw the target die: no use waiting out the timeout)."""
        argv = self.fio_argv(["--output-format=json", *(extra or []), str(jobfile)])
        try:
            done = run(argv, timeout=timeout, check=False, watch=lambda: _aborted(abort))
        except ProcessAborted as err:
            raise FioError(f"fio {jobfile} was aborted", err.stderr) from None
        except ProcessTimeout as err:
            raise FioTimeout(f"fio {jobfile} timed out after {timeout:.0f} s", err.stderr) from None
        stdout, stderr = done.stdout, done.stderr
        if done.exit_code != 0:
            raise FioError(f"fio {jobfile} exited {done.exit_code}", stderr + stdout[-2000:])
        # fio may print notes ("fio: ...") before the JSON document on stdout.
        start = stdout.find("{")
        if start < 0:
            raise FioError(f"fio {jobfile} printed no JSON", stderr)
        try:
            result: dict[str, Any] = json.loads(stdout[start:])
        except json.JSONDecodeError as exc:
            raise FioError(f"fio {jobfile} printed bad JSON: {exc}", stderr) from None
        # fio can exit 0 when a job could not even start (the nfs engine's failed mount): no row
        # may hold zeros that look like a measurement
        failed = [j.get("jobname", "?") for j in result.get("jobs", []) if j.get("error")]
        moved = sum(
            int(j.get(d, {}).get("total_ios", 0)) for j in result.get("jobs", []) for d in ("read", "write")
        )
        if failed or not moved:
            why = f"jobs {', '.join(failed)} failed" if failed else "no I/O was done"
            raise FioError(f"fio {jobfile}: {why}", stderr[-2000:])
        return result

    def nfs_cp(self, src: Path, url: str, *, timeout: float = 600.0) -> None:
        """Copy a local file to a new file at an NFS URL with libnfs 5's nfs-cp (as ESXi would write it).

        libnfs creates guarded (NFS3ERR_EXIST if the name exists): copy to a new name each time.
        """
        self._capture(self.tool_argv("nfs-cp", [str(src), url]), timeout=timeout)

    def wait_writable(self, export_url: str, probe: Path, *, timeout: float = 240.0) -> float:
        """Create probe files in the export until one works; returns the seconds it took.

        ganesha answers NFS3ERR_JUKEBOX to creates during its grace period (after a start or an
        export change), and the failed create may leave the name behind: each attempt uses a new one.
        """
        probe.write_bytes(b"probe\n")
        base, _, query = export_url.partition("?")
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                self.nfs_cp(probe, f"{base.rstrip('/')}/.probe-{os.getpid()}-{attempt}?{query}", timeout=60)
                return time.monotonic() - started
            except ToolchainError:
                if time.monotonic() - started > timeout:
                    raise
            attempt += 1
            time.sleep(5)

    def nfs_ls(self, url: str, *, timeout: float = 60.0) -> str:
        """List an NFS URL with libnfs 5's nfs-ls."""
        return self._capture(self.tool_argv("nfs-ls", [url]), timeout=timeout)

    @staticmethod
    def _capture(argv: list[str], *, timeout: float = 60.0) -> str:
        try:
            return run(argv, timeout=timeout).stdout
        except ProcessTimeout:
            raise ToolchainError(f"{argv[3:]} timed out after {timeout:.0f} s") from None
        except ProcessFailed as err:
            raise ToolchainError(f"{argv[3:]} exited {err.exit_code}: {err.stderr.strip()}") from None


def _aborted(abort: threading.Event | None) -> str | None:
    """The watch of a fio run: a reason to stop it once ``abort`` is set."""
    return "aborted" if abort is not None and abort.is_set() else None


def ensure(root: Path, *, source_line: str | None = None) -> Toolchain:
    """The tree at ``root``, (re)built with mmdebstrap when missing or its inputs changed."""
    line = source_line if source_line is not None else host_source_line()
    key = cache_key(line)
    done = root.with_name(root.name + ".done")
    if done.is_file() and root.is_dir():
        marker = json.loads(done.read_text(encoding="utf-8"))
        if marker.get("key") == key:
            return Toolchain(root)
    if os.geteuid() != 0:
        raise ToolchainError("building the fio tree needs root (mmdebstrap --mode=root)")
    log = root.with_name(root.name + ".log")
    if root.exists():
        release_mounts(root, log)
        shutil.rmtree(root)
    done.unlink(missing_ok=True)
    log.unlink(missing_ok=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    stream(
        mmdebstrap_argv(line, root),
        timeout=MMDEBSTRAP_TIMEOUT,
        log=log,
        env={"LC_ALL": "C.UTF-8"},  # added to this process's environment
    )
    release_mounts(root, log)
    chain = Toolchain(root)
    marker = {"key": key, "seconds": round(time.monotonic() - started, 1), "fio": chain.version()}
    done.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    return chain


def main() -> None:
    """Build (or reuse) the tree and print fio's version and engines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path("build/bench/fio-root"))
    args = parser.parse_args()
    started = time.monotonic()
    chain = ensure(args.root.resolve())
    print(f"{chain.version()} ({time.monotonic() - started:.1f} s)")
    engines = chain.engines()
    print("engines:", " ".join(engines))
    missing = {"nfs", "nbd"} - set(engines)
    if missing:
        raise SystemExit(f"fio lacks engines: {sorted(missing)}")


if __name__ == "__main__":
    main()
