"""Logging in to vcsim and to servers that misbehave: every failure is one typed fault, on time."""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import signal
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from lab.vcsim import Vcsim, write_self_signed
from provisioning.certificate import fetch_certificate, thumbprint_sha256
from provisioning.errors import (
    AuthenticationFailed,
    CertificateUntrusted,
    NotAVCenter,
    ThumbprintMismatch,
    Unreachable,
    VCenterError,
    VCenterTimeout,
)
from provisioning.inventory import read_inventory
from provisioning.session import about, connect

pytestmark = pytest.mark.integration


def _login(sim: Vcsim, **overrides: object) -> None:
    args: dict[str, object] = {
        "host": sim.host,
        "port": sim.port,
        "username": sim.username,
        "password": sim.password,
        "thumbprint_sha256": sim.thumbprint_sha256,
    }
    args.update(overrides)
    with connect(**args):  # type: ignore[arg-type]
        pass


def _sessions(si: Any) -> Any:
    manager = si.RetrieveContent().sessionManager
    assert manager is not None
    return manager


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _server(handle: object, tls: ssl.SSLContext | None = None) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that runs handle(conn) per connection in a thread; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)

            def run(conn: socket.socket = conn) -> None:
                with contextlib.suppress(OSError):
                    if tls is not None:
                        conn = tls.wrap_socket(conn, server_side=True)
                        held.append(conn)
                    handle(conn)  # type: ignore[operator]

            threading.Thread(target=run, daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        listener.close()
        for conn in held:
            conn.close()


def _never_answer(conn: socket.socket) -> None:
    conn.recv(65536)  # read the request, then stay silent until the test closes us


def _answer_404(conn: socket.socket) -> None:
    conn.recv(65536)
    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot here\n")


def _server_context(tmp_path: Path) -> tuple[ssl.SSLContext, str]:
    cert, key = write_self_signed(tmp_path)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx, thumbprint_sha256(ssl.PEM_cert_to_DER_cert(cert.read_text()))


# --- vcsim ------------------------------------------------------------------------------------------------


def test_the_accepted_thumbprint_connects_and_about_says_vcenter(vcsim: Vcsim) -> None:
    with connect(
        vcsim.host, vcsim.port, vcsim.username, vcsim.password, thumbprint_sha256=vcsim.thumbprint_sha256
    ) as si:
        info = about(si)
        session = _sessions(si).currentSession
    assert info.api_type == "VirtualCenter" and info.name == "VMware vCenter Server"
    assert info.instance_uuid and info.version
    assert session is not None and session.userName == vcsim.username


def test_the_thumbprint_may_be_typed_in_any_usual_spelling(vcsim: Vcsim) -> None:
    _login(vcsim, thumbprint_sha256=vcsim.thumbprint_sha256.replace(":", "").lower())


def test_leaving_the_block_logs_out(vcsim: Vcsim) -> None:
    args = (vcsim.host, vcsim.port, vcsim.username, vcsim.password)
    with connect(*args, thumbprint_sha256=vcsim.thumbprint_sha256) as first:
        current = _sessions(first).currentSession
        assert current is not None
    with connect(*args, thumbprint_sha256=vcsim.thumbprint_sha256) as second:
        alive = {s.key for s in _sessions(second).sessionList}
    assert current.key not in alive and alive


def test_a_self_signed_certificate_without_a_thumbprint_is_refused_with_its_thumbprint(vcsim: Vcsim) -> None:
    with pytest.raises(CertificateUntrusted) as caught:
        _login(vcsim, thumbprint_sha256=None)
    assert caught.value.thumbprint == vcsim.thumbprint_sha256
    assert caught.value.field == "thumbprint"


def test_another_thumbprint_is_a_mismatch_naming_the_real_one(vcsim: Vcsim) -> None:
    with pytest.raises(ThumbprintMismatch) as caught:
        _login(vcsim, thumbprint_sha256="AB:" * 31 + "AB")
    assert caught.value.thumbprint == vcsim.thumbprint_sha256


def test_a_malformed_thumbprint_is_a_fault_on_the_thumbprint_field(vcsim: Vcsim) -> None:
    with pytest.raises(VCenterError) as caught:
        _login(vcsim, thumbprint_sha256="not-a-thumbprint")
    assert caught.value.field == "thumbprint"


@pytest.mark.parametrize("field", ["password", "username"])
def test_wrong_credentials_are_an_authentication_fault(vcsim: Vcsim, field: str) -> None:
    with pytest.raises(AuthenticationFailed) as caught:
        _login(vcsim, **{field: "wrong"})
    assert caught.value.field == "password"


# --- servers that are not a working vCenter ---------------------------------------------------------------


def test_a_closed_port_is_unreachable_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(Unreachable):
        _login_anywhere("127.0.0.1", _free_port())
    assert time.monotonic() - started < 2


def test_an_unknown_host_name_is_unreachable() -> None:
    with pytest.raises(Unreachable, match="resolve"):
        _login_anywhere("no-such-host.invalid", 443)


@pytest.mark.parametrize("pinned", [True, False])
def test_a_listener_that_never_answers_times_out_on_time(pinned: bool) -> None:
    # Accepts the TCP connection and reads the TLS hello, then says nothing.
    with _server(_never_answer) as port:
        started = time.monotonic()
        with pytest.raises(VCenterTimeout):
            _login_anywhere("127.0.0.1", port, thumbprint="AB" * 32 if pinned else None, timeout=3)
        elapsed = time.monotonic() - started
    assert 2.5 < elapsed < 4.0


def test_a_tls_server_that_never_answers_http_times_out_on_time(tmp_path: Path) -> None:
    ctx, thumbprint = _server_context(tmp_path)
    with _server(_never_answer, tls=ctx) as port:
        started = time.monotonic()
        with pytest.raises(VCenterTimeout):
            _login_anywhere("127.0.0.1", port, thumbprint=thumbprint, timeout=3)
        assert time.monotonic() - started < 4.0


def test_plain_http_is_not_a_vcenter() -> None:
    with _server(_answer_404) as port, pytest.raises(NotAVCenter):
        _login_anywhere("127.0.0.1", port, thumbprint="AB" * 32)


def test_an_https_server_without_the_vsphere_api_is_not_a_vcenter(tmp_path: Path) -> None:
    ctx, thumbprint = _server_context(tmp_path)
    with _server(_answer_404, tls=ctx) as port, pytest.raises(NotAVCenter, match="404"):
        _login_anywhere("127.0.0.1", port, thumbprint=thumbprint)


def test_an_https_server_shows_its_certificate_before_anything_else(tmp_path: Path) -> None:
    ctx, thumbprint = _server_context(tmp_path)
    with _server(_answer_404, tls=ctx) as port, pytest.raises(CertificateUntrusted) as caught:
        _login_anywhere("127.0.0.1", port)
    assert caught.value.thumbprint == thumbprint


def _login_anywhere(host: str, port: int, *, thumbprint: str | None = None, timeout: float = 5) -> None:
    with connect(host, port, "user", "password", thumbprint_sha256=thumbprint, timeout=timeout):
        pass


# --- a certificate the CA store trusts --------------------------------------------------------------------


def _issue(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate it signs for 127.0.0.1 only: (ca.pem, leaf.pem, leaf.key)."""
    now = dt.datetime.now(dt.UTC)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "arcvsa test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = tmp_path / "ca.pem", tmp_path / "leaf.pem", tmp_path / "leaf.key"
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(leaf.public_bytes(pem))
    paths[2].write_bytes(
        leaf_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


@pytest.fixture(scope="module")
def trusted_vcsim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Vcsim, Path]]:
    ca, leaf, key = _issue(tmp_path_factory.mktemp("pki"))
    with Vcsim(build=False, tls_cert=str(leaf), tls_key=str(key)) as sim:
        yield sim, ca


def test_a_ca_signed_certificate_needs_no_thumbprint(
    trusted_vcsim: tuple[Vcsim, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, ca = trusted_vcsim
    # OpenSSL reads SSL_CERT_FILE when a default context loads the system store: our CA becomes "the store".
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    info = fetch_certificate(sim.host, sim.port, timeout=5)
    assert info.trusted and info.issuer == "CN=arcvsa test CA"
    _login(sim, thumbprint_sha256=None)


def test_the_same_certificate_is_untrusted_without_its_ca(trusted_vcsim: tuple[Vcsim, Path]) -> None:
    sim, _ = trusted_vcsim
    assert not fetch_certificate(sim.host, sim.port, timeout=5).trusted
    with pytest.raises(CertificateUntrusted):
        _login(sim, thumbprint_sha256=None)


def test_a_trusted_certificate_for_another_name_is_untrusted(
    trusted_vcsim: tuple[Vcsim, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, ca = trusted_vcsim
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    # The certificate names 127.0.0.1 only: reached as 'localhost', the host name check must fail.
    assert not fetch_certificate("localhost", sim.port, timeout=5).trusted
    with pytest.raises(CertificateUntrusted) as caught:
        _login(sim, host="localhost", thumbprint_sha256=None)
    assert caught.value.thumbprint == fetch_certificate(sim.host, sim.port, timeout=5).thumbprint_sha256


def test_a_pinned_thumbprint_overrides_a_trusted_chain(
    trusted_vcsim: tuple[Vcsim, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, ca = trusted_vcsim
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    # The user accepted another certificate: a valid chain must not quietly replace it.
    with pytest.raises(ThumbprintMismatch):
        _login(sim, thumbprint_sha256="CD" * 32)


def test_a_vcenter_that_hangs_mid_session_costs_one_timeout_not_two() -> None:
    with Vcsim(build=False) as sim:
        pid, started = sim.details()["pid"], 0.0
        try:
            with (
                pytest.raises(VCenterTimeout),
                connect(
                    sim.host,
                    sim.port,
                    sim.username,
                    sim.password,
                    thumbprint_sha256=sim.thumbprint_sha256,
                    timeout=2,
                ) as si,
            ):
                os.kill(pid, signal.SIGSTOP)  # frozen: its sockets stay open and nothing answers
                started = time.monotonic()
                read_inventory(si)
            elapsed = time.monotonic() - started
        finally:
            os.kill(pid, signal.SIGCONT)
    # read_inventory waited out the session's socket timeout once; leaving the block did not wait again.
    assert 1.5 < elapsed < 3
