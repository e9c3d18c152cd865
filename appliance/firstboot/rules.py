"""Rules between properties, which no one property's qualifiers or format can state.

A rule reads the values as given (defaults for the absent ones: every property has a value) and checks each of its properties
with that property's own format first: a value refused on its own is not blamed a second time, and a
refusal elsewhere does not hide this one (an admin corrects every property in one go).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import TypeAdapter, ValidationError

from appliance.firstboot import formats
from appliance.firstboot.errors import FieldError
from ovf.properties import PropertySpec


def fqdn_names_the_host(values: Mapping[str, str], specs: Mapping[str, PropertySpec]) -> list[FieldError]:
    """The FQDN's first label is the host name: the hosts file and the certificate name one machine."""
    if "fqdn" not in specs:  # a catalogue of tests' own
        return []
    try:
        fqdn, hostname = formats.fqdn(values["fqdn"]), formats.hostname(values["hostname"])
    except ValueError:
        return []
    first = fqdn.partition(".")[0]
    if not fqdn or not hostname or first == hostname:
        return []
    message = (
        f"starts with {first!r}, not with the host name {hostname!r}: "
        f"it must be the host name followed by its domain, like {hostname}.example.com"
    )
    return [FieldError("fqdn", specs["fqdn"].label, message)]


def root_login_needs_a_key(values: Mapping[str, str], specs: Mapping[str, PropertySpec]) -> list[FieldError]:
    """root's SSH login takes the SSH public key: asked for without one, it would let nobody in."""
    if "ssh_root_login" not in specs:  # a catalogue of tests' own
        return []
    try:
        wanted = TypeAdapter(bool).validate_python(values["ssh_root_login"])
    except ValidationError:  # refused on its own already
        return []
    if not wanted or values["ssh_authorized_key"].strip():
        return []
    message = "is on, but no SSH public key (ssh_authorized_key) is given for root to log in with"
    return [FieldError("ssh_root_login", specs["ssh_root_login"].label, message)]


RULES = (fqdn_names_the_host, root_login_needs_a_key)


def cross_errors(values: Mapping[str, str], specs: Mapping[str, PropertySpec]) -> list[FieldError]:
    """Every rule's refusals."""
    return [error for rule in RULES for error in rule(values, specs)]
