"""An appliance's api that has the fleet's storage and can release it (provisioning.release), on replay.

The lab's recording 'release' (tests/fixtures/appliance/record.py): the fleet's storage step (a pool of
four disks, its NFS 4.1 export 101), then release through the same api: the export off, the pool
destroyed with its disks freed. The replay is strict: any other command raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner, replay

from provisioning.appliance_api import ApplianceApi
from support.appliance_server import ApplianceServer

PASSWORD = fleet_flows.PASSWORD


@contextlib.contextmanager
def appliance_to_release(folder: Path, name: str = "vsa-1") -> Iterator[tuple[ApplianceServer, ReplayRunner]]:
    """An appliance api whose pool 'tank' (tank/vdi exported over NFS 4.1) was made as apply makes it."""
    gateway, files, runner = replay("release", folder / "root")
    with ApplianceServer(folder / name, gateway, files, PASSWORD) as server:
        fleet_flows.fleet_flow(ApplianceApi(server.endpoint, server.thumbprint, name=name))
        yield server, runner
