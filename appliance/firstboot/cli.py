"""`python -m appliance.firstboot`: what the arcvsa-firstboot.service unit runs.

Exit codes: 0 applied or already done, 2 properties refused, 1 any other failure. Either way a
status report is written, the outcome printed (the unit sends it to the console and journal) and the
console's text above the login prompt rendered from the report (appliance.firstboot.console).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path

import process
from appliance.firstboot import console
from appliance.firstboot.errors import ConfigInvalid, FirstBootError
from appliance.firstboot.files import FileChange, write_atomic
from appliance.firstboot.service import run_firstboot
from appliance.firstboot.source import DEFAULT_CDROMS
from appliance.firstboot.status import STATUS_FILE, error_report, outcome_report, render_report


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m appliance.firstboot", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("/"), help="root of the file tree to configure")
    parser.add_argument(
        "--cdrom",
        type=Path,
        action="append",
        help="CD-ROM device or ISO with ovf-env.xml (repeatable)",
    )
    parser.add_argument("--no-live", action="store_true", help="only write files (no `hostname` call)")
    return parser


def _console(root: Path, live: bool) -> None:
    """The console's text for the report just written (arcvsa-console.service renders it at later boots)."""
    console.refresh(root, process.run, version=console.running_version(), live=live)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args = _parser().parse_args(argv)
    live = not args.no_live and args.root == Path("/")
    now = dt.datetime.now(dt.UTC)
    try:
        outcome = run_firstboot(
            args.root,
            process.run,
            cdroms=tuple(args.cdrom or DEFAULT_CDROMS),
            live=live,
            now=now,
        )
    except FirstBootError as exc:
        print(f"arcvsa first boot: {exc}", file=sys.stderr)
        print("arcvsa first boot: nothing applied; the network stays on DHCP", file=sys.stderr)
        write_atomic(args.root, FileChange(STATUS_FILE, render_report(error_report(exc, now))))
        _console(args.root, live)
        return 2 if isinstance(exc, ConfigInvalid) else 1
    if outcome.status == "skipped":
        print("arcvsa first boot: already done")
        return 0
    write_atomic(args.root, FileChange(STATUS_FILE, render_report(outcome_report(outcome, now))))
    _console(args.root, live)
    print(f"arcvsa first boot: applied from {outcome.origin} ({outcome.transport})")
    for warning in outcome.warnings:
        print(f"arcvsa first boot: warning: {warning}", file=sys.stderr)
    return 0
