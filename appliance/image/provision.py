"""Packer's part of the image build: ``packer build -only=qemu.lab`` over the base disk.

Packer boots the base disk (it authorizes a build-only key) under qemu, uploads the payload tar, runs
``packer/scripts`` (Python environment, units, build manifest, seal: the key is removed again) and
powers it off. What comes out is the product disk: no password, no key, first boot armed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from appliance.image import serial
from appliance.image.errors import BuildError
from process import ProcessAborted, ProcessError, stream

REPO = Path(__file__).resolve().parent.parent.parent
TEMPLATE_DIR = REPO / "packer"
# The vsphere-iso source's variables have no defaults and packer wants every variable set even when
# only qemu.lab runs: the committed example supplies them (they are not used by this build).
EXAMPLE_VARS = TEMPLATE_DIR / "arcvsa.pkrvars.hcl.example"
PACKER_TIMEOUT = 2400.0
# An emulated build VM's kernel can panic in early boot, and packer would then wait its 20 minutes for
# SSH. The console is watched instead and a panicked build is run once more.
ATTEMPTS = 2


def template_files() -> list[Path]:
    """The template and its scripts: part of the provisioned disk's cache key."""
    return sorted(p for p in TEMPLATE_DIR.rglob("*") if p.is_file() and not p.name.endswith(".pkrvars.hcl"))


def packer_env(work: Path) -> dict[str, str]:
    """Packer keeps its config, cache, plugins and temp files inside the build folder."""
    dirs = {name: work / name for name in ("home", "config", "cache", "tmp")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"),
        "HOME": str(dirs["home"]),
        "PACKER_CONFIG_DIR": str(dirs["config"]),
        "PACKER_CACHE_DIR": str(dirs["cache"]),
        "TMPDIR": str(dirs["tmp"]),
        "CHECKPOINT_DISABLE": "1",
        "PACKER_NO_COLOR": "1",
        "LC_ALL": "C.UTF-8",
    }


def run_packer(argv: list[str], env: dict[str, str], log: Path, serial_log: Path) -> None:
    """One packer build, killed the moment the build VM's console shows a kernel panic."""
    serial_log.unlink(missing_ok=True)

    def watch() -> str | None:
        found = serial.panic(serial.text(serial_log))
        return None if found is None else f"the build VM's kernel panicked:\n{found}"

    try:
        stream(argv, timeout=PACKER_TIMEOUT, log=log, env=env, inherit_env=False, watch=watch)
    except ProcessAborted:
        raise
    except ProcessError as exc:
        raise BuildError(f"{exc}; the VM's console is in {serial_log}") from exc


def provision(
    base_disk: Path, key: Path, payload: Path, release: Path, version: str, work: Path, out: Path, log: Path
) -> dict[str, object]:
    """Run packer; move the sealed disk to ``out`` and return the image's build manifest."""
    if shutil.which("packer") is None:
        raise BuildError("packer is not installed (make setup installs Debian's packer)")
    shutil.rmtree(work, ignore_errors=True)
    output_dir, manifest = work / "out", work / "build-manifest.json"
    # The guest's console beside packer's log: a boot that never reaches SSH shows where it stopped.
    serial_log = log.with_name("packer-serial.log")
    work.mkdir(parents=True)
    # packer reads only *.hcl var files.
    example = work / "example.pkrvars.hcl"
    shutil.copyfile(EXAMPLE_VARS, example)
    argv = [
        "packer",
        "build",
        "-only=qemu.lab",
        f"-var-file={example}",
        "-var", f"version={version}",
        "-var", f"git_version={version}",
        "-var", f"base_disk={base_disk}",
        "-var", f"ssh_private_key_file={key}",
        "-var", f"payload={payload}",
        "-var", f"release_file={release}",
        "-var", f"output_directory={output_dir}",
        "-var", f"manifest_out={manifest}",
        "-var", f"serial_log={serial_log}",
        "-var", f"vsphere_export_directory={work / 'vsphere-export'}",
        str(TEMPLATE_DIR),
    ]  # fmt: skip
    env = packer_env(work)
    env["PACKER_LOG"], env["PACKER_LOG_PATH"] = "1", str(work / "packer-debug.log")
    for attempt in range(1, ATTEMPTS + 1):
        try:
            run_packer(argv, env, log, serial_log)
            break
        except ProcessAborted as exc:
            # The panicked console is kept beside the log; packer starts over on an empty output folder.
            serial_log.replace(serial_log.with_suffix(f".panic-{attempt}.log"))
            shutil.rmtree(output_dir, ignore_errors=True)
            if attempt == ATTEMPTS:
                raise BuildError(f"{exc}; in each of {ATTEMPTS} attempts") from exc
            with log.open("a", encoding="utf-8") as sink:
                sink.write(f"attempt {attempt}: {exc}\nbuilding once more\n")
    disk = output_dir / f"arcvsa-{version}.qcow2"
    if not disk.is_file() or not manifest.is_file():
        raise BuildError(f"packer finished without {disk} or {manifest}; see {log}")
    partial = out.with_name(out.name + ".partial")
    # Rewrite the qcow2: what the seal trimmed is dropped, the file is as small as its data.
    stream(["qemu-img", "convert", "-O", "qcow2", str(disk), str(partial)], timeout=PACKER_TIMEOUT, log=log)
    partial.replace(out)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    shutil.rmtree(work, ignore_errors=True)
    return dict(data)
