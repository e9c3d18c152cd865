"""iSCSI targets as desired state: what LIO should hold for one target, and the steps from what it holds.

Pure: no I/O here. ``appliance.control.lio`` reads LIO's objects from configfs into :class:`Observed`,
:func:`plan` compares them with a :class:`TargetSpec` and returns the steps that converge them, and
``lio`` applies the steps, undoing its own on any failure.

One target is: a block backstore on the zvol (``/dev/zvol/POOL/NAME``) with ESXi's VAAI offloads
(emulate_3pc: XCOPY, emulate_caw: ATS, emulate_tpu: UNMAP), an iSCSI target with TPG 1 on the
0.0.0.0:3260 portal, LUN 0 on the backstore, and one ACL per initiator with LUN 0 mapped and, when
asked, one-way CHAP. Login is by ACL only (no generated ACLs, no demo mode).

``emulate_tpws`` (WRITE SAME with the UNMAP bit) stays off, written as 0 so it is a decision and not a
kernel default. Space is reclaimed by UNMAP alone (emulate_tpu): ESXi (VMFS automatic and manual UNMAP),
Linux and Windows all send UNMAP when the Logical Block Provisioning page offers it, so WRITE SAME with
UNMAP would reclaim nothing more, only add a second way into the zvol's discard. And its promise is one
the backstore does not make: after WRITE SAME with UNMAP the blocks must read back as the pattern
written, while the backstore reports LBPRZ 0 (unmapped blocks need not read as zeros). ESXi's block
zeroing (VAAI) sends WRITE SAME without the UNMAP bit, which emulate_write_same serves, on by default:
zeroing keeps writing zeros, which lz4 stores as nothing.

What the reconciler never does to converge: point an existing backstore at another device, move LUN 0
to another backstore, or take a zvol that another target already exports (each is a Conflict): those
would hand one initiator's data to another.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from appliance.control import names
from appliance.control.errors import BadOutput, Conflict, InvalidRequest

SAVECONFIG = "/etc/rtslib-fb-target/saveconfig.json"
SECRET = re.compile(r"[A-Za-z0-9_.+-]{12,64}")
ZVOL_DEV = "/dev/zvol/"
# A backstore's T10 unit serial: the identity ESXi knows the LUN by (its NAA id) and LIO keeps its
# persistent reservations under; rtslib gives a new backstore a UUID.
WWN = re.compile(r"[0-9a-f][0-9a-f-]{0,35}")
TPG_TAG = 1
LUN = 0
# Every address of the appliance: ESXi reaches it on whichever it has; ACLs and CHAP decide who logs in.
PORTAL = ("0.0.0.0", 3260)  # noqa: S104
# Backstore attributes, in the order they are written (VAAI, then the decided WRITE SAME with UNMAP).
VAAI = {"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1, "emulate_tpws": 0}
TPG_ATTRIBUTES = ("authentication", "generate_node_acls", "demo_mode_write_protect")


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
            raise ValueError("CHAP secret must be 12-64 letters, digits or _.+-")
        return value


class TargetSpec(BaseModel):
    """A LUN from a zvol, exported to the listed initiators: the desired state of one target."""

    iqn: names.Iqn = Field(description="target IQN")
    zvol: names.ChildDataset = Field(description="the zvol (pool/name) behind the LUN")
    backstore: names.ObjectName = Field(description="LIO block backstore name")
    initiators: list[names.Iqn] = Field(min_length=1, description="initiator IQNs allowed in")
    chap: Chap | None = Field(None, description="CHAP for every listed initiator (None: ACLs only)")
    wwn: str | None = Field(
        None, description="the backstore's unit serial, kept when LIO makes it again (None: a new one)"
    )

    @field_validator("wwn")
    @classmethod
    def _wwn(cls, value: str | None) -> str | None:
        if value is not None and not WWN.fullmatch(value):
            raise ValueError("a unit serial is up to 36 lower-case hex digits and dashes")
        return value

    @property
    def dev(self) -> str:
        """The zvol's block device, as the backstore names it."""
        return ZVOL_DEV + self.zvol

    def tpg_attributes(self) -> dict[str, str]:
        """TPG attributes: login by ACL only, and CHAP required exactly when it is configured."""
        return dict(zip(TPG_ATTRIBUTES, ("1" if self.chap else "0", "0", "1"), strict=True))


class TargetInfo(BaseModel):
    """A target as LIO has it."""

    iqn: str = Field(description="target IQN")
    luns: list[str] = Field(description="storage objects behind its LUNs (/dev/zvol/... paths)")
    initiators: list[str] = Field(description="initiators in its ACLs")
    chap: bool = Field(description="authentication required")
    vaai: dict[str, int] = Field(
        description="emulate_3pc / emulate_caw / emulate_tpu / emulate_tpws of its backstores"
    )


# --- what LIO holds (read by appliance.control.lio) ------------------------------------------------


@dataclass
class ObservedBackstore:
    """A block backstore: its device, attributes, and the targets whose LUNs use it."""

    name: str
    dev: str
    attributes: dict[str, int]
    used_by: set[str] = field(default_factory=set)
    wwn: str = ""


@dataclass
class ObservedAcl:
    """One initiator's ACL: CHAP as configured (empty when none) and mapped LUN -> TPG LUN."""

    userid: str = ""
    password: str = field(default="", repr=False)
    mapped: dict[int, int] = field(default_factory=dict)


@dataclass
class ObservedTpg:
    """TPG 1 of a target."""

    enabled: bool = False
    attributes: dict[str, str] = field(default_factory=dict)
    portals: set[tuple[str, int]] = field(default_factory=set)
    luns: dict[int, str] = field(default_factory=dict)  # LUN -> backstore name
    acls: dict[str, ObservedAcl] = field(default_factory=dict)


@dataclass
class Observed:
    """The LIO objects one target's desired state touches (None: absent)."""

    backstore: ObservedBackstore | None = None
    target: bool = False
    tpg: ObservedTpg | None = None


# --- steps -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One change to LIO (its class says which; appliance.control.lio executes it and says its undo)."""

    iqn: str

    def describe(self) -> str:
        """What the step changes, for the answer's ``changed`` list and the log (never a secret)."""
        return repr(self)


@dataclass(frozen=True)
class CreateBackstore(Step):
    name: str
    dev: str
    wwn: str | None = None  # None: LIO gives it a new unit serial


@dataclass(frozen=True)
class SetBackstoreAttribute(Step):
    name: str
    key: str
    value: int
    old: int | None


@dataclass(frozen=True)
class CreateTarget(Step):
    pass


@dataclass(frozen=True)
class CreateTpg(Step):
    tag: int


@dataclass(frozen=True)
class SetTpgAttribute(Step):
    key: str
    value: str
    old: str | None


@dataclass(frozen=True)
class CreatePortal(Step):
    ip: str
    port: int


@dataclass(frozen=True)
class CreateLun(Step):
    lun: int
    backstore: str


@dataclass(frozen=True)
class CreateAcl(Step):
    initiator: str


@dataclass(frozen=True)
class SetAclChap(Step):
    initiator: str
    userid: str
    password: str = field(repr=False)
    old_userid: str
    old_password: str = field(repr=False)


@dataclass(frozen=True)
class CreateMappedLun(Step):
    initiator: str
    mapped_lun: int
    tpg_lun: int


@dataclass(frozen=True)
class EnableTpg(Step):
    pass


@dataclass(frozen=True)
class DeleteAcl(Step):
    """A stale initiator's ACL, with what recreates it as it was should the change fail after it."""

    initiator: str
    userid: str
    password: str = field(repr=False)
    mapped: tuple[tuple[int, int], ...]  # (mapped LUN, TPG LUN)


def plan(spec: TargetSpec, seen: Observed, drop_stale: bool = True) -> list[Step]:
    """The steps from ``seen`` to ``spec``: create what is missing, set what differs, and (unless told
    not to) drop the ACLs of initiators ``spec`` does not list.

    Raises Conflict, before any step, where converging would move data between initiators or give the
    LUN another identity."""
    iqn = spec.iqn
    steps: list[Step] = []
    store = seen.backstore
    if store is None:
        steps.append(CreateBackstore(iqn, spec.backstore, spec.dev, spec.wwn))
    elif store.dev != spec.dev:
        raise Conflict(f"backstore {spec.backstore} is on {store.dev}, not {spec.dev}")
    elif spec.wwn is not None and store.wwn != spec.wwn:
        raise Conflict(f"backstore {spec.backstore} has unit serial {store.wwn}, not the LUN's {spec.wwn}")
    elif store.used_by - {iqn}:
        raise Conflict(f"{spec.zvol} is exported already by {', '.join(sorted(store.used_by - {iqn}))}")
    have = store.attributes if store else {}
    for key, value in VAAI.items():
        if have.get(key) != value:
            steps.append(SetBackstoreAttribute(iqn, spec.backstore, key, value, have.get(key)))

    if not seen.target:
        steps.append(CreateTarget(iqn))
    tpg = seen.tpg or ObservedTpg()
    if seen.tpg is None:
        steps.append(CreateTpg(iqn, TPG_TAG))
    for key, want in spec.tpg_attributes().items():
        if tpg.attributes.get(key) != want:
            steps.append(SetTpgAttribute(iqn, key, want, tpg.attributes.get(key)))
    if PORTAL not in tpg.portals:
        steps.append(CreatePortal(iqn, *PORTAL))
    if LUN not in tpg.luns:
        steps.append(CreateLun(iqn, LUN, spec.backstore))
    elif tpg.luns[LUN] != spec.backstore:
        raise Conflict(f"LUN {LUN} of {iqn} is on backstore {tpg.luns[LUN]}, not {spec.backstore}")

    for initiator in spec.initiators:
        acl = tpg.acls.get(initiator)
        if acl is None:
            steps.append(CreateAcl(iqn, initiator))
            acl = ObservedAcl()
        user, secret = (spec.chap.user, spec.chap.secret) if spec.chap else ("", "")
        if (acl.userid, acl.password) != (user, secret):
            steps.append(SetAclChap(iqn, initiator, user, secret, acl.userid, acl.password))
        if acl.mapped.get(LUN) != LUN:
            if LUN in acl.mapped:
                raise Conflict(f"{initiator}'s LUN {LUN} on {iqn} maps TPG LUN {acl.mapped[LUN]}")
            steps.append(CreateMappedLun(iqn, initiator, LUN, LUN))
    if not tpg.enabled:
        steps.append(EnableTpg(iqn))
    for name in sorted(set(tpg.acls) - set(spec.initiators)) if drop_stale else []:
        stale = tpg.acls[name]
        steps.append(DeleteAcl(iqn, name, stale.userid, stale.password, tuple(sorted(stale.mapped.items()))))
    return steps


def backstore_name(zvol: str) -> str:
    """The LIO backstore name arcvsa gives a zvol: tank/lun0 -> tank_lun0 (hashed when too long)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", names.child_dataset(zvol))
    if len(name) > 48:
        name = f"{name[:39]}_{hashlib.sha256(zvol.encode()).hexdigest()[:8]}"
    return names.object_name(name)


def saved_specs(text: str) -> tuple[list[TargetSpec], dict[str, str]]:
    """The targets arcvsa made, as desired state, from LIO's saved configuration (saveconfig.json, what
    rtslib-fb-targetctl restores at boot), and why each other target is not one (by IQN). BadOutput when
    the file is not LIO's JSON."""
    try:
        data = json.loads(text)
        stores = {f"/backstores/{o['plugin']}/{o['name']}": o for o in data.get("storage_objects", [])}
        targets = [t for t in data.get("targets", []) if t.get("fabric") == "iscsi"]
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise BadOutput(f"saveconfig.json: {err}") from None
    specs, others = [], {}
    for target in targets:
        iqn = str(target.get("wwn"))
        try:
            specs.append(_saved_spec(iqn, target, stores))
        except (InvalidRequest, KeyError, TypeError, AttributeError) as err:
            others[iqn] = str(err) if isinstance(err, InvalidRequest) else f"{iqn}: not LIO's layout"
    return specs, others


def _saved_spec(iqn: str, target: dict[str, Any], stores: dict[str, dict[str, Any]]) -> TargetSpec:
    tpgs = target["tpgs"]
    luns = tpgs[0]["luns"] if len(tpgs) == 1 else []
    store = stores.get(luns[0]["storage_object"], {}) if len(luns) == 1 else {}
    dev = str(store.get("dev", ""))
    zvol = dev.removeprefix(ZVOL_DEV)
    if not dev.startswith(ZVOL_DEV) or store.get("name") != backstore_name(zvol):
        raise InvalidRequest(f"{iqn}: not made by arcvsa (one LUN on a zvol, its backstore named after it)")
    acls = {
        str(acl["node_wwn"]): ObservedAcl(
            str(acl.get("chap_userid") or ""), str(acl.get("chap_password") or "")
        )
        for acl in tpgs[0]["node_acls"]
    }
    seen = Observed(tpg=ObservedTpg(acls=acls))
    return as_spec(iqn, zvol, str(store["name"]), seen, str(store["wwn"]) if store.get("wwn") else None)


def as_spec(iqn: str, zvol: str, backstore: str, seen: Observed, wwn: str | None = None) -> TargetSpec:
    """The desired state a target LIO holds already amounts to (one arcvsa made: one LUN on ``zvol``):
    its initiators and their CHAP. InvalidRequest, naming no secret, where its ACLs differ in CHAP
    (arcvsa gives a target's initiators one) or its names or secret are not ones arcvsa's rules admit."""
    acls = seen.tpg.acls if seen.tpg is not None else {}
    credentials = {(acl.userid, acl.password) for acl in acls.values()}
    if len(credentials) > 1:
        raise InvalidRequest(f"{iqn}: its initiators have different CHAP credentials, arcvsa gives one")
    user, secret = credentials.pop() if credentials else ("", "")
    try:
        chap = Chap(user=user, secret=secret) if user else None
    except ValidationError as err:
        raise InvalidRequest(
            f"{iqn}: its CHAP is not one arcvsa's rules admit ({_fields(err, 'chap.')})"
        ) from None
    try:
        return TargetSpec(
            iqn=iqn, zvol=zvol, backstore=backstore, initiators=sorted(acls), chap=chap, wwn=wwn
        )
    except ValidationError as err:
        raise InvalidRequest(f"{iqn}: not a target arcvsa's rules admit ({_fields(err)})") from None


def _fields(err: ValidationError, prefix: str = "") -> str:
    """The fields a validation refused, never the values (a CHAP secret among them)."""
    return ", ".join(prefix + ".".join(str(part) for part in e["loc"]) for e in err.errors())


def arcvsa_zvol(info: TargetInfo) -> str:
    """The zvol of a target arcvsa made (one LUN on a zvol); InvalidRequest for any other target."""
    if len(info.luns) != 1 or not info.luns[0].startswith(ZVOL_DEV):
        raise InvalidRequest(
            f"{info.iqn} was not made by arcvsa (one LUN on a zvol): remove it with targetcli"
        )
    return info.luns[0].removeprefix(ZVOL_DEV)


def parse_saveconfig(text: str) -> list[TargetInfo]:
    """Targets from saveconfig.json (the file rtslib saves LIO's configuration to, and restores at boot)."""
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
                vaai = {k: int(attrs.get(k, 0)) for k in VAAI}
            inits += [acl["node_wwn"] for acl in tpg.get("node_acls", [])]
        out.append(TargetInfo(iqn=target["wwn"], luns=luns, initiators=inits, chap=chap, vaai=vaai))
    return out
