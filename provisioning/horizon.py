"""A client for the Horizon Connection Server REST API: hand an arcvsa pool to Horizon, either as an
automated desktop pool Horizon provisions itself (instant clones or full clones) on the arcvsa datastore
(`pool_spec`), or, as apply does once arcvsa made the desktops, as a manual pool of those very VMs
(`ensure_manual_pool`; destroy removes it again).

Written against the published OpenAPI description (Horizon Server API 2512) and tested against a fake
Connection Server that checks every request with that schema (lab.horizon_fake); it has not been run
against a real Connection Server. Horizon names vCenter objects by their managed object ids, so the ids
come straight from the live inventory arcvsa already reads.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from provisioning.certificate import pinned_context, verified_context
from provisioning.live import LiveState
from provisioning.plan import DesktopPoolSpec, HorizonSpec

API = "/rest"
CREATE_POOL = f"{API}/inventory/v12/desktop-pools"  # DesktopPoolCreateSpecV8
LIST_POOLS = f"{API}/inventory/v1/desktop-pools"


class HorizonError(Exception):
    """The Connection Server refused a request (status and its answer kept)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"Horizon answered HTTP {status}: {message}")
        self.status = status


class HorizonClient:
    """One logged-in conversation with a Connection Server over verified or pinned TLS."""

    def __init__(self, host: str, port: int, ctx: ssl.SSLContext, *, timeout: float = 30.0) -> None:
        self.host, self.port, self.ctx, self.timeout = host, port, ctx, timeout
        self.access_token: str | None = None
        self.refresh_token: str | None = None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One JSON request; raises HorizonError for an HTTP error status."""
        conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=self.timeout)
        headers = {"Accept": "application/json"}
        if self.access_token:
            headers["Authorization"] = f"Bearer {self.access_token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        if response.status >= 400:
            raise HorizonError(response.status, raw.decode(errors="replace")[:2000])
        return json.loads(raw) if raw else None

    def login(self, username: str, password: str, domain: str) -> None:
        # AuthLogin.password is an array of characters in the schema, so that it can be wiped after use
        tokens = self.request(
            "POST", f"{API}/login", {"username": username, "password": list(password), "domain": domain}
        )
        self.access_token, self.refresh_token = tokens["access_token"], tokens["refresh_token"]

    def logout(self) -> None:
        if self.refresh_token:
            self.request("POST", f"{API}/logout", {"refresh_token": self.refresh_token})
        self.access_token = self.refresh_token = None

    def vcenter_id(self, server_name: str) -> str:
        """Horizon's id of the vCenter it knows by `server_name`."""
        for vc in self.request("GET", f"{API}/config/v2/virtual-centers"):
            if vc.get("server_name") == server_name:
                return str(vc["id"])
        raise HorizonError(404, f"Horizon has no vCenter {server_name!r}")

    def desktop_pools(self) -> list[dict[str, Any]]:
        return list(self.request("GET", LIST_POOLS))

    def find_pool(self, name: str) -> dict[str, Any] | None:
        """The desktop pool of that name, or None."""
        return next((p for p in self.desktop_pools() if p.get("name") == name), None)

    def add_machines(self, pool_id: str, machine_ids: list[str]) -> None:
        """Add vCenter VMs (their moids, as Horizon lists them) to a manual pool."""
        self.request("POST", f"{API}/inventory/v1/desktop-pools/{pool_id}/action/add-machines", machine_ids)

    def remove_machines(self, pool_id: str, machine_ids: list[str]) -> None:
        """Take vCenter VMs (their moids) out of a manual pool; the VMs themselves stay in vCenter."""
        path = f"{API}/inventory/v1/desktop-pools/{pool_id}/action/remove-machines"
        self.request("POST", path, machine_ids)

    def delete_pool(self, pool_id: str) -> None:
        """Remove the pool from Horizon; a manual pool's VMs stay in vCenter."""
        self.request("DELETE", f"{API}/inventory/v1/desktop-pools/{pool_id}")

    def create_desktop_pool(self, spec: dict[str, Any]) -> str:
        """Create the pool; returns its Horizon id (the create answers 201 without a body)."""
        self.request("POST", CREATE_POOL, spec)
        for pool in self.desktop_pools():
            if pool.get("name") == spec["name"]:
                return str(pool["id"])
        raise HorizonError(500, f"pool {spec['name']!r} was created but is not listed")


def naming_pattern(pool: DesktopPoolSpec) -> str:
    """arcvsa's 'vdi-###' as Horizon writes it: 'vdi-{n:fixed=3}'."""
    return re.sub(r"#+", lambda m: f"{{n:fixed={len(m.group())}}}", pool.naming, count=1)


def pool_spec(
    pool: DesktopPoolSpec, live: LiveState, vcenter_id: str, *, instant: bool = True
) -> dict[str, Any]:
    """A DesktopPoolCreateSpecV8 for `pool` on the datastore it names (the arcvsa NFS datastore).

    instant: Horizon instant clones from the golden VM's snapshot; else full clones from the golden VM
    (Horizon wants a template there; marking the golden VM as one is left to the admin).
    """
    golden = live.vm(pool.golden_vm)
    assert golden is not None and live.cluster and live.root_pool
    provisioning: dict[str, Any] = {
        "datacenter_id": live.datacenter,
        "host_or_cluster_id": live.cluster,
        "resource_pool_id": live.pools.get(pool.resource_pool or "", live.root_pool),
        "vm_folder_id": live.folders.get(pool.folder, live.vm_folder),
        "compute_profile_num_cpus": pool.vcpus,
        "compute_profile_ram_mb": pool.memory_mb,
    }
    if instant:
        provisioning |= {"parent_vm_id": golden.moid, "base_snapshot_id": golden.snapshots[pool.snapshot]}
    else:
        provisioning["vm_template_id"] = golden.moid
    return {
        "name": pool.name,
        "display_name": pool.name,
        "type": "AUTOMATED",
        "source": "INSTANT_CLONE" if instant else "VIRTUAL_CENTER",
        "entra_sso_enabled": False,
        "enabled": True,
        "enable_provisioning": True,
        "user_assignment": "FLOATING" if pool.persistence == "stateless" else "DEDICATED",
        "vcenter_id": vcenter_id,
        "naming_method": "PATTERN",
        "pattern_naming_settings": {
            "naming_pattern": naming_pattern(pool),
            "max_number_of_machines": pool.count,
            "provisioning_time": "UP_FRONT",
        },
        "provisioning_settings": provisioning,
        "storage_settings": {"datastores": [{"datastore_id": live.datastores[pool.datastore].moid}]},
        "customization_settings": {"customization_type": "CLONE_PREP" if instant else "NONE"},
    }


def manual_pool_spec(
    pool: DesktopPoolSpec, name: str, vcenter_id: str, machines: list[str]
) -> dict[str, Any]:
    """A DesktopPoolCreateSpecV8 handing desktops arcvsa made (their vCenter moids) to Horizon as is."""
    return {
        "name": name,
        "display_name": pool.name,
        "type": "MANUAL",
        "source": "VIRTUAL_CENTER",
        "entra_sso_enabled": False,
        "enabled": True,
        "user_assignment": "FLOATING" if pool.persistence == "stateless" else "DEDICATED",
        "vcenter_id": vcenter_id,
        "machines": machines,
    }


def connect(spec: HorizonSpec, password: str, *, timeout: float = 30.0) -> HorizonClient:
    """A logged-in client over TLS pinned to the plan's thumbprint, else verified against the CA store."""
    host, _, port = spec.endpoint.rpartition(":")
    ctx = pinned_context(spec.thumbprint_sha256) if spec.thumbprint_sha256 else verified_context()
    client = HorizonClient(host.strip("[]"), int(port), ctx, timeout=timeout)
    client.login(spec.username, password, spec.domain)
    return client


@contextmanager
def session(spec: HorizonSpec, password: str, *, timeout: float = 30.0) -> Iterator[HorizonClient]:
    """A client logged in with connect() for the `with` block, logged out at its end whatever happens."""
    client = connect(spec, password, timeout=timeout)
    try:
        yield client
    finally:
        client.logout()


def ensure_manual_pool(
    client: HorizonClient, spec: HorizonSpec, pool: DesktopPoolSpec, machines: dict[str, str], new: set[str]
) -> str:
    """Create the manual pool with every desktop, or add the desktops made in this run; what was done.

    `machines`: desktop name → moid; `new`: the names made (or adopted) in this run.
    """
    name = spec.pool_name or pool.name
    found = client.find_pool(name)
    if found is None:
        vcenter_id = client.vcenter_id(spec.vcenter)
        client.create_desktop_pool(manual_pool_spec(pool, name, vcenter_id, sorted(machines.values())))
        return f"Horizon pool {name} created with {len(machines)} desktops"
    added = sorted(machines[n] for n in new if n in machines)
    if added:
        client.add_machines(str(found["id"]), added)
        return f"Horizon pool {name}: {len(added)} desktops added"
    return f"Horizon pool {name} in place already"


def release_machines(
    client: HorizonClient, spec: HorizonSpec, pool: DesktopPoolSpec, machines: dict[str, str]
) -> str:
    """Take desktops (name → moid) out of the manual pool before they are destroyed; what was done.

    Horizon answers each machine on its own (a desktop it never had is a 404 item, not a failure).
    """
    name = spec.pool_name or pool.name
    found = client.find_pool(name)
    if found is None:
        return f"Horizon pool {name} does not exist: nothing to remove"
    client.remove_machines(str(found["id"]), sorted(machines.values()))
    return f"Horizon pool {name}: {len(machines)} desktops removed"
