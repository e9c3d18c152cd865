"""Typed errors of the control package: caller faults apart from system faults.

The api maps each class to an HTTP status in one table; nothing here knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence

STDERR_TAIL = 2000


class ControlError(Exception):
    """Base of every error this package raises."""


class InvalidRequest(ControlError):
    """The caller asked for something invalid (bad name, forbidden setting); nothing was changed."""


class InvalidName(InvalidRequest):
    """A pool, dataset, IQN, address or device name failed its strict pattern."""


class Refused(InvalidRequest):
    """A request that is well formed but unsafe (sync=disabled, a disk holding data without force)."""


class Conflict(ControlError):
    """The object exists already or is in use."""


class AlreadyExists(Conflict):
    """A pool, dataset, export or target of that name exists."""


class DeviceInUse(Conflict):
    """A device belongs to a pool, holds a file system or is mounted."""


class NotFound(ControlError):
    """No such pool, dataset, device, export or target."""


class SystemFault(ControlError):
    """A tool failed in a way the caller cannot fix by changing the request."""


class ServiceDown(SystemFault):
    """A daemon the request needs (e.g. nfs-ganesha on DBus) is not running."""


class DeviceVanished(SystemFault):
    """zpool create's, add's or replace's ENOENT or ENXIO: no pool can be missing there, a new partition's
    link or node was (udev re-making it as the module opened it, as when udev works through a burst of
    block events). pools retries once after udev settles: the caller sees the second try's."""

    def __init__(self, line: str) -> None:
        self.line = line  # zpool's own words
        super().__init__(
            f"{line}: a device went away as the pool took it (udev re-making its new partition); its disks"
            " now hold partitions, so check them and try again with force"
        )


class ToolMissing(SystemFault):
    """The program is not installed here (e.g. zpool on a host that is not an appliance)."""


class CommandFailed(SystemFault):
    """A command exited non-zero; carries argv, exit code and the tail of stderr."""

    def __init__(self, argv: Sequence[str], exit_code: int, stderr: str) -> None:
        self.argv = list(argv)
        self.exit_code = exit_code
        self.stderr = stderr[-STDERR_TAIL:]
        # The message reaches users (api detail, web): the program and its own words, not the argv list.
        super().__init__(f"{self.argv[0]} failed (exit {exit_code}): {self.stderr.strip()}")


class CommandTimeout(SystemFault):
    """A command overran its timeout and was killed with its process group."""

    def __init__(self, argv: Sequence[str], timeout: float, stderr: str) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self.exit_code: int | None = None
        self.stderr = stderr[-STDERR_TAIL:]
        super().__init__(f"{self.argv} killed after {timeout}s: {self.stderr.strip()}")


class BadOutput(SystemFault):
    """A tool printed something its parser does not understand (e.g. a new JSON output_version)."""
