"""The grub-probe that update-grub meets in the image build's chroot (appliance/image/grub-probe.sh):
it describes the appliance's root file system, whatever the build machine's is, and fails on any
question it has no answer for, so grub.cfg is never made from a guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance.image.rootfs import HERE
from process import Completed, run

ROOT_UUID = "72d53155-3a82-5dcd-b822-a1f6f3cb36f2"


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    """The stand-in as customize.sh installs it: the root UUID filled in."""
    text = (HERE / "grub-probe.sh").read_text(encoding="utf-8").replace("@ROOT_UUID@", ROOT_UUID)
    path = tmp_path / "grub-probe"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def ask(probe: Path, *argv: str) -> Completed:
    return run([str(probe), *argv], timeout=30, check=False)


@pytest.mark.parametrize(
    ("argv", "answer"),
    [
        (["--target=device", "/"], f"/dev/disk/by-uuid/{ROOT_UUID}\n"),  # grub-mkconfig's GRUB_DEVICE
        (["--target=device", "/boot"], f"/dev/disk/by-uuid/{ROOT_UUID}\n"),
        (["--device", f"/dev/disk/by-uuid/{ROOT_UUID}", "--target=fs_uuid"], f"{ROOT_UUID}\n"),
        (["--device", "/dev/x", "--target=fs"], "ext2\n"),
        (["-t", "fs", "/boot/grub"], "ext2\n"),  # grub-mkconfig_lib's short form
        (["/boot/grub"], "ext2\n"),  # grub-probe's default target
        (["--device", "/dev/x", "--target=partmap"], "gpt\n"),
        (["--device", "/dev/x", "--target=abstraction"], ""),
        (["--device", "/dev/x", "--target=hints_string"], ""),
        (["--device", "/dev/x", "--target=compatibility_hint"], ""),
    ],
)
def test_it_describes_the_appliances_root_file_system(probe: Path, argv: list[str], answer: str) -> None:
    done = ask(probe, *argv)
    assert (done.exit_code, done.stdout) == (0, answer), done.stderr


def test_no_partition_uuid_is_claimed(probe: Path) -> None:
    # grub-mkconfig then writes root=UUID= (the file system's), as on the appliance itself.
    assert ask(probe, "--device", "/dev/x", "--target=partuuid").exit_code != 0


@pytest.mark.parametrize("argv", [["--target=drive", "/"], ["--target=disk", "/"], ["--no-such-option"]])
def test_any_other_question_fails(probe: Path, argv: list[str]) -> None:
    done = ask(probe, *argv)
    assert done.exit_code == 64 and "image build" in done.stderr
