"""A vCenter session over verified or pinned TLS, with typed faults and a deadline on every socket.

The web form promises an answer within its timeout, so nothing here may block without one: pyVmomi's
SmartConnect is not used because its API-version probe opens a connection without a timeout.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import ssl
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from pyVmomi import SoapStubAdapter, VmomiSupport, vim, vmodl

from provisioning.certificate import (
    fetch_certificate,
    normalise_thumbprint,
    pinned_context,
    translate_transport_error,
    verified_context,
)
from provisioning.errors import (
    AuthenticationFailed,
    CertificateUntrusted,
    NotAVCenter,
    Unreachable,
    VCenterError,
    VCenterTimeout,
)
from provisioning.inventory import About, about_from_content

log = logging.getLogger(__name__)

SDK_PATH = "/sdk"


def supported_versions(document: bytes) -> set[str]:
    """API version ids ('8.0.3.0', '6.5', ...) listed for urn:vim25 in a vimServiceVersions.xml (pure).

    Raises ValueError when the document is not that file.
    """
    try:
        root = ET.fromstring(document)  # noqa: S314 - the server's own 1 KB version list, no entities
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from exc
    if root.tag != "namespaces":
        raise ValueError(f"root element is <{root.tag}>, not <namespaces>")
    ids: set[str] = set()
    for namespace in root.findall("namespace"):
        if namespace.findtext("name") != "urn:vim25":
            continue
        ids.update(v.text.strip() for v in namespace.iter("version") if v.text)
    if not ids:
        raise ValueError("no urn:vim25 versions listed")
    return ids


def choose_version(server_ids: set[str]) -> str:
    """The newest pyVmomi version name (e.g. 'vim.version.v8_0_3_0') the server also speaks (pure)."""
    for name in VmomiSupport.GetServiceVersions("vim25"):
        if VmomiSupport.versionIdMap.get(name) in server_ids:
            return str(name)
    raise ValueError(f"no API version in common with the server's {sorted(server_ids)}")


def _negotiate_version(host: str, port: int, ctx: ssl.SSLContext, timeout: float) -> str:
    conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=timeout)
    try:
        conn.request("GET", f"{SDK_PATH}/vimServiceVersions.xml")
        response = conn.getresponse()
        body = response.read(1 << 20)
    finally:
        conn.close()
    if response.status != 200:
        raise NotAVCenter(
            f"{host}:{port} answered HTTP {response.status} for {SDK_PATH}/vimServiceVersions.xml: "
            "not a vSphere API endpoint"
        )
    try:
        return choose_version(supported_versions(body))
    except ValueError as exc:
        raise NotAVCenter(f"{host}:{port} is not a usable vSphere API endpoint: {exc}") from exc


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("connect deadline passed")
    return left


@contextlib.contextmanager
def _faults(host: str, port: int, deadline: float) -> Iterator[None]:
    """Translate whatever the steps of a login raise into the typed faults of provisioning.errors."""
    try:
        yield
    except VCenterError:
        raise
    except vim.fault.InvalidLogin as exc:
        raise AuthenticationFailed(f"{host} refused the user name or password") from exc
    except ssl.SSLCertVerificationError as exc:
        # Look at the certificate we refused so the user can decide to accept its thumbprint.
        info = fetch_certificate(host, port, max(deadline - time.monotonic(), 1.0))
        raise CertificateUntrusted(
            f"the certificate of {host}:{port} is not trusted ({exc.verify_message}); "
            f"accept its SHA-256 thumbprint {info.thumbprint_sha256} to connect",
            thumbprint=info.thumbprint_sha256,
        ) from exc
    except vmodl.MethodFault as exc:
        detail = getattr(exc, "msg", None) or type(exc).__name__
        raise VCenterError(f"{host} refused the login: {detail}") from exc
    except Exception as exc:
        fault = translate_transport_error(exc, f"{host}:{port}")
        if fault is None:
            raise
        raise fault from exc


def login(
    host: str,
    port: int,
    username: str,
    password: str,
    *,
    thumbprint_sha256: str | None,
    timeout: float = 15.0,
) -> vim.ServiceInstance:
    """Log in and return the ServiceInstance; the caller must `logout` it. Prefer `connect`.

    TLS is verified against the system CA store, or, when `thumbprint_sha256` is given, pinned to exactly
    that certificate on every connection of the session. Raises CertificateUntrusted (with the thumbprint
    seen), ThumbprintMismatch, AuthenticationFailed, Unreachable, VCenterTimeout or NotAVCenter.

    Every socket operation has a deadline. A server that accepts and stays silent is given up on within
    `timeout`; the SOAP steps (RetrieveServiceContent, Login) each get what was left of it when the SOAP
    connection was set up, so a server that answers every step slowly can stretch a login to about twice
    `timeout`. Later calls of the session keep that per-operation limit.
    """
    deadline = time.monotonic() + timeout
    if thumbprint_sha256:
        try:
            ctx = pinned_context(normalise_thumbprint(thumbprint_sha256))
        except ValueError as exc:
            raise VCenterError(str(exc), field="thumbprint") from exc
    else:
        ctx = verified_context()
    with _faults(host, port, deadline):
        version = _negotiate_version(host, port, ctx, _remaining(deadline))
        stub = SoapStubAdapter(
            host=host,
            port=port,
            path=SDK_PATH,
            version=version,
            sslContext=ctx,
            httpConnectionTimeout=_remaining(deadline),
        )
        si = vim.ServiceInstance("ServiceInstance", stub)
        try:
            content = si.RetrieveContent()
            if content.about.apiType not in ("VirtualCenter", "HostAgent"):
                raise NotAVCenter(f"{host} is a {content.about.apiType!r} endpoint, not vCenter or ESXi")
            if content.sessionManager is None:
                raise NotAVCenter(f"{host} offers no SessionManager to log in to")
            _remaining(deadline)
            content.sessionManager.Login(username, password, None)
        except BaseException:
            stub.DropConnections()
            raise
        if time.monotonic() > deadline:
            # Answered, but later than promised: do not hand out a session the caller gave up on.
            logout(si)
            raise VCenterTimeout(f"{host} took longer than {timeout:g} s to log in")
    return si


def logout(si: vim.ServiceInstance) -> None:
    """End the session and close its connections; never raises (a dead server has no session to end)."""
    try:
        manager = si.RetrieveContent().sessionManager
        if manager is not None:
            manager.Logout()
    except Exception as exc:
        log.warning("vCenter logout failed: %r", exc)
    finally:
        si._stub.DropConnections()


@contextlib.contextmanager
def connect(
    host: str,
    port: int,
    username: str,
    password: str,
    *,
    thumbprint_sha256: str | None,
    timeout: float = 15.0,
) -> Iterator[vim.ServiceInstance]:
    """A logged-in ServiceInstance for the `with` block, logged out afterwards. See `login` for faults.

    When the block fails because the server stopped answering, the session is abandoned instead: a logout
    would only wait out another timeout, and vCenter expires idle sessions by itself.
    """
    si = login(host, port, username, password, thumbprint_sha256=thumbprint_sha256, timeout=timeout)
    try:
        yield si
    except (Unreachable, VCenterTimeout, OSError, http.client.HTTPException):
        si._stub.DropConnections()
        raise
    except BaseException:
        logout(si)
        raise
    logout(si)


def about(si: vim.ServiceInstance) -> About:
    """What the endpoint says it is: product, version, build, API type, instance UUID."""
    return about_from_content(si.RetrieveContent())
