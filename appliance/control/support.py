"""What a support engineer needs from the box: tool outputs and config files, collected for a bundle.

Every item is collected on its own: a missing tool, a failing command or an unreadable file is kept as
that item's typed error and the collection goes on. Each command has its own timeout, and the pool
commands come last: a pool stalled on a failing LUN hangs ``zpool`` until the timeout, so once one
``zpool``/``zfs`` command has timed out the others are skipped (they would hang just the same) and the
logs, which tell why, are already in. Nothing here redacts: the api does that over the whole bundle
(see api.support.redact), with the secrets it knows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from appliance.control import iscsi, metrics, modparams
from appliance.control.errors import CommandTimeout, ControlError, ToolMissing
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.nfs import ganesha, knfsd

COMMAND_TIMEOUT = 20.0
JOURNAL_LINES = 5000
MAX_BYTES = 8 << 20  # per item: zpool events -v of a long-lived pool, a chatty journal
DBGMSG = "/proc/spl/kstat/zfs/dbgmsg"
MODPROBE_D = "/etc/modprobe.d"
# The systemd units whose journal is collected (appliance/systemd, an upgrade's transient unit, the
# image's NFS servers, LIO, and the clock and log forwarding the api's alerts and settings stand on).
UNITS = {
    "arcvsa-api": "arcvsa-api.service",
    "arcvsa-firstboot": "arcvsa-firstboot.service",
    "arcvsa-metrics": "arcvsa-metrics.service",
    "arcvsa-upgrade": "arcvsa-upgrade.service",
    "chrony": "chrony.service",
    "rsyslog": "rsyslog.service",
    "nfs-ganesha": "nfs-ganesha.service",
    "nfs-server": "nfs-server.service",
    "rtslib-fb-targetctl": "rtslib-fb-targetctl.service",
    "zfs-import": "zfs-import-cache.service",
    "zfs-zed": "zfs-zed.service",
}
PACKAGES = ("zfsutils-linux", "zfs-dkms", "nfs-ganesha", "nfs-kernel-server", "targetcli-fb", "python3")
Status = Literal["ok", "missing", "failed", "timeout", "skipped"]


@dataclass(frozen=True)
class Command:
    """A tool to run; its output becomes the bundle file ``name``."""

    name: str
    argv: tuple[str, ...]
    ok_codes: tuple[int, ...] = (0,)
    pool: bool = False  # touches the pools: hangs with a stalled one


@dataclass(frozen=True)
class File:
    """A file to copy into the bundle as ``name``."""

    name: str
    path: str


@dataclass(frozen=True)
class Folder:
    """Every file of a folder, copied under the bundle folder ``name``."""

    name: str
    path: str


@dataclass(frozen=True)
class Listing:
    """Every file of a folder as one ``name value`` line each, in the bundle file ``name``: a kernel
    module's parameters are hundreds of one-line files, read better side by side than as hundreds of
    bundle files."""

    name: str
    path: str


Item = Command | File | Folder | Listing


@dataclass(frozen=True)
class Piece:
    """One collected item: its text (None when there is none) and how its collection went."""

    name: str
    source: str
    status: Status
    text: str | None = None
    error_type: str | None = None
    error: str | None = None
    exit_code: int | None = None
    truncated: bool = False
    seconds: float = 0.0


def journal(unit: str, lines: int) -> tuple[str, ...]:
    """The last ``lines`` lines of a unit's journal, ISO timestamps, no pager."""
    return ("journalctl", "-u", unit, "--no-pager", "-n", str(lines), "-o", "short-iso")


def items(journal_lines: int = JOURNAL_LINES) -> list[Item]:
    """What is collected, in order: versions, configs, logs, then the pool commands."""
    dpkg = ("dpkg-query", "-W", "-f=${Package}\\t${Version}\\t${db:Status-Abbrev}\\n", *PACKAGES)
    return [
        Command("versions/uname.txt", ("uname", "-a")),
        Command("versions/zfs-version.txt", ("zfs", "version")),
        # exit 1 when one of the packages is not installed; the others are still listed
        Command("versions/packages.txt", dpkg, ok_codes=(0, 1)),
        File("zfs/arcstats.txt", metrics.ARCSTATS),
        File("zfs/dbgmsg.txt", DBGMSG),
        # the values in effect now and what modprobe sets at load (the tuning plan's, the device wait's)
        Listing("zfs/module-parameters.txt", modparams.SYSFS),
        Folder("zfs/modprobe.d", MODPROBE_D),
        File("nfs/ganesha/ganesha.conf", ganesha.MAIN_CONF),
        Folder("nfs/ganesha/exports.d", ganesha.EXPORTS_DIR),
        File("nfs/ganesha/systemd-drop-in.conf", ganesha.DROP_IN),
        File("nfs/knfsd/exports", "/etc/exports"),
        Folder("nfs/knfsd/exports.d", knfsd.EXPORTS_DIR),
        File("nfs/knfsd/nfs.conf.d-arcvsa.conf", knfsd.NFS_CONF),
        File("nfs/knfsd/proc-fs-nfs-exports.txt", "/proc/fs/nfs/exports"),
        File("iscsi/saveconfig.json", iscsi.SAVECONFIG),
        *(Command(f"logs/{name}.journal.txt", journal(unit, journal_lines)) for name, unit in UNITS.items()),
        # the kernel's view of the LUNs: I/O errors and resets of a failing SAN show here first
        Command(
            "logs/kernel.journal.txt",
            ("journalctl", "-k", "--no-pager", "-n", str(journal_lines), "-o", "short-iso"),
        ),
        Command("zfs/zpool-status.txt", ("zpool", "status", "-v"), pool=True),
        Command("zfs/zpool-list.txt", ("zpool", "list", "-v"), pool=True),
        Command("zfs/zpool-events.txt", ("zpool", "events", "-v"), pool=True),
        Command("zfs/zpool-history.txt", ("zpool", "history", "-il"), pool=True),
        Command(
            "zfs/zfs-list.txt",
            ("zfs", "list", "-t", "all", "-o", "name,used,avail,refer,mountpoint"),
            pool=True,
        ),
        Command("zfs/zpool-get.txt", ("zpool", "get", "all"), pool=True),
    ]


def _cut(text: str) -> tuple[str, bool]:
    """At most MAX_BYTES of UTF-8, the end kept (the newest lines of logs and events are the useful ones)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_BYTES:
        return text, False
    return data[-MAX_BYTES:].decode("utf-8", errors="ignore"), True


def _error(name: str, source: str, status: Status, err: BaseException, start: float) -> Piece:
    return Piece(
        name=name,
        source=source,
        status=status,
        error_type=type(err).__name__,
        error=str(err),
        exit_code=getattr(err, "exit_code", None),
        seconds=round(time.monotonic() - start, 3),
    )


def _run(gw: Gateway, item: Command, timeout: float) -> Piece:
    source = "command: " + " ".join(item.argv)
    start = time.monotonic()
    try:
        result = gw.query(list(item.argv), timeout=timeout, ok_codes=item.ok_codes)
    except CommandTimeout as err:
        return _error(item.name, source, "timeout", err, start)
    except ControlError as err:  # ToolMissing, CommandFailed, ...: the item's outcome, not the bundle's
        status: Status = "missing" if isinstance(err, ToolMissing) else "failed"
        return _error(item.name, source, status, err, start)
    text, truncated = _cut(result.stdout + (f"\n--- stderr ---\n{result.stderr}" if result.stderr else ""))
    return Piece(
        name=item.name,
        source=source,
        status="ok",
        text=text,
        exit_code=result.exit_code,
        truncated=truncated,
        seconds=round(time.monotonic() - start, 3),
    )


def _read(files: Files, name: str, path: str) -> Piece:
    source = f"file: {path}"
    start = time.monotonic()
    try:
        text = files.read(path)
    except (OSError, UnicodeDecodeError) as err:
        return _error(name, source, "failed", err, start)
    if text is None:
        return Piece(
            name=name, source=source, status="missing", error_type="FileNotFoundError", error="no such file"
        )
    cut, truncated = _cut(text)
    return Piece(name=name, source=source, status="ok", text=cut, truncated=truncated)


def _folder(files: Files, item: Folder) -> Iterator[Piece]:
    try:
        listed = files.listdir(item.path)
    except OSError as err:
        yield _error(item.name, f"folder: {item.path}", "failed", err, time.monotonic())
        return
    if not listed:
        yield Piece(
            name=f"{item.name}/", source=f"folder: {item.path}", status="missing", error="empty or absent"
        )
    for entry in listed:
        yield _read(files, f"{item.name}/{entry}", f"{item.path.rstrip('/')}/{entry}")


def _listing(files: Files, item: Listing) -> Piece:
    source = f"folder: {item.path}"
    start = time.monotonic()
    try:
        names = files.listdir(item.path)
    except OSError as err:
        return _error(item.name, source, "failed", err, start)
    if not names:
        return Piece(name=item.name, source=source, status="missing", error="empty or absent")
    lines = []
    for entry in names:
        try:
            value = files.read(f"{item.path.rstrip('/')}/{entry}")
        except (OSError, UnicodeDecodeError) as err:  # a write-only parameter: say so, read the others
            value = f"<unreadable: {type(err).__name__}>"
        lines.append(f"{entry} {'<gone>' if value is None else value.strip()}\n")
    text, truncated = _cut("".join(lines))
    return Piece(
        name=item.name,
        source=source,
        status="ok",
        text=text,
        truncated=truncated,
        seconds=round(time.monotonic() - start, 3),
    )


def collect(
    gw: Gateway, files: Files, *, timeout: float = COMMAND_TIMEOUT, journal_lines: int = JOURNAL_LINES
) -> list[Piece]:
    """Every item of :func:`items`, each with its outcome; never raises for a tool's or a file's fault."""
    out: list[Piece] = []
    stalled: str | None = None
    for item in items(journal_lines):
        if isinstance(item, Command):
            if item.pool and stalled is not None:
                out.append(
                    Piece(
                        name=item.name,
                        source="command: " + " ".join(item.argv),
                        status="skipped",
                        error_type="PoolStalled",
                        error=f"not run: {stalled} timed out before (a pool is probably stalled)",
                    )
                )
                continue
            piece = _run(gw, item, timeout)
            if item.pool and piece.status == "timeout":
                stalled = " ".join(item.argv)
            out.append(piece)
        elif isinstance(item, File):
            out.append(_read(files, item.name, item.path))
        elif isinstance(item, Listing):
            out.append(_listing(files, item))
        else:
            out.extend(_folder(files, item))
    return out


def lio_secrets(saveconfig: str | None) -> list[str]:
    """The CHAP secrets in LIO's saved config (targets' and ACLs' one-way and mutual): the values the
    bundle must never show, wherever they turn up."""
    if not saveconfig:
        return []
    try:
        data = json.loads(saveconfig)
    except ValueError:
        return []
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and value and "password" in str(key).lower():
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return found
