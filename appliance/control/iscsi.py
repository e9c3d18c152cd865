"""iSCSI with LIO (targetcli-fb): zvol -> block backstore -> target with initiator ACLs and CHAP.

emulate_3pc (XCOPY) and emulate_caw (ATS) give ESXi its VAAI offloads, emulate_tpu its UNMAP.
State is read back from targetcli's saveconfig.json, the one machine-readable view LIO offers.
CHAP secrets are passed on targetcli's argv: visible in /proc for the command's lifetime (root only
can read other users' cmdlines on the appliance; rtslib from Python would avoid it, see the report).
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, Field, field_validator

from appliance.control import names
from appliance.control.errors import AlreadyExists, BadOutput, InvalidName, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway, Rules

SAVECONFIG = "/etc/rtslib-fb-target/saveconfig.json"
SECRET = re.compile(r"[A-Za-z0-9_.+-]{12,64}")
RULES: Rules = (
    (r"already exists|already in use|exists already|object \S+ exists", AlreadyExists),
    (r"No such|does not exist|No storage object named|not found", NotFound),
)
VAAI = ("emulate_3pc=1", "emulate_caw=1", "emulate_tpu=1")


class Chap(BaseModel):
    """One-way CHAP credentials an initiator must present."""

    user: names.ObjectName = Field(description="CHAP user name")
    secret: str = Field(
        repr=False, description="CHAP secret, 12 to 64 characters (the MS initiator needs 12+)"
    )

    @field_validator("secret")
    @classmethod
    def _secret(cls, value: str) -> str:
        if not SECRET.fullmatch(value):
            raise InvalidName("CHAP secret must be 12-64 letters, digits or _.+-")
        return value


class TargetSpec(BaseModel):
    """A LUN from a zvol, exported to the listed initiators."""

    iqn: names.Iqn = Field(description="target IQN")
    zvol: names.ChildDataset = Field(description="the zvol (pool/name) behind the LUN")
    backstore: names.ObjectName = Field(description="LIO block backstore name")
    initiators: list[names.Iqn] = Field(min_length=1, description="initiator IQNs allowed in")
    chap: Chap | None = Field(None, description="CHAP for every listed initiator (None: ACLs only)")


def _tcli(gw: Gateway, *words: str, secrets: tuple[str, ...] = ()) -> None:
    gw.run(["targetcli", *words], rules=RULES, timeout=60, secrets=secrets)


def create(gw: Gateway, spec: TargetSpec) -> None:
    """Backstore, target, LUN, ACLs (and CHAP); then save so it comes back after a reboot."""
    _tcli(gw, "/backstores/block", "create", f"name={spec.backstore}", f"dev=/dev/zvol/{spec.zvol}")
    _tcli(gw, f"/backstores/block/{spec.backstore}", "set", "attribute", *VAAI)
    _tcli(gw, "/iscsi", "create", spec.iqn)
    tpg = f"/iscsi/{spec.iqn}/tpg1"
    _tcli(gw, f"{tpg}/luns", "create", f"/backstores/block/{spec.backstore}")
    auth = "1" if spec.chap else "0"
    _tcli(
        gw,
        tpg,
        "set",
        "attribute",
        f"authentication={auth}",
        "generate_node_acls=0",
        "demo_mode_write_protect=1",
    )
    for initiator in spec.initiators:
        _tcli(gw, f"{tpg}/acls", "create", initiator)
        if spec.chap:
            _tcli(
                gw,
                f"{tpg}/acls/{initiator}",
                "set",
                "auth",
                f"userid={spec.chap.user}",
                f"password={spec.chap.secret}",
                secrets=(spec.chap.secret,),
            )
    _tcli(gw, "saveconfig")


def delete(gw: Gateway, iqn: str, backstore: str) -> None:
    """Remove a target and its backstore (the zvol stays)."""
    _tcli(gw, "/iscsi", "delete", names.iqn(iqn))
    _tcli(gw, "/backstores/block", "delete", names.object_name(backstore))
    _tcli(gw, "saveconfig")


class TargetInfo(BaseModel):
    """A target as LIO has it."""

    iqn: str = Field(description="target IQN")
    luns: list[str] = Field(description="storage objects behind its LUNs (/dev/zvol/... paths)")
    initiators: list[str] = Field(description="initiators in its ACLs")
    chap: bool = Field(description="authentication required")
    vaai: dict[str, int] = Field(description="emulate_3pc / emulate_caw / emulate_tpu of its backstores")


def parse_saveconfig(text: str) -> list[TargetInfo]:
    """Targets from saveconfig.json."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise BadOutput(f"saveconfig.json: {err}") from None
    objects = {f"/backstores/{o['plugin']}/{o['name']}": o for o in data.get("storage_objects", [])}
    out = []
    for target in data.get("targets", []):
        luns, inits, vaai, chap = [], [], {}, False
        for tpg in target.get("tpgs", []):
            chap = chap or str(tpg.get("attributes", {}).get("authentication")) == "1"
            for lun in tpg.get("luns", []):
                obj = objects.get(lun.get("storage_object", ""), {})
                luns.append(obj.get("dev", lun.get("storage_object", "")))
                attrs = obj.get("attributes", {})
                vaai = {k: int(attrs.get(k, 0)) for k in ("emulate_3pc", "emulate_caw", "emulate_tpu")}
            inits += [acl["node_wwn"] for acl in tpg.get("node_acls", [])]
        out.append(TargetInfo(iqn=target["wwn"], luns=luns, initiators=inits, chap=chap, vaai=vaai))
    return out


def targets(files: Files) -> list[TargetInfo]:
    """Every iSCSI target in the saved LIO config (NotFound when LIO was never configured)."""
    text = files.read(SAVECONFIG)
    if text is None:
        raise NotFound(f"no LIO config at {SAVECONFIG}")
    return parse_saveconfig(text)
