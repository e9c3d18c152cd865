"""An appliance's api that has the fleet's storage and can release it (provisioning.release), on replay.

No one recording holds release's sequence, so it is joined from three recordings of the same lab VM and
disks, every answer a real one: the fleet's pool of four disks with its NFS 4.1 export 101 ('fleet'), the
removal of ganesha export 101 ('api_exports'), and the destroy of a pool of the same four disks with
free_disks ('api_wipe'). The replay stays strict: any other command raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from fixtures.appliance import fleet_flows
from fixtures.appliance.replay import ReplayRunner, load

from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from provisioning.appliance_api import ApplianceApi
from support.appliance_server import ApplianceServer

PASSWORD = fleet_flows.PASSWORD


@contextlib.contextmanager
def appliance_to_release(folder: Path, name: str = "vsa-1") -> Iterator[tuple[ApplianceServer, ReplayRunner]]:
    """An appliance api whose pool 'tank' (tank/vdi exported over NFS 4.1) was made as apply makes it."""
    fleet = load("fleet")
    exports, wipe = load("api_exports")["commands"], load("api_wipe")["commands"]
    runner = ReplayRunner({"commands": fleet["commands"] + exports[47:51] + wipe[9:10] + wipe[12:26]})
    files = LocalFiles(folder / "root")
    for path, text in fleet.get("reads", {}).items():
        if text is not None:
            files.write(path, text)
    with ApplianceServer(folder / name, Gateway(runner), files, PASSWORD) as server:
        fleet_flows.fleet_flow(ApplianceApi(server.endpoint, server.thumbprint, name=name))
        yield server, runner
