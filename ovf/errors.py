"""Typed errors of the ovf package: callers tell a bad descriptor from a failed tool by type."""

from __future__ import annotations

from collections.abc import Sequence


class OvfError(Exception):
    """Base of every error raised by the ovf package."""


class DescriptorInvalid(OvfError):
    """An OVF envelope breaks a DMTF rule we rely on; `problems` lists every rule broken."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"OVF descriptor invalid ({len(self.problems)} problem(s)):\n{lines}")


class CommandFailed(OvfError):
    """An external tool (qemu-img) exited non-zero or timed out."""

    def __init__(self, argv: Sequence[str], returncode: int | None, stderr: str) -> None:
        self.argv = tuple(argv)
        self.returncode = returncode
        self.stderr = stderr
        status = "timed out" if returncode is None else f"exited {returncode}"
        super().__init__(f"{argv[0]} {status}: {' '.join(argv)}\n{stderr.strip()}")


class PackageInvalid(OvfError):
    """An OVA breaks the packaging rules (.ovf first, manifest digests matching)."""
