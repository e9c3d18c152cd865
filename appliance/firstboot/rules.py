"""Rules between properties, which no one property's qualifiers or format can state.

Each rule runs on values that passed their own checks, and refuses with the key an admin must change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from appliance.firstboot.errors import FieldError
from ovf.properties import PropertySpec


def fqdn_names_the_host(values: Mapping[str, Any], specs: Mapping[str, PropertySpec]) -> list[FieldError]:
    """The FQDN's first label is the host name: the hosts file and the certificate name one machine."""
    if "fqdn" not in specs:  # a catalogue of tests' own
        return []
    fqdn, hostname = values.get("fqdn") or "", values.get("hostname") or ""
    first = fqdn.split(".", 1)[0]
    if not fqdn or first == hostname:
        return []
    message = (
        f"starts with {first!r}, not with the host name {hostname!r}: "
        f"it must be the host name followed by its domain, like {hostname}.example.com"
    )
    return [FieldError("fqdn", specs["fqdn"].label, message)]


RULES = (fqdn_names_the_host,)


def cross_errors(values: Mapping[str, Any], specs: Mapping[str, PropertySpec]) -> list[FieldError]:
    """Every rule's refusals."""
    return [error for rule in RULES for error in rule(values, specs)]
