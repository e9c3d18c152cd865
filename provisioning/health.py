"""Wait for an appliance's api to answer /api/health with status 'ok'.

vcsim runs no guests, so in the lab the address of the lab appliance (or any arcvsa api) stands in for the
VM's: the plan carries the endpoint to probe and, optionally, the thumbprint of its certificate. Without
one, the certificate the appliance presents on first contact is pinned (its own, made at first boot) and
returned, for the caller to record and to use for every later call.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable

from provisioning.appliance_api import first_contact, split_endpoint
from provisioning.certificate import pinned_context, verified_context
from provisioning.errors import VCenterError
from provisioning.plan import ApplianceSpec

#: (appliance, seconds allowed) → the pinned thumbprint when healthy; raises ApplianceUnhealthy otherwise
HealthProbe = Callable[[ApplianceSpec, float], str]


class ApplianceUnhealthy(VCenterError):
    """The appliance's api did not report healthy in time."""


def endpoint_of(spec: ApplianceSpec) -> str | None:
    """host:port of the appliance api: the plan's override, else its static address on 443."""
    if spec.api_endpoint:
        return spec.api_endpoint
    address = spec.properties.get("ipv4_address")
    return f"{address}:443" if address else None


def check_once(endpoint: str, thumbprint: str | None, timeout: float) -> str:
    """'' when healthy, else why not."""
    host, port = split_endpoint(endpoint)
    ctx = pinned_context(thumbprint) if thumbprint else verified_context()
    conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=timeout)
    try:
        conn.request("GET", "/api/health")
        response = conn.getresponse()
        body = response.read(64 * 1024)
    except (OSError, http.client.HTTPException) as exc:  # refused, reset, TLS: still booting
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    if response.status != 200:
        return f"HTTP {response.status}"
    try:
        status = json.loads(body).get("status")
    except (ValueError, AttributeError):
        return "not JSON"
    return "" if status == "ok" else f"status {status!r}"


def wait_healthy(spec: ApplianceSpec, timeout: float, *, interval: float = 2.0) -> str:
    """The default HealthProbe: poll https://endpoint/api/health until it says ok; the pinned thumbprint.

    Without a thumbprint in the plan, the first certificate the endpoint presents is pinned.
    """
    endpoint = endpoint_of(spec)
    if endpoint is None:
        raise ApplianceUnhealthy(
            f"{spec.name}: no api endpoint or static ipv4_address to check", field="fleet"
        )
    deadline = time.monotonic() + timeout
    pin = spec.api_thumbprint_sha256
    while True:
        if pin is None:
            try:
                pin = first_contact(endpoint, min(10.0, timeout))
            except VCenterError as exc:  # nothing answers TLS yet: still booting
                why = str(exc)
        if pin is not None:
            why = check_once(endpoint, pin, min(10.0, timeout))
            if not why:
                return pin
        if time.monotonic() + interval > deadline:
            raise ApplianceUnhealthy(f"{spec.name}: {endpoint} not healthy after {timeout:g} s ({why})")
        time.sleep(interval)
