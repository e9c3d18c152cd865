"""The ownership marks (provisioning.ownership) against vcsim: which custom attributes are ours, defining them
only when asked, recording values on an object, and reading them back by name."""

from __future__ import annotations

from typing import Any

import pytest
from pyVmomi import vim
from support.provisioning import find, foreign_vm, owner_of

from lab.vcsim import Vcsim
from provisioning import ownership

pytestmark = pytest.mark.integration

NAMES = ("arcvsa.owner", "arcvsa.source", "arcvsa.storage")


def definitions(content: Any) -> list[tuple[str, Any]]:
    return sorted((f.name, f.managedObjectType) for f in content.customFieldsManager.field or [])


class LateManager:
    """The real field manager, whose first listing is the one read before another apply defined the fields."""

    def __init__(self, manager: Any, first: list[Any]) -> None:
        self.manager, self.first, self.reads = manager, first, 0

    @property
    def field(self) -> list[Any]:
        self.reads += 1
        return self.first if self.reads == 1 else self.manager.field

    def AddCustomFieldDef(self, **kwargs: Any) -> Any:
        return self.manager.AddCustomFieldDef(**kwargs)


class Content:
    def __init__(self, manager: Any) -> None:
        self.customFieldsManager = manager


def test_the_marks_are_defined_once_for_every_type_and_read_back_by_name(
    site: Vcsim, si: vim.ServiceInstance
) -> None:
    content = si.RetrieveContent()
    manager = content.customFieldsManager
    # someone else's attribute, and one of our names defined for VMs only: neither is ours
    manager.AddCustomFieldDef(name="cost-centre", moType=vim.ManagedEntity)
    manager.AddCustomFieldDef(name="arcvsa.owner", moType=vim.VirtualMachine)
    assert ownership.field_keys(content, define=False) == {}, "looking defines nothing"
    assert ownership.field_keys(content, ("arcvsa.owner",), define=False) == {}
    assert len(manager.field) == 2

    keys = ownership.field_keys(content)
    assert sorted(keys) == list(NAMES)
    ours = {f.name: f for f in manager.field if f.key in keys.values()}
    assert {n: f.key for n, f in ours.items()} == keys
    assert {f.managedObjectType for f in ours.values()} == {vim.ManagedEntity}
    assert ownership.field_keys(content) == keys and len(manager.field) == 5, "defined once"
    assert ownership.field_keys(content, define=False) == keys
    assert ownership.field_keys(content, ("arcvsa.source",)) == {"arcvsa.source": keys["arcvsa.source"]}
    late = LateManager(manager, first=[])  # listed before a concurrent apply defined them: vCenter refuses
    assert ownership.field_keys(Content(late)) == keys and len(manager.field) == 5

    vm = foreign_vm(si, "marked")
    ownership.mark(content, keys, vm, owner="dep", source="golden@base", storage="tank/vdi NFS 3")
    assert owner_of(vm) == {
        "arcvsa.owner": "dep",
        "arcvsa.source": "golden@base",
        "arcvsa.storage": "tank/vdi NFS 3",
    }
    folder = find(si, "vm")
    ownership.mark(content, keys, folder, owner="dep")
    assert owner_of(folder) == {"arcvsa.owner": "dep"}, "any entity takes the marks"
    assert ownership.values_of(vm.customValue, keys) == owner_of(vm)
    assert ownership.values_of(vm.customValue, {"arcvsa.owner": keys["arcvsa.owner"]}) == {
        "arcvsa.owner": "dep"
    }


def test_values_are_read_by_key_and_foreign_keys_ignored() -> None:
    value = vim.CustomFieldsManager.StringValue
    keys = {"arcvsa.owner": 3, "arcvsa.source": 4}
    found = [value(key=3, value="dep"), value(key=99, value="theirs"), value(key=4, value="g@s")]
    assert ownership.values_of(found, keys) == {"arcvsa.owner": "dep", "arcvsa.source": "g@s"}
    assert ownership.values_of(None, keys) == {}
    assert ownership.values_of([value(key=99, value="theirs")], keys) == {}
