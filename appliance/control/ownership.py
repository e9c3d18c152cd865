"""The api's folder (/var/lib/arcvsa) is the api's: every file and folder in it owned as the folder is.

Root's processes give what they make there to the api as they make it (files.owned_like_folder). This
reconciler gives back what something else left root's: an upgrader of an older release (which ran the
api as root) writing its state after the api it started, or an edit in a root shell. It never follows a
link and never changes a mode; a folder of root's (a developer's machine) is left as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

from appliance.control.files import folder_owner


def reconcile(folder: Path) -> list[str]:
    """Give what is not the folder owner's back to it; what was given, each with its former owner."""
    owner = folder_owner(folder)
    if owner is None:
        return []
    given = []
    # fwalk holds each folder open and works on names relative to it, never into a link: a folder the
    # api swaps for a link while the walk is under way leads nowhere outside.
    for parent, folders, files, fd in os.fwalk(folder):
        for name in (*folders, *files):
            try:
                found = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if (found.st_uid, found.st_gid) == owner:
                    continue
                os.chown(name, *owner, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:  # removed since the listing (SQLite's journals come and go)
                continue
            given.append(
                f"{Path(parent, name).relative_to(folder)} given to the api (was {found.st_uid}:{found.st_gid})"
            )
    return given
