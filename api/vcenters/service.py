"""vCenter connections. A connection is stored only after a successful login with what was given."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.auth.service import now
from api.errors import Conflict, NotFound
from api.secretbox import SecretBox
from api.vcenters.schemas import NfsClientHost, VCenterCreate
from api.vcenters.table import VCenter
from provisioning import session
from provisioning.certificate import CertificateInfo, fetch_certificate
from provisioning.inventory import About, Inventory, read_inventory


def certificate(host: str, port: int, timeout: float) -> CertificateInfo:
    return fetch_certificate(host, port, timeout=timeout)


def list_all(db: Session) -> list[VCenter]:
    return list(db.scalars(select(VCenter).order_by(VCenter.name)))


def get(db: Session, vcenter_id: int) -> VCenter:
    row = db.get(VCenter, vcenter_id)
    if row is None:
        raise NotFound(f"No vCenter connection {vcenter_id}")
    return row


def create(db: Session, box: SecretBox, body: VCenterCreate, timeout: float) -> VCenter:
    if db.scalar(select(VCenter.id).where(VCenter.name == body.name)) is not None:
        raise Conflict(f"A vCenter connection named {body.name!r} exists already", field="name")
    # Prove the address, certificate and credentials before anything is written.
    with session.connect(
        body.host,
        body.port,
        body.username,
        body.password,
        thumbprint_sha256=body.thumbprint_sha256,
        timeout=timeout,
    ):
        pass
    row = VCenter(
        name=body.name,
        host=body.host,
        port=body.port,
        username=body.username,
        password_sealed=box.seal(body.password),
        thumbprint_sha256=body.thumbprint_sha256,
        created_at=now(),
    )
    db.add(row)
    try:
        db.commit()
    except IntegrityError as exc:  # a concurrent add with the same name
        db.rollback()
        raise Conflict(f"A vCenter connection named {body.name!r} exists already", field="name") from exc
    return row


def delete(db: Session, vcenter_id: int) -> None:
    db.delete(get(db, vcenter_id))
    db.commit()


def _connect(row: VCenter, box: SecretBox, timeout: float) -> AbstractContextManager[Any]:
    return session.connect(
        row.host,
        row.port,
        row.username,
        box.open(row.password_sealed),
        thumbprint_sha256=row.thumbprint_sha256,
        timeout=timeout,
    )


def test(row: VCenter, box: SecretBox, timeout: float) -> About:
    with _connect(row, box, timeout) as si:
        return session.about(si)


def inventory(row: VCenter, box: SecretBox, timeout: float) -> Inventory:
    with _connect(row, box, timeout) as si:
        return read_inventory(si)


def nfs_clients(inv: Inventory) -> list[NfsClientHost]:
    """Every connected host with the VMkernel addresses its NFS mounts come from, by datacenter and cluster."""
    datacenters = {d.moid: d.name for d in inv.datacenters}
    clusters = {c.moid: c.name for c in inv.clusters}
    hosts = [
        NfsClientHost(
            host=h.name,
            datacenter=datacenters.get(h.datacenter, h.datacenter),
            cluster=clusters.get(h.cluster) if h.cluster else None,
            addresses=[n.address for n in h.vmkernel if n.nfs],
            vmkernel=h.vmkernel,
        )
        for h in inv.hosts
        if h.connection_state == "connected"
    ]
    return sorted(hosts, key=lambda h: (h.datacenter, h.cluster or "", h.host))
