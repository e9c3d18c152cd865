"""XML namespaces of an OVF 1.x envelope, registered with ElementTree under their usual prefixes.

We write OVF 1.x (the envelope/1 namespace, DSP0243 1.1): every vSphere release, ovftool and
govmomi import it, and we use nothing that OVF 2.0 added.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

OVF = "http://schemas.dmtf.org/ovf/envelope/1"
RASD = "http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData"
VSSD = "http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData"
VMW = "http://www.vmware.com/schema/ovf"
XML = "http://www.w3.org/XML/1998/namespace"
ENV = "http://schemas.dmtf.org/ovf/environment/1"
VMW_ENV = "http://www.vmware.com/schema/ovfenv"

PREFIXES: dict[str, str] = {"ovf": OVF, "rasd": RASD, "vssd": VSSD, "vmw": VMW}

ENV_PREFIXES: dict[str, str] = {"oe": ENV, "ve": VMW_ENV}

for _prefix, _uri in (PREFIXES | ENV_PREFIXES).items():
    ET.register_namespace(_prefix, _uri)


def q(ns: str, name: str) -> str:
    """ElementTree's qualified name: {namespace}name."""
    return f"{{{ns}}}{name}"
