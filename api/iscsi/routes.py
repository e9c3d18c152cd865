"""/api/storage/iscsi/targets: LUNs on zvols for ESXi's software iSCSI adapters (LIO)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.iscsi import changes, service
from api.iscsi.schemas import TargetCreate, TargetUpdate
from api.privileged.deps import Controlled
from api.storage.routes import REFUSED
from appliance.control import names
from appliance.control.iscsi import TargetInfo

router = APIRouter(prefix="/api/storage/iscsi", tags=["iscsi"])


@router.get("/targets", responses=REFUSED)
def list_targets() -> list[TargetInfo]:
    """Every target with its LUNs, initiators, CHAP on/off and VAAI offloads (read from configfs)."""
    return service.targets()


@router.post("/targets", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_target(body: TargetCreate, control: Controlled) -> TargetInfo:
    """A target with one LUN on an existing zvol, ACLs for the initiators and optional CHAP; a failure
    half way leaves nothing behind. Stored (the secret sealed) and held by the appliance from then on."""
    return control(changes.create_target, body)


@router.put("/targets/{iqn}", responses=REFUSED)
def update_target(iqn: str, body: TargetUpdate, control: Controlled) -> TargetInfo:
    """Replace a target's initiators and CHAP (an ESXi host added or retired): an initiator left out loses
    its ACL; a failure half way leaves the target as it was."""
    return control(changes.update_target, names.iqn(iqn), body)


@router.delete("/targets/{iqn}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_target(iqn: str, control: Controlled) -> Response:
    """Remove a target and its backstore (the zvol stays)."""
    control(changes.delete_target, names.iqn(iqn))
    return Response(status_code=status.HTTP_204_NO_CONTENT)
