"""/api/storage/iscsi/targets: LUNs on zvols for ESXi's software iSCSI adapters (LIO)."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.deps import AppSettings, Box, Db
from api.firewall import service as firewall
from api.iscsi import service
from api.iscsi.schemas import TargetCreate, TargetUpdate
from api.storage.deps import Fs, Gw
from api.storage.routes import REFUSED
from appliance.control.iscsi import TargetInfo

router = APIRouter(prefix="/api/storage/iscsi", tags=["iscsi"])


@router.get("/targets", responses=REFUSED)
def list_targets() -> list[TargetInfo]:
    """Every target with its LUNs, initiators, CHAP on/off and VAAI offloads (read from configfs)."""
    return service.targets()


@router.post("/targets", status_code=status.HTTP_201_CREATED, responses=REFUSED)
def create_target(body: TargetCreate, gw: Gw, fs: Fs, db: Db, box: Box, settings: AppSettings) -> TargetInfo:
    """A target with one LUN on an existing zvol, ACLs for the initiators and optional CHAP; a failure
    half way leaves nothing behind. Stored (the secret sealed) and held by the appliance from then on."""
    made = service.create(gw, db, box, fs, settings, body)
    firewall.follow(gw, fs, db, settings)  # 3260 opens to the iSCSI networks with the first target
    return made


@router.put("/targets/{iqn}", responses=REFUSED)
def update_target(
    iqn: str, body: TargetUpdate, fs: Fs, db: Db, box: Box, settings: AppSettings
) -> TargetInfo:
    """Replace a target's initiators and CHAP (an ESXi host added or retired): an initiator left out loses
    its ACL; a failure half way leaves the target as it was."""
    return service.update(db, box, fs, settings, iqn, body)


@router.delete("/targets/{iqn}", status_code=status.HTTP_204_NO_CONTENT, responses=REFUSED)
def delete_target(iqn: str, gw: Gw, fs: Fs, db: Db, box: Box, settings: AppSettings) -> Response:
    """Remove a target and its backstore (the zvol stays)."""
    service.delete(db, box, fs, settings, iqn)
    firewall.follow(gw, fs, db, settings)  # and closes with the last
    return Response(status_code=status.HTTP_204_NO_CONTENT)
