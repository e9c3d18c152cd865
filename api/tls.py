"""The api's TLS certificate: the one first boot made or an admin put in place, else a self-signed one."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
from pathlib import Path

from appliance.control.files import fsync_dir, write_temp
from appliance.firstboot.tls import self_signed


def paths(data_dir: Path) -> tuple[Path, Path]:
    """(certificate, key): where first boot writes them, the api serves them and an upload installs them."""
    return data_dir / "tls.crt", data_dir / "tls.key"


def ensure_certificate(data_dir: Path) -> tuple[Path, Path]:
    """(cert, key) paths in data_dir (where first boot writes them), made self-signed if absent."""
    cert, key = paths(data_dir)
    # An empty file is what a power cut right after an unsynced write leaves: treat it as absent.
    if cert.exists() and key.exists() and cert.stat().st_size and key.stat().st_size:
        return cert, key
    data_dir.mkdir(parents=True, exist_ok=True)
    cert_pem, key_pem = self_signed(
        socket.gethostname(), ipaddress.IPv4Address("127.0.0.1"), dt.datetime.now(dt.UTC)
    )
    _write_durably(key, key_pem, 0o600)
    _write_durably(cert, cert_pem, 0o644)
    return cert, key


def _write_durably(path: Path, data: bytes, mode: int) -> None:
    """Temporary file, fsync, rename over ``path``, fsync the folder: a power cut leaves old or new."""
    os.replace(write_temp(path.parent, data, mode, ".tls-"), path)
    fsync_dir(path.parent)
