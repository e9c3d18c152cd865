"""The text above the console's login prompt: product, version, web address and first boot's outcome.

VMware's own appliances greet whoever opens the VM console this way, and it is where an admin looks
when a deploy went wrong. The text is an agetty issue file, /etc/issue.d/arcvsa.issue: agetty prints
/etc/issue and then /etc/issue.d/*.issue on tty1 and on the serial console alike.

The address is not written into the file. Its `\\4` escape makes agetty print the IPv4 address the
kernel has when the prompt is drawn, and agetty listens on netlink and draws the prompt again when an
address comes, goes or changes (a DHCP lease, a static address configured after the getty started).
So nothing has to follow the network: systemd-networkd has no hook of its own, and a dispatcher
daemon would be one more package to keep for one line of text. With one NIC, `\\4` names the address
of the first interface that is up and has one (until then agetty falls back to the address the host
name resolves to, and draws the prompt again when the NIC's comes); with a storage network it is
`\\4{NIC}` for the management NIC, since the storage NIC's static address may come first and never
answers the web interface. The storage address is shown on a line of its own.

What changes only from one boot to the next (the version after an upgrade, first boot's outcome, the
FQDN) is rendered by first boot and again by arcvsa-console.service at every boot before the gettys
start; `agetty --reload` has any getty already running draw the new text.

Nothing secret is ever shown: first boot's report carries no password (its messages never repeat
one), and every value is escaped so that agetty prints it as it is and a terminal obeys none of it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import process
from appliance.firstboot.files import FileChange, read_text, write_atomic
from appliance.firstboot.plan import APPLIANCE_CONFIG
from appliance.firstboot.runner import Runner
from appliance.firstboot.status import STATUS_FILE
from appliance.upgrade import release

ISSUE_FILE = PurePosixPath("/etc/issue.d/arcvsa.issue")
PRODUCT = "arcvsa"
TAGLINE = "virtual storage appliance"
RELOAD_TIMEOUT = 15.0
# Where the console's text hangs: the column the values start at.
INDENT = " " * 18


class ReportedError(BaseModel):
    """One entry of the report's errors: a refused property, or why first boot failed."""

    model_config = ConfigDict(extra="ignore")

    key: str | None = Field(default=None, description="The refused property's key; None when it failed")
    label: str | None = Field(default=None, description="The property's label in the deploy wizard")
    message: str = Field(description="What is wrong, never the value of a password")


class FirstBootReport(BaseModel):
    """What the console needs of /var/lib/arcvsa/firstboot.json (appliance.firstboot.status)."""

    model_config = ConfigDict(extra="ignore")

    status: str = Field(description="applied, refused or failed")
    errors: list[ReportedError] = Field(
        default_factory=list, description="Refused properties, or the failure"
    )
    warnings: list[str] = Field(default_factory=list, description="What was applied differently than asked")


def shown(text: str) -> str:
    """``text`` as agetty prints it literally: its backslashes doubled, control characters as '?'."""
    visible = "".join("?" if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 else c for c in text)
    return visible.replace("\\", "\\\\")


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _outcome(report: FirstBootReport | None) -> list[str]:
    """First boot's outcome, one line and then one per refused property, failure or warning."""
    if report is None:
        return ["not finished yet"]
    nothing = "The network is on DHCP and no password is set."
    if report.status == "refused":
        return [
            f"REFUSED {_plural(len(report.errors), 'vApp property', 'vApp properties')}, so nothing was applied:",
            *(f"- {shown(e.key or '?')} ({shown(e.label or '')}): {shown(e.message)}" for e in report.errors),
            f"{nothing} Power the VM off, correct the",
            "properties in Edit Settings > vApp Options, and power it on.",
        ]
    if report.status == "failed":
        return [
            "FAILED, so nothing was applied:",
            *(f"- {shown(e.message)}" for e in report.errors),
            f"{nothing} journalctl -u arcvsa-firstboot",
            "has the details.",
        ]
    if report.warnings:
        return [
            f"{shown(report.status)}, with {_plural(len(report.warnings), 'warning', 'warnings')}:",
            *(f"- {shown(w)}" for w in report.warnings),
        ]
    return [shown(report.status)]


def render_issue(
    version: str, fqdn: str, report: FirstBootReport | None, management: str = "", storage: str = ""
) -> str:
    """The issue file's text; the address is agetty's `\\4` (of the NIC ``management`` when named),
    ``storage`` the storage network's address, every other value escaped."""
    addresses = [f"https://\\4{{{shown(management)}}}/" if management else "https://\\4/"]
    if fqdn:
        addresses.append(f"https://{shown(fqdn)}/")
    outcome = _outcome(report)
    lines = [
        f"{PRODUCT} {shown(version)} - {TAGLINE}",
        "",
        f"  {'Web interface':<16}{addresses[0]}",
        *(INDENT + a for a in addresses[1:]),
        *([f"  {'Storage (NFS)':<16}{shown(storage)}"] if storage else []),
        f"  {'First boot':<16}{outcome[0]}",
        *(INDENT + line for line in outcome[1:]),
        "",
    ]
    return "\n".join(lines) + "\n"


def read_report(root: Path) -> FirstBootReport | None:
    """First boot's report; None before it has written one, a failure when it cannot be read."""
    try:
        text = read_text(root, STATUS_FILE)
        if text is None:
            return None
        return FirstBootReport.model_validate_json(text)
    except (OSError, ValidationError):  # the console still shows the product and its address
        return FirstBootReport(
            status="failed", errors=[ReportedError(message=f"{STATUS_FILE} is unreadable")]
        )


def _config(root: Path) -> dict[str, object]:
    try:
        config = json.loads(read_text(root, APPLIANCE_CONFIG) or "{}")
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def read_fqdn(root: Path) -> str:
    """The FQDN first boot applied ('' when none was given, or before first boot)."""
    fqdn = _config(root).get("fqdn")
    return fqdn if isinstance(fqdn, str) else ""


def read_networks(root: Path) -> tuple[str, str]:
    """The management NIC's name and the storage network's address, as first boot configured them
    ('' for each it did not: one NIC, no storage network)."""
    config = _config(root)
    storage = config.get("storage_network")
    management = config.get("management_interface")
    address = storage.get("address") if isinstance(storage, dict) else None
    return (
        management if isinstance(management, str) else "",
        address if isinstance(address, str) else "",
    )


def running_version() -> str:
    """The release this code was installed as (its RELEASE.json), else the package's version."""
    # .../releases/<version>/lib/appliance/firstboot/console.py on the appliance
    installed = release.read(Path(__file__).resolve().parents[3])
    if installed is not None:
        return installed.version
    try:
        return metadata.version("arcvsa")
    except metadata.PackageNotFoundError:
        return "unknown"


def refresh(root: Path, runner: Runner, *, version: str, live: bool) -> bool:
    """Write the issue file for what first boot left under ``root``; True when its text changed.

    ``live``: have the running gettys draw it again (a getty that cannot be told keeps the old text
    until its next prompt; that is no reason to fail a boot).
    """
    text = render_issue(version, read_fqdn(root), read_report(root), *read_networks(root))
    changed = write_atomic(root, FileChange(ISSUE_FILE, text.encode(), mode=0o644, parent_mode=0o755))
    if changed and live:
        with contextlib.suppress(process.ProcessError, OSError):
            runner(["agetty", "--reload"], timeout=RELOAD_TIMEOUT)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m appliance.firstboot.console`: what arcvsa-console.service runs at every boot."""
    parser = argparse.ArgumentParser(prog="python -m appliance.firstboot.console", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("/"), help="root of the file tree")
    args = parser.parse_args(argv)
    refresh(args.root, process.run, version=running_version(), live=args.root == Path("/"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
