"""Which secrets a job needs, and a job that finds none: the api keeps no password for its jobs, so a run it
starts again after a restart fails at once, saying to resume it with the password (it never guesses one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.api import client_for, make_settings
from support.plans import FLEET, HORIZON, NFS, POOL, plan

from api.auth.service import now
from api.deployments import service
from api.deployments.held import HeldSecrets
from api.deployments.table import Deployment
from api.vcenters.table import VCenter


@pytest.mark.parametrize(
    ("parts", "kind", "needed"),
    [
        ({"pool": POOL}, "apply", []),
        ({"pool": POOL}, "destroy", []),
        ({"fleet": FLEET}, "apply", ["admin_password"]),
        ({"fleet": FLEET, "pool": POOL}, "destroy", []),  # vSphere clones and VMs go through vCenter alone
        ({"fleet": FLEET, "pool": {**POOL, "full_copy": "zfs"}}, "destroy", ["admin_password"]),
        # the appliances' pools are released through their apis before their VMs go
        ({"fleet": FLEET, "nfs": NFS, "pool": POOL}, "destroy", ["admin_password"]),
        (
            {"nfs": NFS, "pool": POOL},
            "destroy",
            [],
        ),  # a datastore of someone else's server: nothing to release
        ({"pool": POOL, "horizon": HORIZON}, "apply", ["horizon_password"]),
        ({"pool": POOL, "horizon": HORIZON}, "destroy", ["horizon_password"]),
        ({"fleet": FLEET, "pool": POOL, "horizon": HORIZON}, "apply", ["admin_password", "horizon_password"]),
    ],
)
def test_the_secrets_a_job_needs(parts: dict[str, Any], kind: str, needed: list[str]) -> None:
    assert service.needed_secrets(plan(**parts), kind) == needed


def test_held_secrets_are_handed_over_once() -> None:
    held = HeldSecrets()
    held.put(1, {"admin_password": "s"})
    assert held.take(2) == {}
    assert held.take(1) == {"admin_password": "s"}
    assert held.take(1) == {}, "forgotten once the job has them"


def test_a_run_without_its_secrets_fails_at_once_and_never_uses_the_sealed_copy(tmp_path: Path) -> None:
    with client_for(make_settings(tmp_path)) as c:
        state: Any = c.app.state  # type: ignore[attr-defined]
        box = state.secretbox
        with state.sessionmaker() as db:
            vc = VCenter(name="vc", host="127.0.0.1", port=9, username="u", password_sealed=box.seal("x"),
                         thumbprint_sha256=None, created_at=now())  # fmt: skip
            db.add(vc)
            db.flush()
            row = Deployment(name="dep", vcenter_id=vc.id, created_at=now())
            service._store(row, plan(fleet={**FLEET, "admin_password": "sealed-copy"}), box)
            db.add(row)
            db.commit()
            deployment_id = row.id
        events: list[str] = []
        outcome = service.execute(
            "apply", deployment_id, lambda *e: events.append(str(e)), lambda: False,
            factory=state.sessionmaker, box=box, held=HeldSecrets(), timeout=1, settings=state.settings,
        )  # fmt: skip
    assert outcome.state == "failed"
    assert "resume it and give the appliances' admin password" in outcome.message
    assert events == [], "nothing was tried (vCenter was not even asked)"
