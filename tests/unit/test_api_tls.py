"""/api/settings/tls on the real app, with certificates made here: checked, described, installed where
api/tls.py reads them (key 0600), in effect after a restart; the key is never returned or logged."""

from __future__ import annotations

import datetime as dt
import ipaddress
import logging
import socket
import ssl
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from fastapi.testclient import TestClient

from api.tls import ensure_certificate

NOW = dt.datetime.now(dt.UTC)
HOST = socket.gethostname()
Key = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(
    cn: str,
    key: Key,
    *,
    issuer: tuple[str, Key] | None = None,
    sans: list[x509.GeneralName] | None = None,
    start: dt.datetime = NOW - dt.timedelta(days=1),
    days: int = 90,
    ca: bool = False,
) -> x509.Certificate:
    issuer_cn, issuer_key = issuer or (cn, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(cn))
        .issuer_name(_name(issuer_cn))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(*certs: x509.Certificate) -> str:
    return "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in certs)


def _key_pem(key: Key, password: bytes | None = None) -> str:
    enc = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, enc).decode()


def _ec() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _signed_chain() -> tuple[str, str, x509.Certificate]:
    """(chain PEM: leaf then intermediate, leaf key PEM, leaf) issued by a CA for this host."""
    root_key, mid_key, leaf_key = _ec(), _ec(), _ec()
    mid = _cert("Example Intermediate CA", mid_key, issuer=("Example Root CA", root_key), ca=True)
    leaf = _cert(
        HOST,
        leaf_key,
        issuer=("Example Intermediate CA", mid_key),
        sans=[x509.DNSName(HOST), x509.IPAddress(ipaddress.IPv4Address("192.0.2.10"))],
    )
    return _pem(leaf, mid), _key_pem(leaf_key), leaf


def _thumb(cert: x509.Certificate) -> str:
    digest = cert.fingerprint(hashes.SHA256()).hex().upper()
    return ":".join(digest[i : i + 2] for i in range(0, 64, 2))


def _data_dir(client: TestClient) -> Path:
    return Path(client.app.state.settings.data_dir)  # type: ignore[attr-defined]


def test_routes_need_a_login(anon: TestClient) -> None:
    assert anon.get("/api/settings/tls").status_code == 401
    assert anon.put("/api/settings/tls", json={"certificate": "x", "private_key": "y"}).status_code == 401
    assert (
        anon.post("/api/settings/tls/check", json={"certificate": "x", "private_key": "y"}).status_code == 401
    )
    assert anon.post("/api/settings/tls/renew").status_code == 401


def test_get_describes_the_first_boot_certificate(admin: TestClient) -> None:
    assert admin.get("/api/settings/tls").json() == {"certificate": None, "restart_needed": False}
    cert_path, _ = ensure_certificate(_data_dir(admin))  # what `python -m api` does before it serves
    state = admin.get("/api/settings/tls").json()
    facts = state["certificate"]
    leaf = x509.load_pem_x509_certificate(cert_path.read_bytes())
    assert facts["thumbprint_sha256"] == _thumb(leaf)
    assert facts["self_signed"] is True and facts["key"] == "EC P-256" and facts["chain_length"] == 1
    assert HOST in facts["sans"] and "127.0.0.1" in facts["sans"]
    assert facts["matches_host"] is True and HOST in facts["host_names"]
    assert state["restart_needed"] is False


def test_check_describes_without_installing(admin: TestClient) -> None:
    chain, key, leaf = _signed_chain()
    r = admin.post("/api/settings/tls/check", json={"certificate": chain, "private_key": key})
    assert r.status_code == 200, r.text
    facts = r.json()
    assert facts["subject"] == f"CN={HOST}" and facts["issuer"] == "CN=Example Intermediate CA"
    assert facts["sans"] == [HOST, "192.0.2.10"]
    assert facts["thumbprint_sha256"] == _thumb(leaf)
    assert facts["chain_length"] == 2 and facts["self_signed"] is False and facts["matches_host"] is True
    assert dt.datetime.fromisoformat(facts["not_after"]) == leaf.not_valid_after_utc
    assert not (_data_dir(admin) / "tls.crt").exists()


def test_install_puts_the_pair_where_the_api_reads_it(
    admin: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    ensure_certificate(_data_dir(admin))
    chain, key, leaf = _signed_chain()
    r = admin.put("/api/settings/tls", json={"certificate": chain, "private_key": key})
    assert r.status_code == 200, r.text
    assert r.json()["restart_needed"] is True
    assert r.json()["certificate"]["thumbprint_sha256"] == _thumb(leaf)
    assert "PRIVATE KEY" not in r.text
    cert_path, key_path = ensure_certificate(_data_dir(admin))  # kept, not replaced by a self-signed one
    assert x509.load_pem_x509_certificates(cert_path.read_bytes())[0] == leaf
    assert len(x509.load_pem_x509_certificates(cert_path.read_bytes())) == 2
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert_path, key_path)
    assert not list(_data_dir(admin).glob(".tls-*"))  # no temporary file left behind
    assert admin.get("/api/settings/tls").json()["restart_needed"] is True
    assert "PRIVATE KEY" not in caplog.text and key.splitlines()[1] not in caplog.text
    assert f"TLS certificate {_thumb(leaf)} installed by admin" in caplog.text


def _refused(admin: TestClient, certificate: str, private_key: str) -> dict[str, str]:
    before = sorted(p.name for p in _data_dir(admin).iterdir())
    r = admin.put("/api/settings/tls", json={"certificate": certificate, "private_key": private_key})
    assert r.status_code == 422, r.text
    assert sorted(p.name for p in _data_dir(admin).iterdir()) == before  # nothing written
    assert admin.get("/api/settings/tls").json()["restart_needed"] is False
    body: dict[str, str] = r.json()
    return body


def test_garbage_is_refused_on_the_certificate_field(admin: TestClient) -> None:
    _, key, _ = _signed_chain()
    r = _refused(admin, "hello", key)
    assert r["field"] == "certificate" and "Not a PEM certificate" in r["detail"]


def test_a_key_in_the_certificate_field_is_refused(admin: TestClient) -> None:
    chain, key, _ = _signed_chain()
    r = _refused(admin, chain + key, key)
    assert r["field"] == "certificate" and "private key in its own field" in r["detail"]


def test_garbage_key_is_refused_on_the_key_field(admin: TestClient) -> None:
    chain, _, _ = _signed_chain()
    assert _refused(admin, chain, "nope")["field"] == "private_key"


def test_a_key_of_another_certificate_is_refused(admin: TestClient) -> None:
    chain, _, _ = _signed_chain()
    r = _refused(admin, chain, _key_pem(_ec()))
    assert r["field"] == "private_key" and "does not belong" in r["detail"]


def test_an_encrypted_key_is_refused_with_how_to_fix_it(admin: TestClient) -> None:
    key = _ec()
    cert = _cert(HOST, key, sans=[x509.DNSName(HOST)])
    r = _refused(admin, _pem(cert), _key_pem(key, b"passphrase"))
    assert r["field"] == "private_key" and "encrypted" in r["detail"] and "openssl pkey" in r["detail"]


def test_a_weak_rsa_key_is_refused(admin: TestClient) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # noqa: S505 - the weak key under test
    r = _refused(admin, _pem(_cert(HOST, key)), _key_pem(key))
    assert r["field"] == "private_key" and "1024 bits" in r["detail"]


def test_an_expired_certificate_is_refused(admin: TestClient) -> None:
    key = _ec()
    old = _cert(HOST, key, start=NOW - dt.timedelta(days=100), days=30)
    r = _refused(admin, _pem(old), _key_pem(key))
    assert r["field"] == "certificate" and "expired on" in r["detail"]


def test_a_certificate_not_yet_valid_is_refused(admin: TestClient) -> None:
    key = _ec()
    r = _refused(admin, _pem(_cert(HOST, key, start=NOW + dt.timedelta(days=2))), _key_pem(key))
    assert r["field"] == "certificate" and "not valid before" in r["detail"]


def test_a_chain_out_of_order_is_refused(admin: TestClient) -> None:
    chain, key, _ = _signed_chain()
    certs = x509.load_pem_x509_certificates(chain.encode())
    unrelated = _cert("Someone Else CA", _ec(), ca=True)
    r = _refused(admin, _pem(certs[0], unrelated), key)
    assert r["field"] == "certificate" and "out of order" in r["detail"]


def test_an_rsa_certificate_for_another_host_installs_and_says_so(admin: TestClient) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = _cert("other.example", key, sans=[x509.DNSName("*.example")])
    r = admin.put("/api/settings/tls", json={"certificate": _pem(cert), "private_key": _key_pem(key)})
    assert r.status_code == 200, r.text
    facts = r.json()["certificate"]
    assert facts["key"] == "RSA 2048" and facts["matches_host"] is (HOST.endswith(".example"))
    assert facts["sans"] == ["*.example"]


def test_inputs_are_bounded(admin: TestClient) -> None:
    r = admin.post("/api/settings/tls/check", json={"certificate": "x" * 70000, "private_key": "y"})
    assert r.status_code == 422 and r.json()["field"] == "certificate"
    r = admin.post("/api/settings/tls/check", json={"certificate": "x", "private_key": ""})
    assert r.status_code == 422 and r.json()["field"] == "private_key"


def test_localhost_alone_does_not_cover_this_appliance(admin: TestClient) -> None:
    key = _ec()
    cert = _cert(
        "localhost", key, sans=[x509.DNSName("localhost"), x509.IPAddress(ipaddress.IPv4Address("127.0.0.1"))]
    )
    r = admin.post("/api/settings/tls/check", json={"certificate": _pem(cert), "private_key": _key_pem(key)})
    assert r.status_code == 200, r.text
    assert r.json()["matches_host"] is False
    assert not {"localhost", "127.0.0.1"} & set(r.json()["host_names"])


def test_the_appliances_own_certificate_is_renewed_for_the_same_names(
    admin: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    cert_path, key_path = ensure_certificate(_data_dir(admin))
    before = admin.get("/api/settings/tls").json()["certificate"]
    assert before["renewable"] is True
    r = admin.post("/api/settings/tls/renew")
    assert r.status_code == 200, r.text
    after = r.json()["certificate"]
    assert r.json()["restart_needed"] is True and "PRIVATE KEY" not in r.text
    assert after["thumbprint_sha256"] != before["thumbprint_sha256"]
    assert (after["subject"], after["sans"], after["renewable"]) == (before["subject"], before["sans"], True)
    lifespan = dt.datetime.fromisoformat(after["not_after"]) - dt.datetime.fromisoformat(after["not_before"])
    assert lifespan == dt.timedelta(days=365)
    assert dt.datetime.fromisoformat(after["not_before"]) >= NOW - dt.timedelta(minutes=6)
    leaf = x509.load_pem_x509_certificate(cert_path.read_bytes())
    assert _thumb(leaf) == after["thumbprint_sha256"] and stat.S_IMODE(key_path.stat().st_mode) == 0o600
    ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert_path, key_path)
    assert f"TLS certificate {after['thumbprint_sha256']} installed by admin" in caplog.text


def _arcvsa_name(cn: str, organisation: str = "arcvsa") -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, cn),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organisation),
        ]
    )


def test_an_older_releases_long_certificate_is_renewed_with_key_identifiers(admin: TestClient) -> None:
    key = _ec()
    old = (
        x509.CertificateBuilder()
        .subject_name(_arcvsa_name(HOST))
        .issuer_name(_arcvsa_name(HOST))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=800))
        .not_valid_after(NOW + dt.timedelta(days=25))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST), x509.DNSName("localhost")]), False)
        .sign(key, hashes.SHA256())
    )
    data = _data_dir(admin)
    data.mkdir(parents=True, exist_ok=True)
    (data / "tls.crt").write_text(_pem(old))
    (data / "tls.key").write_text(_key_pem(key))
    assert admin.post("/api/settings/tls/renew").status_code == 200
    leaf = x509.load_pem_x509_certificate((data / "tls.crt").read_bytes())
    assert leaf.subject == old.subject and leaf.not_valid_after_utc - NOW > dt.timedelta(days=364)
    assert leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value == (
        old.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    )
    leaf.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier)  # raises when absent


def _install(admin: TestClient, chain: str, key: str) -> None:
    assert admin.put("/api/settings/tls", json={"certificate": chain, "private_key": key}).status_code == 200


def _renew_refused(admin: TestClient) -> None:
    before = (_data_dir(admin) / "tls.crt").read_bytes()
    assert admin.get("/api/settings/tls").json()["certificate"]["renewable"] is False
    r = admin.post("/api/settings/tls/renew")
    assert r.status_code == 409 and "whoever issued it" in r.json()["detail"]
    assert (_data_dir(admin) / "tls.crt").read_bytes() == before


def test_a_certificate_from_an_authority_is_not_renewed_here(admin: TestClient) -> None:
    chain, key, _leaf = _signed_chain()
    _install(admin, chain, key)
    _renew_refused(admin)


def test_an_admins_own_self_signed_certificate_is_not_renewed_here(admin: TestClient) -> None:
    key = _ec()
    builder = (
        x509.CertificateBuilder()
        .subject_name(_arcvsa_name(HOST, "Example Corp"))
        .issuer_name(_arcvsa_name(HOST, "Example Corp"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=1))
        .not_valid_after(NOW + dt.timedelta(days=30))
    )
    _install(admin, _pem(builder.sign(key, hashes.SHA256())), _key_pem(key))
    _renew_refused(admin)


def test_an_arcvsa_named_certificate_signed_by_someone_else_is_not_renewed_here(admin: TestClient) -> None:
    ca_key, key = _ec(), _ec()
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_arcvsa_name(HOST))
        .issuer_name(_name("Example CA"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=1))
        .not_valid_after(NOW + dt.timedelta(days=30))
        .sign(ca_key, hashes.SHA256())
    )
    _install(admin, _pem(leaf), _key_pem(key))
    _renew_refused(admin)
