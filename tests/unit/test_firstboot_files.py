"""write_atomic's owner: a key file in an account's home belongs to the account, its directory too."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from appliance.firstboot.files import FileChange, write_atomic

KEYS = PurePosixPath("/home/arcvsa/.ssh/authorized_keys")


def test_owner_is_given_to_the_file_and_its_directory(tmp_path: Path) -> None:
    # the test's own ids: a chown an unprivileged test may make
    owner = (os.getuid(), os.getgid())
    assert write_atomic(tmp_path, FileChange(KEYS, b"key\n", mode=0o600, parent_mode=0o700, owner=owner))
    for path, mode in (
        (tmp_path / "home/arcvsa/.ssh/authorized_keys", 0o600),
        (tmp_path / "home/arcvsa/.ssh", 0o700),
    ):
        status = path.stat()
        assert (status.st_uid, status.st_gid, status.st_mode & 0o777) == (*owner, mode)


def test_same_content_mode_and_owner_is_not_written_again(tmp_path: Path) -> None:
    change = FileChange(KEYS, b"key\n", mode=0o600, parent_mode=0o700, owner=(os.getuid(), os.getgid()))
    write_atomic(tmp_path, change)
    assert not write_atomic(tmp_path, change)
