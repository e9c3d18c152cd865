"""The project's part of the image: one tar that packer unpacks to /opt/arcvsa in the guest.

It holds ``lib/`` (the runtime dependencies from ``requirements.runtime.lock``, hash-checked, as binary
wheels for the image's CPython 3.13, plus the project's own wheel), ``web/`` (the built web assets),
``systemd/`` (the units) and ``README.md``. It is made on the build machine with uv, so the appliance
runs exactly the dependency versions the tests ran, and the guest never reaches a package index.

The tar is reproducible (sorted, fixed owner and mtime): its SHA-256 is the payload's cache key.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
from pathlib import Path

from appliance.image.errors import BuildError
from process import run

REPO = Path(__file__).resolve().parent.parent.parent
RUNTIME_LOCK = REPO / "requirements.runtime.lock"
WEB_DIST = REPO / "web" / "dist"
UNITS = REPO / "appliance" / "systemd"
# Debian 13's CPython and glibc: the wheels uv picks must load there.
TARGET_PYTHON = "3.13"
TARGET_PLATFORM = "x86_64-manylinux_2_28"
UV_TIMEOUT = 900.0
TAR_MTIME = 0


def uv() -> list[str]:
    """uv as `make setup` installs it: a module of the machine's python3, not of the project's venv."""
    return ["python3", "-m", "uv"]


def build_wheel(out: Path) -> Path:
    """The project's wheel, built from the checkout into ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    run([*uv(), "build", "--quiet", "--wheel", "--out-dir", str(out), str(REPO)], timeout=UV_TIMEOUT)
    wheels = sorted(out.glob("arcvsa-*.whl"))
    if len(wheels) != 1:
        raise BuildError(f"expected one arcvsa wheel in {out}, found {[w.name for w in wheels]}")
    return wheels[0]


def install_lib(lib: Path, wheel: Path) -> None:
    """Dependencies (locked, hash-checked, binary only) and the project wheel into ``lib``."""
    shutil.rmtree(lib, ignore_errors=True)
    cross = ["--target", str(lib), "--python-version", TARGET_PYTHON, "--python-platform", TARGET_PLATFORM]
    run(
        [*uv(), "pip", "install", "--quiet", *cross, "--only-binary", ":all:", "--require-hashes",
         "-r", str(RUNTIME_LOCK)],
        timeout=UV_TIMEOUT,
    )  # fmt: skip
    run([*uv(), "pip", "install", "--quiet", *cross, "--no-deps", str(wheel)], timeout=UV_TIMEOUT)
    # Console scripts point at the build machine's interpreter: the units run `python -m` instead.
    shutil.rmtree(lib / "bin", ignore_errors=True)
    forget_origin(lib)


def forget_origin(lib: Path) -> None:
    """Drop what records where and when the wheel was built (its path, uv's cache stamp): the payload,
    and so the image's cache key, must depend only on the code."""
    volatile = ("direct_url.json", "uv_cache.json")
    for info in lib.glob("arcvsa-*.dist-info"):
        for name in volatile:
            (info / name).unlink(missing_ok=True)
        record = info / "RECORD"
        lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines if line.split(",", 1)[0].rsplit("/", 1)[-1] not in volatile]
        record.write_text("".join(kept), encoding="utf-8")


def normalised(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Root-owned, fixed mtime, no caches: the same inputs give the same bytes."""
    if "__pycache__" in Path(info.name).parts or info.name.endswith(".pyc"):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mtime = TAR_MTIME
    if info.isdir() or info.mode & 0o111:
        info.mode = 0o755
    else:
        info.mode = 0o644
    return info


def add_tree(tar: tarfile.TarFile, source: Path, name: str) -> None:
    """Add ``source`` as ``name`` with its entries in sorted order (tarfile.add recurses unsorted)."""
    tar.add(source, arcname=name, recursive=False, filter=normalised)
    if source.is_dir():
        for child in sorted(source.iterdir()):
            add_tree(tar, child, f"{name}/{child.name}")


def make_payload(work: Path, out: Path) -> tuple[Path, str]:
    """Write the payload tar to ``out``; returns (path, sha256)."""
    if not (WEB_DIST / "index.html").is_file():
        raise BuildError(f"{WEB_DIST} has no index.html: run `make web` first")
    if not RUNTIME_LOCK.is_file():
        raise BuildError(f"{RUNTIME_LOCK} missing: run `make lock`")
    wheel = build_wheel(work / "wheel")
    lib = work / "lib"
    install_lib(lib, wheel)
    partial = out.with_name(out.name + ".partial")
    with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
        add_tree(tar, lib, "lib")
        add_tree(tar, WEB_DIST, "web")
        add_tree(tar, UNITS, "systemd")
        readme = (REPO / "README.md").read_bytes()
        info = normalised(tarfile.TarInfo("README.md"))
        assert info is not None
        info.size = len(readme)
        tar.addfile(info, io.BytesIO(readme))
    partial.replace(out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    return out, digest
