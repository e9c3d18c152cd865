"""The firewall's settings before an administrator saves any: first boot's management networks (the
management_networks vApp property, in appliance.json), else every address."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.api import client_for, make_settings

from api.firewall import service
from api.firewall.table import FirewallConfig
from api.settings import Settings

EVERYWHERE = ["0.0.0.0/0", "::/0"]


def with_config(tmp_path: Path, text: str | None) -> Settings:
    settings = make_settings(tmp_path / "data")
    if text is not None:
        settings.appliance_config.parent.mkdir(parents=True, exist_ok=True)
        settings.appliance_config.write_text(text, encoding="utf-8")
    return settings


def test_first_boot_networks_are_the_defaults(tmp_path: Path) -> None:
    config = {"role": "appliance", "management_networks": ["10.0.10.0/24", "192.0.2.7/32"]}
    found = service.defaults(with_config(tmp_path, json.dumps(config)), ssh=True)
    assert found.management == ["10.0.10.0/24", "192.0.2.7/32"] and found.ssh and found.iscsi == []


@pytest.mark.parametrize(
    "text",
    [
        None,  # no appliance.json (first boot applied nothing)
        json.dumps({"role": "appliance"}),  # written by a release before the property
        json.dumps({"management_networks": []}),  # the property left empty
        json.dumps({"management_networks": ["10.0.10.5/24"]}),  # not what first boot writes: not trusted
        json.dumps({"management_networks": "10.0.10.0/24"}),
        "{not json",
    ],
)
def test_anything_else_lets_every_address_in(tmp_path: Path, text: str | None) -> None:
    assert service.defaults(with_config(tmp_path, text)).management == EVERYWHERE


@pytest.mark.parametrize(
    ("ends_in", "on_trial"),
    [
        (0.0, False),  # its time is up
        (0.5, True),
        (service.TRIAL_SECONDS, True),  # just armed
        (service.TRIAL_SECONDS + 1, True),  # a clock step's slack
        (service.TRIAL_SECONDS + 2, False),  # longer than any trial this service arms
        (10 * 365 * 86400, False),  # a row written to hold the reconcile off for ever
    ],
)
def test_a_trial_lasts_no_longer_than_the_service_arms_one(
    tmp_path: Path, ends_in: float, on_trial: bool
) -> None:
    factory = client_for(make_settings(tmp_path / "data")).app.state.sessionmaker  # type: ignore[attr-defined]
    at = 1_800_000_000.0
    with factory() as db:
        db.add(
            FirewallConfig(
                id=1, trial_json=json.dumps({"management": ["10.0.0.0/8"]}), trial_until=at + ends_in
            )
        )
        db.commit()
        assert (service.trial(db, at) is not None) is on_trial
