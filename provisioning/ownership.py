"""Ownership marks: which deployment created an object, recorded on the object itself in vCenter.

Custom attributes (CustomFieldsManager) rather than annotations: users edit notes freely, and a custom
attribute is readable in the same PropertyCollector retrieval as the rest (`customValue`). destroy and
shrink only ever touch objects whose owner attribute names their deployment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyVmomi import vim

OWNER = "arcvsa.owner"
#: on desktops: the golden VM and snapshot they were cloned from ('golden@base'), for recompose
SOURCE = "arcvsa.source"
#: on appliances: the storage they serve, as provisioning.appliance_api.signature words it
STORAGE = "arcvsa.storage"
#: a field for every entity type; vcsim answers a type-less (None) definition with an unreadable one
_TYPES = (None, vim.ManagedEntity)


def field_keys(
    content: Any, names: Iterable[str] = (OWNER, SOURCE, STORAGE), *, define: bool = True
) -> dict[str, int]:
    """The keys of our custom attributes; `define` adds those that are missing (global: every type).

    `plan` reads with define=False: looking must change nothing.
    """
    manager = content.customFieldsManager
    known = {
        f.name: f.key for f in (manager.field or []) if f.managedObjectType in _TYPES and f.name in names
    }
    for name in names if define else ():
        if name not in known:
            try:
                known[name] = manager.AddCustomFieldDef(name=name, moType=vim.ManagedEntity).key
            except vim.fault.DuplicateName:  # a concurrent apply defined it first
                known.update({f.name: f.key for f in manager.field or [] if f.name == name})
    return known


def mark(content: Any, keys: dict[str, int], entity: Any, **values: str) -> None:
    """Record `values` (owner=..., source=..., storage=...) on `entity`."""
    names = {"owner": OWNER, "source": SOURCE, "storage": STORAGE}
    for arg, value in values.items():
        content.customFieldsManager.SetField(entity=entity, key=keys[names[arg]], value=value)


def values_of(custom_values: Any, keys: dict[str, int]) -> dict[str, str]:
    """{attribute name: value} from a retrieved `customValue` list (pure)."""
    by_key = {v: k for k, v in keys.items()}
    return {by_key[c.key]: c.value for c in custom_values or [] if c.key in by_key}
