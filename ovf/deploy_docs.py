"""The command-line deploys in docs/deploy.md (ovftool, govc, PowerCLI), rendered from the property
catalogue and the deployment options.

The rendered text replaces what lies between BEGIN and END in docs/deploy.md; `is_stale` tells when
the committed block is not what this module renders, so the documented commands name exactly the
properties and sizes the OVA declares. Site names are CAPITALS for the admin to replace.
"""

from __future__ import annotations

import json
import re
import shlex
import textwrap

from ovf.errors import OvfError
from ovf.hardware import VirtualHardware
from ovf.properties import PropertyCatalogue, PropertySpec

BEGIN = "<!-- generated: python -m ovf deploy-docs -->"
END = "<!-- end generated -->"
REGENERATE = "make deploy-docs"

OVA = "arcvsa-VERSION.ova"
VM_NAME = "arcvsa-01"
SITE = {
    "VCENTER": "the vCenter's address",
    "VCENTER_USER": "a vCenter user allowed to deploy",
    "DATACENTER": "the datacenter",
    "CLUSTER": "the cluster",
    "ESXI_HOST": "the host the appliance serves",
    "DATASTORE": "the datastore for its boot disk",
    "PORTGROUP": "the management port group (the web interface; NFS and iSCSI too without a storage network)",
    "STORAGE_PORTGROUP": "the port group of the hosts' storage VMkernel ports (PORTGROUP again without one)",
}
OPTIONS_FILE = "arcvsa-options.json"
GOVC_IMPORT = (
    *("import.ova", "-options", OPTIONS_FILE, "-pool", "/DATACENTER/host/CLUSTER/Resources"),
    *("-host", "ESXI_HOST", "-ds", "DATASTORE", OVA),
)
WIDTH = 105


class DeployDocsInvalid(OvfError):
    """The document has no single BEGIN ... END block, or a value cannot be written in a command."""


def _settable(catalogue: PropertyCatalogue) -> list[PropertySpec]:
    """What the tools let an admin set: vSphere hides properties that are not user-configurable."""
    return [p for p in catalogue.properties if p.user_configurable]


def _secrets(catalogue: PropertyCatalogue) -> list[PropertySpec]:
    return [p for p in _settable(catalogue) if p.password]


def _value(spec: PropertySpec) -> str:
    """The value the examples show: the default (vSphere takes booleans as True/False only)."""
    value = spec.default or ""
    return value.title() if spec.type == "boolean" else value


def _variable(spec: PropertySpec) -> str:
    """The shell variable that holds a secret between its prompt and the file that needs it."""
    return f"ARCVSA_{spec.key.upper()}"


def _read_secrets(catalogue: PropertyCatalogue) -> list[str]:
    return [
        f"read -rs -p {shlex.quote(f'{p.key} ({p.label}): ')} {_variable(p)}; echo"
        for p in _secrets(catalogue)
    ]


def _unset_secrets(catalogue: PropertyCatalogue) -> str:
    return "".join(f"; unset {_variable(p)}" for p in _secrets(catalogue))


def _default_option(hw: VirtualHardware) -> str:
    return next(o.id for o in hw.options if o.default)


def _ovftool(catalogue: PropertyCatalogue, hw: VirtualHardware) -> str:
    secrets = _secrets(catalogue)
    fmt = "".join(f"prop:{p.key}=%s\\n" for p in secrets)
    values = " ".join(f'"${_variable(p)}"' for p in secrets)
    args = [
        f"--name={VM_NAME}",
        "--datastore=DATASTORE",
        "--diskMode=thin",
        f"--net:{hw.network_name}=PORTGROUP",
        f"--net:{hw.storage_network_name}=STORAGE_PORTGROUP",
        f"--deploymentOption={_default_option(hw)}",
        *(f"--prop:{p.key}={_value(p)}" for p in _settable(catalogue) if not p.password),
        *(["--configFile=arcvsa-secrets.cfg"] if secrets else []),
        OVA,
        "vi://VCENTER_USER@VCENTER/DATACENTER/host/CLUSTER/ESXI_HOST",
    ]
    command = "ovftool " + " \\\n  ".join(shlex.quote(a) for a in args)
    if not secrets:
        return command
    return "\n".join(
        [
            *_read_secrets(catalogue),
            f"(umask 077; printf '{fmt}' {values} > arcvsa-secrets.cfg)",
            command,
            "rm -f arcvsa-secrets.cfg" + _unset_secrets(catalogue),
        ]
    )


def govc_options(
    catalogue: PropertyCatalogue, hw: VirtualHardware, secrets: dict[str, str]
) -> dict[str, object]:
    """The `govc import.ova -options` document: every settable property, in the shape `govc import.spec`
    prints. `secrets` gives each password property's value (the docs give a shell variable)."""
    return {
        "Deployment": _default_option(hw),
        "DiskProvisioning": "thin",
        "IPAllocationPolicy": "dhcpPolicy",
        "IPProtocol": "IPv4",
        "PropertyMapping": [
            {"Key": p.key, "Value": secrets[p.key] if p.password else _value(p)} for p in _settable(catalogue)
        ],
        "NetworkMapping": [
            {"Name": hw.network_name, "Network": "PORTGROUP"},
            {"Name": hw.storage_network_name, "Network": "STORAGE_PORTGROUP"},
        ],
        "MarkAsTemplate": False,
        "PowerOn": False,
        "InjectOvfEnv": False,
        "WaitForIP": False,
        "Name": VM_NAME,
    }


def _json_lines(options: dict[str, object]) -> list[str]:
    """JSON with one list item a line: a property per line reads better than json.dumps(indent=2)."""
    lines = ["{"]
    for i, (key, value) in enumerate(options.items()):
        comma = "," if i < len(options) - 1 else ""
        if isinstance(value, list):
            items = [f"    {json.dumps(item)}" for item in value]
            lines += [f"  {json.dumps(key)}: [", ",\n".join(items), f"  ]{comma}"]
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    return [*lines, "}"]


def _govc(catalogue: PropertyCatalogue, hw: VirtualHardware) -> str:
    # The options go through an unquoted here-document so that the shell fills in the secrets; a
    # default holding a character the shell expands there would change.
    for p in _settable(catalogue):
        if not p.password and set(_value(p)) & set("$`\\"):
            raise DeployDocsInvalid(f"{p.key}: a default with $, ` or \\ cannot go in the here-document")
    options = govc_options(catalogue, hw, {p.key: f"${_variable(p)}" for p in _secrets(catalogue)})
    return "\n".join(
        [
            "export GOVC_URL=VCENTER GOVC_USERNAME=VCENTER_USER GOVC_DATACENTER=DATACENTER",
            "read -rs -p 'vCenter password: ' GOVC_PASSWORD; echo; export GOVC_PASSWORD",
            f"govc import.spec {OVA} > spec.json",
            *_read_secrets(catalogue),
            f"(umask 077; cat > {OPTIONS_FILE}) <<EOF",
            *_json_lines(options),
            "EOF",
            f"govc {shlex.join(GOVC_IMPORT[:5])} \\\n  {shlex.join(GOVC_IMPORT[5:])}",
            f"rm -f {OPTIONS_FILE}" + _unset_secrets(catalogue),
        ]
    )


def _ps_quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _requirement(spec: PropertySpec) -> str:
    if spec.required:
        return "required"
    return ", ".join(f"required when {k} is {v}" for k, v in (spec.required_when or {}).items())


def _powercli(catalogue: PropertyCatalogue, hw: VirtualHardware) -> str:
    # Get-OvfConfiguration names a network after the OVF's, spaces and hyphens made underscores.
    network, storage = (re.sub(r"[ -]", "_", n) for n in (hw.network_name, hw.storage_network_name))
    lines = [
        "Connect-VIServer -Server VCENTER -Credential (Get-Credential)",
        f"$ovfConfig = Get-OvfConfiguration -Ovf .\\{OVA}",
        f"$ovfConfig.DeploymentOption.Value = {_ps_quote(_default_option(hw))}",
        f"$ovfConfig.NetworkMapping.{network}.Value = 'PORTGROUP'",
        f"$ovfConfig.NetworkMapping.{storage}.Value = 'STORAGE_PORTGROUP'",
    ]
    for p in _settable(catalogue):
        comment = "  # " + ", ".join(filter(None, [p.label, _requirement(p)]))
        if p.password:
            lines.append(f"$secret = Read-Host -AsSecureString -Prompt {_ps_quote(p.key)}{comment}")
            value = "[System.Net.NetworkCredential]::new('', $secret).Password"
            comment = ""
        elif p.type != "string" and _value(p).isdigit():
            value = _value(p)
        else:
            value = _ps_quote(_value(p))
        lines.append(f"$ovfConfig.Common.{p.key}.Value = {value}{comment}")
    lines += [
        f"Import-VApp -Source .\\{OVA} -OvfConfiguration $ovfConfig -Name {VM_NAME} `",
        "  -VMHost (Get-VMHost ESXI_HOST) -Datastore (Get-Datastore DATASTORE) -DiskStorageFormat Thin",
    ]
    return "\n".join(lines)


def _prose(catalogue: PropertyCatalogue, hw: VirtualHardware) -> str:
    settable = _settable(catalogue)
    site = "; ".join(f"`{name}`, {meaning}" for name, meaning in SITE.items())
    sizes = "; ".join(
        f"`{o.id}`{' (the default)' if o.default else ''}, {o.vcpus} vCPU and {o.memory_mb // 1024} GiB RAM"
        for o in hw.options
    )
    required = ", ".join(f"`{p.key}`" for p in settable if p.required)
    conditional = "".join(
        f"; `{p.key}` when `{k}` is `{v}`" for p in settable for k, v in (p.required_when or {}).items()
    )
    secrets = ", ".join(f"`{p.key}`" for p in _secrets(catalogue))
    paragraphs = [
        f"Each form sets every property, here to its default: change what your site needs. Replace {site};"
        f" `VERSION` is the OVA's. The sizes (deployment options) are {sizes}. Required: {required}"
        f"{conditional}.",
        f"The secrets ({secrets}) are typed at a prompt that does not echo: they stay out of the shell"
        " history and off every command line, where other users of the machine could read them.",
    ]
    return "\n\n".join(textwrap.fill(p, WIDTH, break_on_hyphens=False) for p in paragraphs)


def _section(title: str, intro: str, language: str, body: str) -> str:
    text = textwrap.fill(intro, WIDTH, break_on_hyphens=False) + "\n\n" if intro else ""
    return f"#### {title}\n\n{text}```{language}\n{body}\n```"


def render_block(catalogue: PropertyCatalogue, hw: VirtualHardware) -> str:
    """The Markdown between BEGIN and END, without the markers."""
    ovftool = (
        "A `--prop:` value is on ovftool's command line, so the secrets go in an ovftool configuration file"
        " (`--configFile`, one `prop:KEY=VALUE` a line) that only its owner can read, removed afterwards."
        " ovftool asks for the vCenter password; write an `@` in the user name as `%40`."
    )
    govc = (
        "`govc import.spec` prints what the OVA asks for, with its defaults; the options file is that"
        ' document filled in, with mode 0600, removed afterwards. Write a `"` in a secret as `\\"` and a'
        " `\\` as `\\\\` (JSON)."
    )
    power = (
        "None of the three powers the appliance on: add its disks first (below), then power it on (vSphere"
        f" Client, `govc vm.power -on {VM_NAME}` or `Start-VM {VM_NAME}`)."
    )
    return "\n\n".join(
        [
            _prose(catalogue, hw),
            _section("ovftool", ovftool, "sh", _ovftool(catalogue, hw)),
            _section("govc", govc, "sh", _govc(catalogue, hw)),
            _section("PowerCLI", "", "powershell", _powercli(catalogue, hw)),
            textwrap.fill(power, WIDTH, break_on_hyphens=False),
        ]
    )


def splice(document: str, block: str) -> str:
    """`document` with the text between its one BEGIN and END replaced by `block`."""
    if document.count(BEGIN) != 1 or document.count(END) != 1 or document.index(BEGIN) > document.index(END):
        raise DeployDocsInvalid(f"expected exactly one {BEGIN} ... {END} block")
    head, rest = document.split(BEGIN)
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{block}\n{END}{tail}"


def is_stale(document: str, catalogue: PropertyCatalogue, hw: VirtualHardware) -> bool:
    """True when the document's block is not what the catalogue and the options render."""
    return splice(document, render_block(catalogue, hw)) != document
