"""``python -m appliance.upgrade apply``: what the api's transient unit runs (see apply.py).

The outcome is in /var/lib/arcvsa/upgrade/state.json whatever happens; the exit code is 0 only for an
upgrade that is done.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from appliance.control.errors import ControlError
from appliance.upgrade import release
from appliance.upgrade.apply import Paths, Upgrade
from appliance.upgrade.errors import BundleRefused, UpgradeError, UpgradeFailed


def kept(root: Path) -> set[str]:
    """The running release and the newest one older than it (what a rollback would go back to)."""
    running = release.current(root)
    if running is None:
        return {m.version for m in release.installed(root)}
    older = [m.version for m in release.installed(root) if m.release < running.release]
    return {running.version, *older[:1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m appliance.upgrade")
    parser.add_argument("action", choices=["apply"])
    parser.parse_args(argv)
    upgrade = Upgrade(Paths())
    try:
        new = upgrade.apply()
    except UpgradeFailed as err:
        print(f"upgrade rolled back: {err}", file=sys.stderr)
        return 1
    except BundleRefused as err:
        upgrade.note("refused", error=str(err), code=err.code)
        print(f"upgrade refused: {err}", file=sys.stderr)
        return 1
    except (UpgradeError, ControlError, OSError) as err:
        # Before the switch (unpacking, the import check): the old release never stopped serving.
        upgrade.note("failed", error=str(err))
        release.prune(upgrade.paths.root, kept(upgrade.paths.root))
        print(f"upgrade failed: {err}", file=sys.stderr)
        return 1
    print(f"upgraded to {new.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
