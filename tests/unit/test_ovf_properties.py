"""properties.yaml: the single source of the vApp properties, checked when it is loaded."""

from __future__ import annotations

import pydantic
import pytest
import yaml

from ovf.properties import PropertyCatalogue, load_catalogue, parse_catalogue


def test_catalogue_has_the_properties_the_issue_names() -> None:
    keys = [p.key for p in load_catalogue().properties]
    assert keys == [
        "hostname",
        "fqdn",
        "role",
        "admin_password",
        "ssh_authorized_key",
        "ssh_root_login",
        "ntp_servers",
        "ipv4_mode",
        "ipv4_address",
        "ipv4_prefix",
        "ipv4_gateway",
        "dns_servers",
        "dns_search",
        "management_networks",
        "storage_mode",
        "storage_address",
        "storage_prefix",
        "storage_mtu",
        "nfs_backend",
    ]


def test_every_property_is_labelled_and_described() -> None:
    for spec in load_catalogue().properties:
        assert spec.label.strip() and len(spec.description) > 20, spec.key


def test_password_has_no_default_and_is_masked() -> None:
    spec = load_catalogue().by_key()["admin_password"]
    assert spec.password and spec.default is None and spec.min_len == 8


@pytest.mark.parametrize(
    ("key", "qualifiers"),
    [
        ("hostname", "MinLen(1),MaxLen(63)"),
        ("nfs_backend", 'ValueMap{"ganesha","knfsd"}'),
        ("role", 'ValueMap{"appliance","manager"}'),
        ("ipv4_prefix", "MinValue(1),MaxValue(32)"),
        ("fqdn", "MaxLen(254)"),
        ("dns_search", "MaxLen(1024)"),
    ],
)
def test_qualifiers_render_as_vmware_writes_them(key: str, qualifiers: str) -> None:
    assert load_catalogue().by_key()[key].qualifiers() == qualifiers


def _entry(**extra: object) -> dict[str, object]:
    return {"key": "x", "category": "C", "type": "string", "label": "X", "description": "about x", **extra}


@pytest.mark.parametrize(
    ("properties", "message"),
    [
        ([_entry(), _entry()], "duplicate property keys"),
        ([_entry(choices=["a", "b"], default="c")], "is not one of"),
        ([_entry(password=True, default="secret")], "must not have a default"),
        ([_entry(type="uint8", max_len=3)], "apply to strings only"),
        ([_entry(type="int")], "Input should be"),
        ([_entry(key="Bad-Key")], "lower-case identifier"),
        ([_entry(required_when={"nope": "x"})], "unknown property"),
        ([_entry(), _entry(key="y", category="D"), _entry(key="z")], "category 'C' is split"),
    ],
)
def test_malformed_catalogue_is_refused(properties: list[dict[str, object]], message: str) -> None:
    with pytest.raises(pydantic.ValidationError, match=message):
        parse_catalogue(yaml.safe_dump({"properties": properties}))


def test_shipped_yaml_round_trips() -> None:
    catalogue = load_catalogue()
    assert PropertyCatalogue.model_validate(catalogue.model_dump()) == catalogue
