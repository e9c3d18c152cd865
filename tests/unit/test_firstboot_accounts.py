"""First boot's account steps as text transforms: root stays locked, arcvsa gets the password."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

from appliance.firstboot import accounts
from appliance.firstboot.errors import ApplyFailed

SHADOW = "root:{root}:20000:0:99999:7:::\ndaemon:*:20000:0:99999:7:::\narcvsa:!:20000:0:99999:7:::\n"
PASSWD = (
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "arcvsa:x:1000:1000:arcvsa administrator:/home/arcvsa:/bin/bash\n"
)
HASH = "$6$salt$hash"


@pytest.mark.parametrize("locked", ["!", "*", "!" + HASH, "*LK*"])
def test_a_locked_root_is_left_as_it_is(locked: str) -> None:
    shadow = SHADOW.format(root=locked)
    assert accounts.with_password_locked(shadow, "root") == shadow


def test_a_root_with_a_hash_is_locked_and_keeps_its_other_fields() -> None:
    locked = accounts.with_password_locked(SHADOW.format(root=HASH), "root")
    assert locked == SHADOW.format(root="!" + HASH)


def test_a_root_with_no_password_at_all_is_locked() -> None:
    assert accounts.with_password_locked(SHADOW.format(root=""), "root") == SHADOW.format(root="!")


def test_locking_an_absent_account_changes_nothing() -> None:
    shadow = SHADOW.format(root="*")
    assert accounts.with_password_locked(shadow, "nobody") == shadow


def test_the_admin_account_gets_the_hash_to_change_at_first_login() -> None:
    shadow = accounts.with_shadow_hash(
        SHADOW.format(root="*"), accounts.ADMIN_ACCOUNT, HASH, accounts.CHANGE_AT_FIRST_LOGIN
    )
    assert shadow.splitlines() == [
        "root:*:20000:0:99999:7:::",
        "daemon:*:20000:0:99999:7:::",
        f"arcvsa:{HASH}:0:0:99999:7:::",
    ]


def test_a_shadow_without_the_admin_account_is_refused() -> None:
    shadow = "root:*:20000:0:99999:7:::\n"
    with pytest.raises(ApplyFailed, match=r"the account 'arcvsa' has no entry in /etc/shadow"):
        accounts.with_shadow_hash(shadow, accounts.ADMIN_ACCOUNT, HASH, accounts.CHANGE_AT_FIRST_LOGIN)


def test_the_admin_accounts_key_file_is_in_its_home_from_passwd() -> None:
    account = accounts.passwd_account(PASSWD, accounts.ADMIN_ACCOUNT)
    assert (account.uid, account.gid) == (1000, 1000)
    assert account.authorized_keys == PurePosixPath("/home/arcvsa/.ssh/authorized_keys")


def test_a_passwd_without_the_admin_account_is_refused() -> None:
    with pytest.raises(ApplyFailed, match=r"the account 'arcvsa' has no entry in /etc/passwd"):
        accounts.passwd_account(PASSWD.replace("arcvsa:", "other:"), accounts.ADMIN_ACCOUNT)


@pytest.mark.parametrize(
    "entry",
    [
        "arcvsa:x:1000:1000:arcvsa administrator:/home/arcvsa",  # a field short
        "arcvsa:x:one:1000:arcvsa administrator:/home/arcvsa:/bin/bash",
        "arcvsa:x:1000:1000:arcvsa administrator:home/arcvsa:/bin/bash",
        "arcvsa:x:1000:1000:arcvsa administrator:/home/../root:/bin/bash",
    ],
)
def test_a_malformed_passwd_entry_is_refused(entry: str) -> None:
    with pytest.raises(ApplyFailed, match=r"the account 'arcvsa' has"):
        accounts.passwd_account(entry + "\n", accounts.ADMIN_ACCOUNT)
