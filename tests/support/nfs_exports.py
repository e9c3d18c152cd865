"""One valid NFS export of the appliance's model, to change one field at a time."""

from __future__ import annotations

from appliance.control.nfs.model import Export, Protocol

HOST = "10.0.2.2"


def export(**overrides: object) -> Export:
    """Export 101 of tank/ds1 over NFS 3 to HOST, with `overrides` applied."""
    base: dict[str, object] = {
        "export_id": 101,
        "dataset": "tank/ds1",
        "protocol": Protocol.v3,
        "clients": [HOST],
    }
    return Export.model_validate(base | overrides)
