"""Plans and vcsim helpers shared by the provisioning tests."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pyVmomi import vim

from lab.vcsim import CLUSTER, DATACENTER, DATASTORES, GOLDEN_SNAPSHOT, GOLDEN_VM, Vcsim, wait_for_task
from provisioning import session
from provisioning.plan import DeploymentPlan

#: the NFS datastore the provisioning tests mount; vcsim backs a mount with a directory of its workdir
NFS = "arcvsa-nfs"


def login_for(sim: Vcsim, password: Callable[[], str] | None = None) -> Callable[[], vim.ServiceInstance]:
    """A login callable for apply/destroy; `password` lets a test change it mid-run."""
    if password is None:
        return functools.partial(
            session.login,
            sim.host,
            sim.port,
            sim.username,
            sim.password,
            thumbprint_sha256=sim.thumbprint_sha256,
        )
    return lambda: session.login(
        sim.host, sim.port, sim.username, password(), thumbprint_sha256=sim.thumbprint_sha256
    )


def pool_plan(name: str = "dep-a", **pool: Any) -> DeploymentPlan:
    spec = {
        "name": "pool-a",
        "count": 12,
        "naming": "vdi-a-###",
        "folder": "vdi/pool-a",
        "resource_pool": "rp-a",
        "golden_vm": GOLDEN_VM,
        "snapshot": GOLDEN_SNAPSHOT,
        "datastore": DATASTORES[0],
        "memory_mb": 2048,
        "vcpus": 1,
        **pool,
    }
    return DeploymentPlan.model_validate(
        {"name": name, "datacenter": DATACENTER, "cluster": CLUSTER, "pool": spec}
    )


def find(si: vim.ServiceInstance, path: str) -> Any:
    """An inventory object by path under the lab datacenter, e.g. 'vm/vdi/pool-a/vdi-a-001'."""
    index = si.RetrieveContent().searchIndex
    assert index is not None
    return index.FindByInventoryPath(f"{DATACENTER}/{path}")


def foreign_vm(si: vim.ServiceInstance, name: str, folder: str = "vm") -> vim.VirtualMachine:
    """A VM made by someone else (no arcvsa marks) in `folder`."""
    dc, cluster = find(si, ""), find(si, f"host/{CLUSTER}")
    spec = vim.vm.ConfigSpec(
        name=name,
        guestId="otherGuest",
        numCPUs=1,
        memoryMB=128,
        files=vim.vm.FileInfo(vmPathName=f"[{DATASTORES[1]}]"),
    )
    target = find(si, folder) or dc.vmFolder
    vm = wait_for_task(si, target.CreateVM_Task(spec, cluster.resourcePool), 30)
    assert isinstance(vm, vim.VirtualMachine)
    return vm


def golden_clone(si: vim.ServiceInstance, name: str, folder: str = "vm") -> vim.VirtualMachine:
    """A clone of the lab's golden VM made outside arcvsa (no marks) in `folder`."""
    spec = vim.vm.CloneSpec(location=vim.vm.RelocateSpec())
    task = find(si, f"vm/{GOLDEN_VM}").CloneVM_Task(folder=find(si, folder), name=name, spec=spec)
    vm = wait_for_task(si, task, 30)
    assert isinstance(vm, vim.VirtualMachine)
    return vm


def owner_of(vm: Any) -> dict[str, str]:
    """{custom attribute name: value} of an object, read directly (not through arcvsa's reader)."""
    content = vm._stub and vim.ServiceInstance("ServiceInstance", vm._stub).RetrieveContent()
    names = {f.key: f.name for f in content.customFieldsManager.field or []}
    return {names[v.key]: v.value for v in vm.customValue or []}


def first_contacts(monkeypatch: Any, module: Any) -> list[float]:
    """The timeouts `module` gives first_contact (the real one still runs), in call order."""
    seen: list[float] = []
    real = module.first_contact

    def spy(endpoint: str, timeout: float, name: str = "") -> Any:
        seen.append(timeout)
        return real(endpoint, timeout, name)

    monkeypatch.setattr(module, "first_contact", spy)
    return seen
