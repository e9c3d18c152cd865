"""The api's TLS certificate: the one first boot made or an admin put in place, else a self-signed one."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
from pathlib import Path

from appliance.firstboot.tls import self_signed


def paths(data_dir: Path) -> tuple[Path, Path]:
    """(certificate, key): where first boot writes them, the api serves them and an upload installs them."""
    return data_dir / "tls.crt", data_dir / "tls.key"


def ensure_certificate(data_dir: Path) -> tuple[Path, Path]:
    """(cert, key) paths in data_dir (where first boot writes them), made self-signed if absent."""
    cert, key = paths(data_dir)
    if cert.exists() and key.exists():
        return cert, key
    data_dir.mkdir(parents=True, exist_ok=True)
    cert_pem, key_pem = self_signed(
        socket.gethostname(), ipaddress.IPv4Address("127.0.0.1"), dt.datetime.now(dt.UTC)
    )
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key_pem)
    cert.write_bytes(cert_pem)
    return cert, key
