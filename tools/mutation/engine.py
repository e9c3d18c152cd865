"""Runs mutants: each in a forked child of one warm process, the mutated module served by an import hook."""

from __future__ import annotations

import ast
import importlib.abc
import importlib.util
import os
import select
import signal
import sys
import sysconfig
import tempfile
import time
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.mutation.operators import Site, mutate

KILLED, SURVIVED, TIMEOUT = "killed", "survived", "timeout"


class BaselineFailed(RuntimeError):
    """The tests fail on the unmutated module: no mutant can be judged."""


@dataclass(frozen=True)
class Outcome:
    site: Site
    key: str
    status: str
    seconds: float


class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `name` from the given code instead of its file; everything else imports as usual."""

    def __init__(self, name: str, path: Path, code: types.CodeType) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(self.code, module.__dict__)  # noqa: S102 - the point: run the mutated module


def module_name(path: Path, root: Path) -> str:
    """The import name of a source file: its path below the first directory on sys.path that holds it."""
    rel = path.resolve().relative_to(root)
    parts = list(rel.with_suffix("").parts)
    if parts[0] == "zfs-tuning":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _child(
    name: str, path: Path, code: types.CodeType | None, tests: Sequence[str], record: Path | None = None
) -> int:
    if code is not None:
        sys.meta_path.insert(0, _Serve(name, path, code))
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the child exits with it open
    import pytest

    args = [*tests, "-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "--timeout=60"]
    rc = int(pytest.main(args))
    if record is not None:
        record.write_text("\n".join(_foreign_modules()))
    return rc


def _foreign_modules() -> list[str]:
    """The modules loaded from the Python installation and the installed packages, in the order they were
    loaded: safe to import once in the parent, since no mutant changes them, and then each child starts
    with them warm. The order matters: a C accelerator imported before its package (asyncio's) leaves
    the package half-wired."""
    installed = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib", "stdlib")}
    out = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and any(Path(file).resolve().is_relative_to(p) for p in installed):
            out.append(name)
    return out


def warm(names: Sequence[str]) -> None:
    """Import the modules a baseline run loaded from outside the repository (what fails to import
    alone is skipped: the child imports it as before)."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: S112 - a module that needs its importer's context
            continue


def _start(
    name: str, path: Path, code: types.CodeType | None, tests: Sequence[str], record: Path | None = None
) -> int:
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        try:
            rc = _child(name, path, code, tests, record)
        except BaseException:  # any failure in the child is a test failure
            rc = 99
        os._exit(rc)
    return pid


def _wait(pids: dict[int, float], timeout: float) -> Iterator[tuple[int, int | None]]:
    """(pid, exit code or None for a timeout) for each child that has ended."""
    while True:
        now = time.monotonic()
        for pid, started in list(pids.items()):
            if now - started > timeout:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                yield pid, None
                return
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            yield pid, os.waitstatus_to_exitcode(status)
            return
        select.select([], [], [], 0.02)


def baseline(name: str, path: Path, tests: Sequence[str]) -> float:
    """Seconds the tests take on the real module (warm); raises BaselineFailed when they fail. The
    first run also tells which outside modules to import in this process before forking."""
    with tempfile.NamedTemporaryFile("r", suffix=".modules") as record:
        pid = _start(name, path, None, tests, Path(record.name))
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise BaselineFailed(f"{path}: the tests fail without any mutant: {' '.join(tests)}")
        warm(record.read().split())
    started = time.monotonic()
    pid = _start(name, path, None, tests)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        # else every mutant would count as killed
        raise BaselineFailed(
            f"{path}: the tests pass alone but fail forked from the warmed process: {' '.join(tests)}"
        )
    return time.monotonic() - started


def run(
    name: str,
    path: Path,
    tree: ast.Module,
    sites: Sequence[tuple[Site, str]],
    tests: Sequence[str],
    jobs: int,
    timeout: float,
) -> Iterator[Outcome]:
    """Each (site, key) run in a child; outcomes in the order the children end."""
    pending = list(sites)
    running: dict[int, float] = {}
    owner: dict[int, tuple[Site, str]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            site, key = pending.pop(0)
            code = compile(mutate(tree, site), str(path), "exec")
            pid = _start(name, path, code, tests)
            running[pid] = time.monotonic()
            owner[pid] = (site, key)
        for pid, rc in _wait(running, timeout):
            started = running.pop(pid)
            site, key = owner.pop(pid)
            status = TIMEOUT if rc is None else SURVIVED if rc == 0 else KILLED
            yield Outcome(site, key, status, time.monotonic() - started)
