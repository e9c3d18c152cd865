"""A deployment's secrets (appliance admin, Horizon administrator): sealed apart from the plan, kept across
edits that leave them out, and a row sealed before Horizon still opens; pins survive an edit."""

from __future__ import annotations

from pathlib import Path

from support.plans import FLEET, POOL, plan

from api.deployments import service
from api.deployments.table import Deployment
from api.secretbox import SecretBox


def test_secrets_are_sealed_apart_kept_across_edits_and_old_rows_still_open(tmp_path: Path) -> None:
    box = SecretBox(tmp_path / "key")
    row = Deployment(name="dep", vcenter_id=1)
    horizon = {"endpoint": "hz:443", "username": "a", "domain": "d", "vcenter": "vc", "password": "hz-secret"}
    service._store(
        row, plan(fleet={**FLEET, "admin_password": "adm-secret"}, pool=POOL, horizon=horizon), box
    )
    assert "secret" not in row.plan_json
    assert service.secrets_of(row, box) == {"admin_password": "adm-secret", "horizon_password": "hz-secret"}
    service._store(row, plan(fleet=FLEET, pool=POOL, horizon={**horizon, "password": None}), box)
    assert service.secrets_of(row, box)["horizon_password"] == "hz-secret", "an edit without it keeps it"
    row.secrets_sealed = box.seal("plain-old-password")  # sealed before there were two secrets
    assert service.secrets_of(row, box) == {"admin_password": "plain-old-password"}


def test_an_edit_without_thumbprints_keeps_the_pins_of_the_same_endpoints() -> None:
    old = plan(
        fleet={**FLEET, "appliances": [{**FLEET["appliances"][0], "api_thumbprint_sha256": "AB" * 32}]}
    )  # type: ignore[index]
    new = plan(fleet=FLEET)
    service._keep_pins(old, new)
    assert new.fleet is not None and new.fleet.appliances[0].api_thumbprint_sha256 == ":".join(["AB"] * 32)
    moved = plan(fleet={**FLEET, "appliances": [{**FLEET["appliances"][0], "api_endpoint": "10.0.0.6:443"}]})  # type: ignore[index]
    service._keep_pins(old, moved)
    assert moved.fleet is not None and moved.fleet.appliances[0].api_thumbprint_sha256 is None, "new address"
