"""Wait for an appliance's api to answer /api/health as arcvsa, and when it cannot, say why within a minute.

vcsim runs no guests, so in the lab the address of the lab appliance (or any arcvsa api) stands in for the
VM's: the plan carries the endpoint to probe and, optionally, the thumbprint of its certificate. Without
one, the certificate the appliance presents on first contact is pinned (its own, made at first boot) and
returned, for the caller to record and to use for every later call.

Each look at the endpoint is classified (`look`), and only "nothing answers yet" may last: an appliance
that is still booting has no TLS up, and it is given the boot window (fleet.health_timeout_s). Anything
that answers wrongly fails that appliance fast, each reason with its own error and what to do about it:
- a refused connection: the address is up but no api listens there (REFUSED_S);
- silence once vCenter reports the guest running with an address (SILENT_S);
- an answer that is not arcvsa's (HTTP 404, another JSON, not TLS at all): a few looks (WRONG_LOOKS);
- a certificate other than the one pinned, or first boot refusing the OVF properties: at once.
While it waits it reports what it sees at least every SAY_EVERY seconds, so a deploy is never silent.
"""

from __future__ import annotations

import http.client
import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from provisioning import cancel
from provisioning.appliance_api import split_endpoint
from provisioning.appliance_errors import ApplianceApiError, ApplianceCertificateMismatch
from provisioning.certificate import PinMismatch, fetch_certificate, pinned_context
from provisioning.errors import VCenterError
from provisioning.plan import ApplianceSpec

REFUSED_S = 60.0
SILENT_S = 60.0
WRONG_LOOKS = 3
SAY_EVERY = 10.0
LOOK_TIMEOUT = 5.0


class ApplianceUnhealthy(ApplianceApiError):
    """The appliance's api did not report healthy within its boot window."""

    field = "fleet.health_timeout_s"


class ApplianceNotAnswering(ApplianceUnhealthy):
    """Nothing answered at the appliance's api address (no TCP, no TLS)."""


class ApplianceRefusing(ApplianceUnhealthy):
    """The address refuses connections: a machine is there, but no api listens on the port."""

    field = "fleet.appliances"


class NotAnAppliance(ApplianceUnhealthy):
    """Something other than an arcvsa api answers at the appliance's address."""

    field = "fleet.appliances"


class ApplianceSetupRefused(ApplianceUnhealthy):
    """The appliance booted, but its first boot refused the OVF properties it was given."""

    field = "fleet.properties"


Kind = Literal["healthy", "silent", "refused", "starting", "wrong", "changed", "setup"]


@dataclass
class Look:
    """What one look at the endpoint found: its kind, in words, and the certificate seen (if TLS answered)."""

    kind: Kind
    words: str
    thumbprint: str | None = None
    subject: str | None = None
    version: str = ""


def _silent_or_refused(exc: BaseException, endpoint: str, timeout: float) -> Look | None:
    """The look for a transport failure that means 'not up (yet)'; None for one that means 'something else'."""
    if isinstance(exc, ConnectionRefusedError):
        return Look("refused", f"{endpoint} refuses connections")
    if isinstance(exc, TimeoutError):
        return Look("silent", f"nothing answers at {endpoint} within {timeout:g} s")
    if isinstance(exc, http.client.HTTPException | ssl.SSLError):
        return None
    if isinstance(exc, ConnectionResetError | BrokenPipeError):  # a socket that was just closing: look again
        return Look("silent", f"{endpoint} reset the connection")
    if isinstance(exc, OSError):  # no route, host unreachable, name not resolved
        return Look("silent", f"cannot reach {endpoint}: {exc.strerror or exc}")
    return None


def _transport(exc: BaseException, endpoint: str, pin: str | None, timeout: float) -> Look:
    if isinstance(exc, PinMismatch):
        return Look("changed", f"{endpoint} presented certificate SHA-256 {exc.seen}", thumbprint=exc.seen)
    found = _silent_or_refused(exc, endpoint, timeout)
    if found is not None:
        return found
    if isinstance(exc, ssl.SSLError):
        return Look("wrong", f"{endpoint} does not speak TLS ({getattr(exc, 'reason', None) or exc})")
    return Look("wrong", f"{endpoint} does not answer HTTPS requests ({type(exc).__name__}: {exc})", pin)


def _health(endpoint: str, pin: str, subject: str | None, timeout: float) -> Look:
    """GET /api/health pinned to `pin`, classified."""
    host, port = split_endpoint(endpoint)
    conn = http.client.HTTPSConnection(host, port, context=pinned_context(pin), timeout=timeout)
    try:
        conn.request("GET", "/api/health", headers={"Accept": "application/json"})
        response = conn.getresponse()
        body = response.read(64 * 1024)
    except Exception as exc:  # every transport failure is classified, none is fatal by itself
        return _transport(exc, endpoint, pin, timeout)
    finally:
        conn.close()
    try:
        answer: Any = json.loads(body)
    except ValueError:
        answer = None
    arcvsa = isinstance(answer, dict) and isinstance(answer.get("status"), str)

    def seen(kind: Kind, words: str, version: str = "") -> Look:
        return Look(kind, words, thumbprint=pin, subject=subject, version=version)

    if response.status in (502, 503, 504) and arcvsa:
        return seen("starting", f"its api is starting (HTTP {response.status}, status {answer['status']!r})")
    if response.status != 200 or not arcvsa or "version" not in answer:
        snippet = body[:80].decode(errors="replace").strip() or "an empty body"
        what = (
            f"HTTP {response.status}" if response.status != 200 else f"not arcvsa's health answer: {snippet}"
        )
        return seen("wrong", f"GET https://{endpoint}/api/health answered {what}")
    version = str(answer["version"])
    if answer["status"] != "ok":
        return seen("starting", f"its api reports status {answer['status']!r}", version)
    firstboot = answer.get("firstboot") if isinstance(answer.get("firstboot"), dict) else {}
    state = firstboot.get("status")
    if state in ("refused", "failed"):
        errors = "; ".join(
            f"{e.get('label') or e.get('key') or 'environment'}: {e.get('message')}"
            for e in firstboot.get("errors") or []
            if isinstance(e, dict)
        )
        return seen(
            "setup", f"first boot {state} its OVF properties ({errors or 'no detail given'})", version
        )
    if state == "pending":
        return seen("starting", "its first boot has not finished", version)
    return seen("healthy", f"api healthy (arcvsa {version})", version)


def look(endpoint: str, pin: str | None, timeout: float = LOOK_TIMEOUT) -> Look:
    """One look at the endpoint: TLS (pinned, or the certificate it presents now), then /api/health."""
    subject = None
    if pin is None:
        host, port = split_endpoint(endpoint)
        try:
            info = fetch_certificate(host, port, timeout)
        except VCenterError as fault:  # fetch_certificate keeps the transport error as the cause
            return _transport(fault.__cause__ or fault, endpoint, None, timeout)
        pin, subject = info.thumbprint_sha256, info.subject
    return _health(endpoint, pin, subject, timeout)


def endpoint_of(spec: ApplianceSpec) -> str | None:
    """host:port of the appliance api: the plan's override, else its static address on 443."""
    if spec.api_endpoint:
        return spec.api_endpoint
    address = spec.properties.get("ipv4_address")
    return f"{address}:443" if address else None


def _no_guest_ip() -> str | None:
    return None


@dataclass
class HealthWait:
    """How one appliance's health wait runs: how long each kind of answer may last, whom it tells."""

    boot_s: float  # nothing answers yet: the appliance may still be booting this long
    say: Callable[[str], None] = lambda words: None
    cancelled: cancel.Switch = cancel.never
    guest_ip: Callable[[], str | None] = field(default=_no_guest_ip)  # what vCenter's tools report
    refused_s: float = REFUSED_S
    silent_s: float = SILENT_S
    wrong_looks: int = WRONG_LOOKS
    interval: float = 2.0
    say_every: float = SAY_EVERY
    look_timeout: float = LOOK_TIMEOUT  # one look's connect, handshake and answer


#: (appliance, how to wait) → the pinned thumbprint when healthy; raises an ApplianceUnhealthy otherwise
HealthProbe = Callable[[ApplianceSpec, HealthWait], str]


class _Waiting:
    """The state of one wait: when each condition began, what was said."""

    def __init__(self, spec: ApplianceSpec, endpoint: str, wait: HealthWait) -> None:
        self.spec, self.endpoint, self.wait = spec, endpoint, wait
        self.started = time.monotonic()
        self.refused_since: float | None = None
        self.guest_up: float | None = None
        self.guest: str | None = None
        self.wrong = 0
        self.said_at = self.started
        self.said_tls = False

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def watch_guest(self) -> None:
        """Note when vCenter first reports the guest's address, and say it."""
        if self.guest is not None:
            return
        try:
            ip = self.wait.guest_ip()
        except Exception:  # vCenter's guest info is a hint: the probe decides
            ip = None
        if ip:
            self.guest, self.guest_up = ip, time.monotonic()
            self.wait.say(f"address seen: {ip} (vCenter reports the guest's IP)")

    def judge(self, seen: Look) -> None:
        """Raise the error for `seen` once it has lasted too long; remember when it began otherwise."""
        name, endpoint, wait = self.spec.name, self.endpoint, self.wait
        if seen.thumbprint and not self.said_tls and seen.kind not in ("changed", "wrong"):
            self.said_tls = True
            wait.say(f"TLS answered at {endpoint}: certificate SHA-256 {seen.thumbprint}")
        if seen.kind == "healthy":
            return
        if seen.kind == "changed":
            assert seen.thumbprint is not None
            raise ApplianceCertificateMismatch(
                f"{name}: {seen.words}, not the one pinned for this appliance "
                f"({self.spec.api_thumbprint_sha256}). Another machine may hold its address, or the "
                "appliance was deployed again and made a new certificate: if you trust the new one, clear "
                "the appliance's thumbprint in the plan and resume.",
                thumbprint=seen.thumbprint,
            )
        if seen.kind == "setup":
            raise ApplianceSetupRefused(
                f"{name}: the VM booted, but {seen.words}. Correct those values in the plan, then destroy "
                "this appliance's VM and deploy again: an appliance reads its OVF properties at first boot only."
            )
        self.wrong = self.wrong + 1 if seen.kind == "wrong" else 0
        if self.wrong >= wait.wrong_looks:
            cert = f" Its certificate is for {seen.subject}." if seen.subject else ""
            raise NotAnAppliance(
                f"{name}: {endpoint} is not an arcvsa appliance's api: {seen.words} ({self.wrong} looks in "
                f"a row).{cert} Another service holds this address or port: correct the appliance's address "
                "(its ipv4_address, or the api address) in the plan, then resume."
            )
        now = time.monotonic()
        self.refused_since = (self.refused_since or now) if seen.kind == "refused" else None
        if self.refused_since is not None and now - self.refused_since >= min(wait.refused_s, wait.boot_s):
            raise ApplianceRefusing(
                f"{name}: {endpoint} has refused connections for {now - self.refused_since:.0f} s: a machine "
                "answers at that address but no arcvsa api listens there. Check that the address is this "
                "appliance's and not another machine's; if it is, open the VM's console in vSphere: its api "
                "service did not start."
            )
        if seen.kind == "silent" and self.guest_up is not None and now - self.guest_up >= wait.silent_s:
            raise ApplianceNotAnswering(
                f"{name}: vCenter reports the VM running at {self.guest}, but {seen.words} after "
                f"{now - self.guest_up:.0f} s. Check that {endpoint} is that address, and that no firewall "
                "between this manager and the appliance drops port 443."
            )
        if self.elapsed() >= wait.boot_s:
            cls = ApplianceNotAnswering if seen.kind == "silent" else ApplianceUnhealthy
            raise cls(
                f"{name}: {endpoint} not healthy after {wait.boot_s:g} s ({seen.words}). Open the VM's console "
                "in vSphere: if it is still booting, raise the boot wait (fleet.health_timeout_s) and resume; if "
                "it booted, check its network (port group and address) and that this manager can reach it."
            )

    def report(self, seen: Look) -> None:
        """Say what the wait sees, every say_every seconds."""
        if time.monotonic() - self.said_at < self.wait.say_every:
            return
        self.said_at = time.monotonic()
        self.wait.say(f"waiting for its api: {seen.words} ({self.elapsed():.0f} s of {self.wait.boot_s:g} s)")


def wait_healthy(spec: ApplianceSpec, wait: HealthWait) -> str:
    """The default HealthProbe: look at https://endpoint/api/health until it says ok; the pinned thumbprint.

    Without a thumbprint in the plan, the certificate the endpoint presents is pinned once it is healthy.
    Raises Cancelled within a second of a cancel, and one ApplianceUnhealthy per reason (see above).
    """
    endpoint = endpoint_of(spec)
    if endpoint is None:
        raise ApplianceUnhealthy(
            f"{spec.name}: the plan gives no address to reach its api: set its static ipv4_address "
            "(or an api address)",
            field="fleet.appliances",
        )
    state = _Waiting(spec, endpoint, wait)
    state.watch_guest()
    if state.guest is None:
        given = "the plan's api address" if spec.api_endpoint else "the plan's address"
        wait.say(f"probing its api at {endpoint}, {given} (vCenter reports no guest IP yet)")
    what = f"while waiting for {spec.name}'s api"
    while True:
        cancel.check(wait.cancelled, what)
        seen = look(endpoint, spec.api_thumbprint_sha256, wait.look_timeout)
        if seen.kind != "healthy":
            state.report(seen)
        state.judge(seen)
        if seen.kind == "healthy":
            wait.say(seen.words)
            assert seen.thumbprint is not None
            return seen.thumbprint
        cancel.sleep(wait.interval, wait.cancelled, what)
        state.watch_guest()
