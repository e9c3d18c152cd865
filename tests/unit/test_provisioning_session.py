"""API version negotiation: the pure parts of session.py."""

from __future__ import annotations

import pytest

from provisioning.session import choose_version, supported_versions

VCSIM = b"""<?xml version="1.0" encoding="UTF-8"?>
<namespaces version="1.0">
 <namespace>
  <name>urn:vim25</name>
  <version>6.5</version>
  <priorVersions><version>6.0</version><version>5.5</version></priorVersions>
 </namespace>
</namespaces>
"""

VCENTER_8 = b"""<?xml version="1.0" encoding="UTF-8" ?>
<namespaces version="1.0">
  <namespace>
    <name>urn:vim25</name>
    <version>8.0.3.0</version>
    <priorVersions>
      <version>8.0.2.0</version><version>8.0.1.0</version><version>7.0.3.0</version><version>6.7</version>
    </priorVersions>
  </namespace>
  <namespace>
    <name>urn:vsan</name>
    <version>9.9.9.9</version>
  </namespace>
</namespaces>
"""


def test_versions_are_read_from_the_vim25_namespace_only() -> None:
    assert supported_versions(VCSIM) == {"6.5", "6.0", "5.5"}
    assert "9.9.9.9" not in supported_versions(VCENTER_8)
    assert {"8.0.3.0", "6.7"} <= supported_versions(VCENTER_8)


@pytest.mark.parametrize(
    "document",
    [b"<html><body>It works!</body></html>", b"not xml at all", b"<namespaces version='1.0'/>"],
)
def test_anything_else_is_not_a_version_list(document: bytes) -> None:
    with pytest.raises(ValueError):
        supported_versions(document)


def test_the_newest_common_version_is_chosen() -> None:
    assert choose_version({"6.5", "6.0", "5.5"}) == "vim.version.version11"
    assert choose_version({"8.0.3.0", "8.0.2.0", "6.7"}) == "vim.version.v8_0_3_0"


def test_no_common_version_is_an_error() -> None:
    with pytest.raises(ValueError, match="no API version in common"):
        choose_version({"1.0"})
