"""The api's TLS: the certificate (the one first boot made or an admin put in place, else a self-signed
one) and the server context, held to Mozilla's "intermediate" profile.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
import ssl
from pathlib import Path

from appliance.control.files import fsync_dir, write_temp
from appliance.firstboot.tls import self_signed

# Mozilla "intermediate" for TLS 1.2: forward secret AEAD suites only (TLS 1.3's defaults all are). No DHE:
# every client that profile serves speaks ECDHE.
CIPHERS = ":".join(
    [
        "ECDHE-ECDSA-AES128-GCM-SHA256",
        "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305",
        "ECDHE-RSA-CHACHA20-POLY1305",
    ]
)
# Python 3.11's ssl can pin only one key exchange group; P-256 is the one every client speaks (the profile
# also allows X25519 and P-384, and rules out the X448 and P-521 OpenSSL would otherwise accept).
GROUP = "prime256v1"


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """The api's TLS server context: TLS 1.2 and 1.3, AEAD suites, one ECDHE group, no renegotiation."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers(CIPHERS)
    context.set_ecdh_curve(GROUP)
    context.options |= ssl.OP_NO_RENEGOTIATION | ssl.OP_NO_COMPRESSION
    context.load_cert_chain(cert, key)
    return context


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
