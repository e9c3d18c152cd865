"""ZFS module parameters: strict names, only changed values written live, one modprobe.d file parsed back.

The files are real files below a temporary root (LocalFiles), sysfs included: a parameter file holds
the value the module has in effect, as the kernel's does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance.control import modparams
from appliance.control.errors import BadOutput, InvalidName, NotFound, Refused, SystemFault
from appliance.control.files import LocalFiles

PREFIXES = ("zfs", "l2arc", "zil", "spa", "metaslab", "zio", "dbuf", "vdev")
HOSTILE = (";", "$", "@", " ", "/", ".", "'")


# Where the kernel and modprobe look: spelled out, so a changed constant fails here.
MODPROBE = "/etc/modprobe.d/zfs-arcvsa.conf"
DEVICES = "/etc/modprobe.d/zfs-arcvsa-devices.conf"


def sysfs(name: str) -> str:
    return f"/sys/module/zfs/parameters/{name}"


@pytest.fixture
def files(tmp_path: Path) -> LocalFiles:
    root = LocalFiles(tmp_path)
    for name, value in {"zfs_arc_max": 0, "zfs_txg_timeout": 5, "zfs_vdev_open_timeout_ms": 1000}.items():
        root.write(sysfs(name), f"{value}\n")
    return root


@pytest.mark.parametrize("prefix", PREFIXES)
def test_each_parameter_family_is_a_name(prefix: str) -> None:
    assert modparams.NAME.fullmatch(f"{prefix}_x")


@pytest.mark.parametrize(
    "good",
    ["zfs_" + "a" * 64, "zfs_a", "zfs_9", "zfs__", "l2arc_write_max", "zfs_arc_max", "vdev_open_timeout"],
)
def test_parameter_names(good: str) -> None:
    assert modparams.NAME.fullmatch(good)


@pytest.mark.parametrize(
    "bad",
    [
        "zfs_" + "a" * 65,  # one more than the longest
        "zfs_",  # nothing after the family
        "zfs",
        "arc_max",  # not a zfs family
        "zfsx_arc",
        "xzfs_arc",
        "ZFS_arc",
        "zfs_ARC",
        "zfs-arc",
        *[f"zfs_{c}arc" for c in HOSTILE],
        *[f"zfs_a{c}rc" for c in HOSTILE],
        *[f"zfs_arc{c}" for c in HOSTILE],
    ],
)
def test_names_that_are_not_parameters(bad: str) -> None:
    assert not modparams.NAME.fullmatch(bad)


def test_a_bad_name_is_refused_before_anything_is_written(files: LocalFiles) -> None:
    before = files.read(sysfs("zfs_txg_timeout"))
    with pytest.raises(InvalidName, match="not a zfs module parameter name: 'arc_max'"):
        modparams.hold(files, {"zfs_txg_timeout": 7, "arc_max": 1})
    assert files.read(sysfs("zfs_txg_timeout")) == before
    assert files.read(sysfs("zfs_vdev_open_timeout_ms")) == "1000\n"
    assert files.read(MODPROBE) is None and files.read(DEVICES) is None


@pytest.mark.parametrize(
    ("plan", "said"),
    [
        ({"zil_replay_disable": 0}, "zil_replay_disable is not set by arcvsa"),
        ({"zfs_nocacheflush": 1}, "zfs_nocacheflush is not set by arcvsa"),
        ({"zil_nocacheflush": 1}, "zil_nocacheflush is not set by arcvsa"),
        ({"zfs_txg_timeout": -1}, "zfs_txg_timeout: -1 is not a whole number"),
        ({"zfs_txg_timeout": 1 << 63}, "is not a whole number from 0 to 9223372036854775807"),
        ({"zfs_txg_timeout": "10"}, "zfs_txg_timeout: '10' is not a whole number"),  # a row stored as text
        ({"zfs_txg_timeout": True}, "zfs_txg_timeout: True is not a whole number"),
    ],
)
def test_a_plan_read_back_from_the_database_is_checked_as_the_api_checks_it(
    files: LocalFiles, plan: dict[str, object], said: str
) -> None:
    """The control service holds what it reads from the api's database: a row written past the api's
    checks is refused before anything is written."""
    before = {name: files.read(sysfs(name)) for name in ("zfs_txg_timeout", "zfs_arc_max")}
    with pytest.raises(Refused, match=said):
        modparams.hold(files, {"zfs_arc_max": 1 << 30, **plan})  # type: ignore[dict-item]
    assert {name: files.read(sysfs(name)) for name in before} == before
    assert files.read(MODPROBE) is None


def test_the_largest_value_a_parameter_takes_is_accepted() -> None:
    modparams.check({"zfs_arc_max": (1 << 63) - 1, "zfs_txg_timeout": 0})


def test_only_changed_values_are_written_live(files: LocalFiles) -> None:
    held = modparams.hold(files, {"zfs_arc_max": 0, "zfs_txg_timeout": 10})
    assert held.live == [("zfs_txg_timeout", 5, 10), ("zfs_vdev_open_timeout_ms", 1000, 10_000)]
    assert files.read(sysfs("zfs_txg_timeout")) == "10\n" and files.read(sysfs("zfs_arc_max")) == "0\n"
    assert held.files == [MODPROBE, DEVICES]
    assert files.read(MODPROBE) == modparams.HEADER + "options zfs zfs_arc_max=0 zfs_txg_timeout=10\n"
    assert files.read(DEVICES) == modparams.DEVICES_HEADER + "options zfs zfs_vdev_open_timeout_ms=10000\n"
    assert held.said() == [
        "zfs_txg_timeout set to 10 (was 5)",
        "zfs_vdev_open_timeout_ms set to 10000 (was 1000)",
        f"{MODPROBE} rewritten from the tuning plan",
        f"{DEVICES} rewritten from the tuning plan",
    ]


def test_a_value_in_effect_is_not_written_again(files: LocalFiles) -> None:
    modparams.hold(files, {"zfs_txg_timeout": 10})
    # Padded, as a write would never leave it: the file stays byte for byte when nothing is written.
    files.write(sysfs("zfs_txg_timeout"), " 10 \n")
    again = modparams.hold(files, {"zfs_txg_timeout": 10})
    assert again.live == [] and again.files == [] and again.said() == []
    assert files.read(sysfs("zfs_txg_timeout")) == " 10 \n"


def test_a_parameter_this_module_lacks_is_refused_before_any_value_is_written(files: LocalFiles) -> None:
    with pytest.raises(NotFound, match="zfs_gone_in_this_release"):
        modparams.hold(files, {"zfs_arc_max": 1, "zfs_gone_in_this_release": 1})  # sorted after the first
    assert files.read(sysfs("zfs_arc_max")) == "0\n" and files.read(MODPROBE) is None


def test_current_reads_the_value_in_effect(files: LocalFiles) -> None:
    files.write(sysfs("zfs_arc_max"), " 4294967296 \n")
    assert modparams.current(files, "zfs_arc_max") == 4294967296
    with pytest.raises(NotFound, match="zfs_arc_min"):
        modparams.current(files, "zfs_arc_min")
    files.write(sysfs("zfs_vdev_raidz_impl"), "cycle [fastest] original scalar\n")
    with pytest.raises(BadOutput, match="zfs_vdev_raidz_impl holds 'cycle"):
        modparams.current(files, "zfs_vdev_raidz_impl")


def test_render_sorts_and_writes_integers() -> None:
    text = modparams.render({"zfs_txg_timeout": 5, "zfs_arc_max": 1024})
    assert text == modparams.HEADER + "options zfs zfs_arc_max=1024 zfs_txg_timeout=5\n"


def test_persisted_without_a_file_is_nothing(files: LocalFiles) -> None:
    assert modparams.persisted(files) == {}


def test_persisted_reads_back_what_hold_wrote(files: LocalFiles) -> None:
    params = {"zfs_arc_max": 1024, "zfs_txg_timeout": 10, "zfs_vdev_open_timeout_ms": 1000}
    modparams.hold(files, params)
    assert modparams.persisted(files) == params
    assert modparams.persisted(files, DEVICES) == {}  # the plan sets the wait: no device file


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("options zfs a=1\n", {"a": 1}),
        ("options zfs a=1 b=22\noptions zfs c=3\n", {"a": 1, "b": 22, "c": 3}),
        ("options zfs a=1\noptions zfs a=2\n", {"a": 2}),  # modprobe: the last word wins
        ("# options zfs a=1\n", {}),
        (" options zfs a=1\n", {}),
        ("options zfsx a=1\n", {}),
        ("options spl a=1\n", {}),
        ("options zfs\n", {}),
        ("install zfs a=1\n", {}),
        ("options zfs a=-1 b=x c= =4 d=1x E=5 f=2\n", {"f": 2}),  # words that are not name=number
        ("options zfs a_9=007\n", {"a_9": 7}),
        ("options zfs a;=1 a$=1 a@=1 a/=1 a'=1 a.=1 f=2\n", {"f": 2}),  # one hostile character in a name
    ],
)
def test_persisted_parses_only_options_zfs_words(
    files: LocalFiles, text: str, expected: dict[str, int]
) -> None:
    files.write(MODPROBE, text)
    assert modparams.persisted(files) == expected


def test_option_pattern() -> None:
    match = modparams.OPTION.fullmatch("zfs_arc_max=123")
    assert match is not None and match.groups() == ("zfs_arc_max", "123")
    for bad in ["=1", "a=", "a=1.5", "a b=1", "a=1;", "a=$1", "a=1'", "A=1"]:
        assert not modparams.OPTION.fullmatch(bad), bad
    for c in HOSTILE:
        for bad in (f"{c}ab=1", f"a{c}b=1", f"ab{c}=1"):
            assert not modparams.OPTION.fullmatch(bad), bad


def test_the_device_wait_is_held_when_the_plan_has_none(files: LocalFiles) -> None:
    held = modparams.hold(files, {})
    assert held.live == [("zfs_vdev_open_timeout_ms", 1000, 10_000)] and held.files == [DEVICES]
    assert files.read(DEVICES) == modparams.DEVICES_HEADER + "options zfs zfs_vdev_open_timeout_ms=10000\n"
    assert files.read(MODPROBE) is None  # no plan, no plan's file
    assert modparams.hold(files, {}).said() == []


def test_the_plan_s_device_wait_stands(files: LocalFiles) -> None:
    modparams.hold(files, {})
    held = modparams.hold(files, {"zfs_vdev_open_timeout_ms": 30_000})
    assert held.live == [("zfs_vdev_open_timeout_ms", 10_000, 30_000)] and held.files == [MODPROBE, DEVICES]
    assert files.read(DEVICES) is None
    assert modparams.persisted(files) == {"zfs_vdev_open_timeout_ms": 30_000}
    assert modparams.hold(files, {"zfs_vdev_open_timeout_ms": 30_000}).said() == []


def test_a_plan_without_a_parameter_leaves_its_value_in_effect_and_drops_it_from_module_load(
    files: LocalFiles,
) -> None:
    modparams.hold(files, {"zfs_txg_timeout": 10, "zfs_arc_max": 4096})
    held = modparams.hold(files, {"zfs_arc_max": 4096})
    assert held.live == [] and held.files == [MODPROBE]
    assert files.read(sysfs("zfs_txg_timeout")) == "10\n"  # until the next module load
    assert modparams.persisted(files) == {"zfs_arc_max": 4096}
    held = modparams.hold(files, {})
    assert held.files == [MODPROBE] and files.read(MODPROBE) is None


# --- drift: the values in effect and the files brought back to the plan -----------------------------


def test_a_value_changed_by_hand_is_set_again_and_said(files: LocalFiles) -> None:
    plan = {"zfs_txg_timeout": 10, "zfs_arc_max": 4096}
    modparams.hold(files, plan)
    files.write(sysfs("zfs_txg_timeout"), "5\n")  # an admin's echo into sysfs
    assert modparams.hold(files, plan).said() == ["zfs_txg_timeout set to 10 (was 5)"]
    assert files.read(sysfs("zfs_txg_timeout")) == "10\n"
    assert modparams.hold(files, plan).said() == []  # converged: nothing more to do


def test_a_file_edited_by_hand_is_rendered_again(files: LocalFiles) -> None:
    modparams.hold(files, {"zfs_txg_timeout": 10})
    files.write(MODPROBE, "options zfs zfs_txg_timeout=99\n")
    files.remove(DEVICES)
    assert modparams.hold(files, {"zfs_txg_timeout": 10}).files == [MODPROBE, DEVICES]
    assert modparams.persisted(files) == {"zfs_txg_timeout": 10}
    assert modparams.persisted(files, DEVICES) == {"zfs_vdev_open_timeout_ms": 10_000}


def test_a_value_the_module_refuses_is_a_typed_error_and_never_persisted(
    files: LocalFiles, tmp_path: Path
) -> None:
    """The refusal is the kernel's own: the parameter's file is a read-only sysfs attribute of this
    host, which a write fails with EACCES even as root (kernfs checks the mode itself). A value in the
    file modprobe reads that the module refuses would keep zfs from loading at the next boot."""
    at = tmp_path / sysfs("zfs_txg_timeout").lstrip("/")
    at.unlink()
    at.symlink_to("/sys/kernel/uevent_seqnum")  # the seqnum is never 0 after boot
    with pytest.raises(SystemFault, match="the zfs module refused zfs_txg_timeout=0: Permission denied"):
        modparams.hold(files, {"zfs_txg_timeout": 0})
    assert files.read(MODPROBE) is None
