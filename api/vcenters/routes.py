"""/api/vcenters: connections to vCenter and their inventory."""

from __future__ import annotations

from fastapi import APIRouter, status

from api.deps import AppSettings, Box, Db
from api.errors import ErrorBody
from api.vcenters import service
from api.vcenters.schemas import CertificateRequest, NfsClientHost, TestResult, VCenterCreate, VCenterOut
from provisioning.certificate import CertificateInfo
from provisioning.inventory import Inventory

router = APIRouter(prefix="/api/vcenters", tags=["vcenters"])
VCENTER_ERRORS: dict[int | str, dict[str, object]] = {422: {"model": ErrorBody}}
NOT_FOUND: dict[int | str, dict[str, object]] = {404: {"model": ErrorBody}}


@router.post("/certificate", responses=VCENTER_ERRORS)
def certificate(body: CertificateRequest, settings: AppSettings) -> CertificateInfo:
    """Fetch the certificate a vCenter presents, so the user can check and accept its thumbprint."""
    return service.certificate(body.host, body.port, settings.vcenter_timeout)


@router.get("")
def list_vcenters(db: Db) -> list[VCenterOut]:
    """All stored connections."""
    return [VCenterOut.model_validate(r) for r in service.list_all(db)]


@router.post("", status_code=status.HTTP_201_CREATED, responses={**VCENTER_ERRORS, 409: {"model": ErrorBody}})
def create_vcenter(body: VCenterCreate, box: Box, db: Db, settings: AppSettings) -> VCenterOut:
    """Log in to the vCenter with what was given; store the connection only if that succeeds."""
    row = service.create(db, box, body, settings.vcenter_timeout)
    return VCenterOut.model_validate(row)


@router.post("/{vcenter_id}/test", responses={**VCENTER_ERRORS, **NOT_FOUND})
def test_vcenter(vcenter_id: int, box: Box, db: Db, settings: AppSettings) -> TestResult:
    """Log in with the stored credentials and read what the endpoint is."""
    about = service.test(service.get(db, vcenter_id), box, settings.vcenter_timeout)
    return TestResult(ok=True, about=about)


@router.delete("/{vcenter_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND)
def delete_vcenter(vcenter_id: int, db: Db) -> None:
    """Forget a connection (nothing in vCenter changes)."""
    service.delete(db, vcenter_id)


@router.get("/{vcenter_id}/inventory", responses={**VCENTER_ERRORS, **NOT_FOUND})
def inventory(vcenter_id: int, box: Box, db: Db, settings: AppSettings) -> Inventory:
    """Datacenters, clusters, hosts, datastores, networks and VMs, read in one retrieval."""
    return service.inventory(service.get(db, vcenter_id), box, settings.vcenter_timeout)


@router.get("/{vcenter_id}/nfs-clients", responses={**VCENTER_ERRORS, **NOT_FOUND})
def nfs_clients(vcenter_id: int, box: Box, db: Db, settings: AppSettings) -> list[NfsClientHost]:
    """The connected ESXi hosts with the VMkernel addresses an NFS export for them should allow."""
    inv = service.inventory(service.get(db, vcenter_id), box, settings.vcenter_timeout)
    return service.nfs_clients(inv)
