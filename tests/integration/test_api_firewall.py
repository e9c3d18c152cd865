"""/api/settings/firewall end to end: the api's answers, and what the kernel then lets in.

The api runs with its rule set loaded by the real nft into a network namespace; an administrator at
10.99.0.2 calls it, and probes from the client namespace say what each address reaches. systemd (the
SSH switch, the rollback timer) is tests/support/systemd_standin.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support import netns
from support.api import logged_in, make_settings
from support.systemd_standin import SystemdStandIn

from api.app import create_app
from api.exports import service as exports
from api.firewall import service
from api.firewall.table import FirewallConfig
from api.iscsi.table import IscsiTarget
from appliance.control import firewall, sshd
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway
from appliance.control.nfs.model import Export, Protocol

ADMIN, COLLEAGUE, HOST, STRANGER = "10.99.0.2", "10.99.0.3", "10.99.0.4", "10.99.0.5"
PATH = "/api/settings/firewall"


@pytest.fixture(scope="module")
def link() -> Iterator[netns.Pair]:
    try:
        with netns.pair((ADMIN, COLLEAGUE, HOST, STRANGER)) as made:
            yield made
    except netns.Unavailable as exc:
        pytest.skip(str(exc))


class Appliance:
    def __init__(self, link: netns.Pair, root: Path, data: Path, address: str = ADMIN) -> None:
        netns.ip("netns", "exec", link.server, netns.NFT, "flush", "ruleset")
        self.link = link
        self.files = LocalFiles(root)
        self.systemd = SystemdStandIn(self.files)
        self.nft = netns.NftRunner(link.server, rest=self.systemd)
        self.systemd.runner = self.nft
        app = create_app(make_settings(data))
        self.api = logged_in(TestClient(app, base_url="https://testserver", client=(address, 50000)))
        self.api.app.state.storage_gateway = Gateway(self.nft)
        self.api.app.state.storage_files = self.files

    def reconcile(self) -> list[str]:
        state = self.api.app.state
        with state.sessionmaker() as db:
            return service.reconcile(state.storage_gateway, self.files, db, state.settings)

    def reaches(self, source: str, port: int) -> bool:
        return self.link.probe([(source, "tcp", port)])[(source, "tcp", port)] == "open"

    def put(self, body: dict[str, Any]) -> Any:
        return self.api.put(PATH, json=body)


@pytest.fixture
def appliance(link: netns.Pair, tmp_path: Path) -> Appliance:
    return Appliance(link, tmp_path / "root", tmp_path / "data")


def test_the_first_reconcile_adopts_the_defaults_with_ssh_as_found(appliance: Appliance) -> None:
    appliance.systemd.ssh_on = True  # first boot was given a key
    assert appliance.reconcile() == ["rule set loaded"]
    shown = appliance.api.get(PATH).json()
    assert shown["settings"] == {
        "management": ["0.0.0.0/0", "::/0"],
        "iscsi": [],
        "ssh": True,
        "ssh_root": False,
    }
    assert shown["your_address"] == ADMIN
    assert appliance.reaches(STRANGER, 443) and appliance.reaches(STRANGER, 22)
    assert not appliance.reaches(STRANGER, 2049)
    assert appliance.reconcile() == []  # converged: nothing to do


ADMIN_KEYS = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJgZyOYvlx1TrA8RKgeMwHlayUyBxJPtvZEiJcZmWzGS admin\n"


def test_root_login_as_first_boot_left_it_is_adopted(appliance: Appliance) -> None:
    appliance.systemd.ssh_on = True
    # ssh_root_login was given: first boot gave root the key it gave arcvsa, and let it in
    appliance.files.write(sshd.ADMIN_KEYS, ADMIN_KEYS, mode=0o600)
    appliance.files.write(sshd.ROOT_KEYS, ADMIN_KEYS, mode=0o600)
    appliance.files.write(sshd.ROOT_FILE, sshd.ROOT_TEXT)
    appliance.reconcile()
    assert appliance.api.get(PATH).json()["settings"]["ssh_root"] is True
    assert appliance.files.read(sshd.ROOT_FILE) == sshd.ROOT_TEXT
    assert appliance.reconcile() == [] and appliance.systemd.sshd_reloads == 0


def test_roots_key_login_follows_its_switch_and_the_admin_accounts_keys(appliance: Appliance) -> None:
    appliance.systemd.ssh_on = True
    appliance.files.write(sshd.ADMIN_KEYS, ADMIN_KEYS, mode=0o600)
    appliance.reconcile()
    settings = appliance.api.get(PATH).json()["settings"]
    on = appliance.put({**settings, "ssh_root": True})
    assert on.status_code == 200, on.text
    assert on.json()["settings"]["ssh_root"] is True
    assert appliance.files.read(sshd.ROOT_FILE) == sshd.ROOT_TEXT
    assert appliance.files.read(sshd.ROOT_KEYS) == ADMIN_KEYS
    assert appliance.systemd.sshd_reloads == 1  # sshd reads its settings again; sessions stay
    # a key the administrator adds to arcvsa reaches root at the next reconcile; sshd need not reload
    added = ADMIN_KEYS + ADMIN_KEYS.replace(" admin", " second")
    appliance.files.write(sshd.ADMIN_KEYS, added, mode=0o600)
    assert appliance.reconcile() == ["root's SSH key login on"]
    assert appliance.files.read(sshd.ROOT_KEYS) == added and appliance.systemd.sshd_reloads == 1
    assert appliance.reconcile() == []
    off = appliance.put({**settings, "ssh_root": False})
    assert off.status_code == 200 and off.json()["settings"]["ssh_root"] is False
    assert appliance.files.read(sshd.ROOT_FILE) is None and appliance.files.read(sshd.ROOT_KEYS) is None
    assert appliance.systemd.sshd_reloads == 2
    assert appliance.files.read(sshd.ADMIN_KEYS) == added, "arcvsa's keys are not root's to remove"


def test_root_login_is_kept_while_ssh_is_off(appliance: Appliance) -> None:
    appliance.systemd.ssh_on = True
    appliance.files.write(sshd.ADMIN_KEYS, ADMIN_KEYS, mode=0o600)
    appliance.reconcile()
    body = {"management": ["0.0.0.0/0", "::/0"], "iscsi": [], "ssh": True, "ssh_root": True}
    assert appliance.put(body).status_code == 200
    off = appliance.put({**body, "ssh": False})  # SSH off alone: root's setting is kept for when it is back
    assert off.status_code == 200, off.text
    assert off.json()["settings"] == {**body, "ssh": False}
    assert not appliance.systemd.sshd_running and not appliance.reaches(STRANGER, 22)
    assert appliance.files.read(sshd.ROOT_FILE) == sshd.ROOT_TEXT
    assert appliance.put(body).json()["settings"] == body and appliance.systemd.sshd_running


@pytest.mark.parametrize(("root_keys", "adopted"), [(ADMIN_KEYS, True), ("\n", False), (None, False)])
def test_settings_stored_before_roots_switch_keep_roots_keys_working(
    appliance: Appliance, root_keys: str | None, adopted: bool
) -> None:
    """An appliance upgraded from a release whose image let root's keys in (and stored no ssh_root)."""
    appliance.systemd.ssh_on = True
    appliance.reconcile()
    with appliance.api.app.state.sessionmaker() as db:
        row = db.get(FirewallConfig, 1)
        row.settings_json = json.dumps({"management": ["0.0.0.0/0", "::/0"], "iscsi": [], "ssh": True})
        db.commit()
    if root_keys is not None:
        appliance.files.write(sshd.ROOT_KEYS, root_keys, mode=0o600)
    appliance.files.write(sshd.ADMIN_KEYS, ADMIN_KEYS, mode=0o600)
    appliance.reconcile()
    assert appliance.api.get(PATH).json()["settings"]["ssh_root"] is adopted
    assert (appliance.files.read(sshd.ROOT_FILE) is not None) is adopted
    assert appliance.reconcile() == []


def test_a_management_change_is_live_on_trial_and_kept_when_confirmed(appliance: Appliance) -> None:
    appliance.reconcile()
    boot = appliance.files.read(firewall.RULES_FILE)
    body = {"management": [f"{ADMIN}/32"], "iscsi": [], "ssh": False}
    answer = appliance.put(body)
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    assert shown["trial"]["settings"]["management"] == [f"{ADMIN}/32"]
    assert shown["settings"]["management"] == ["0.0.0.0/0", "::/0"]  # not stored yet
    assert not appliance.reaches(STRANGER, 443) and appliance.reaches(ADMIN, 443)  # live already
    assert appliance.systemd.armed is not None
    assert appliance.files.read(firewall.RULES_FILE) == boot  # what a reboot would load: not the trial
    assert appliance.reconcile() == []  # the poller leaves a trial alone

    kept = appliance.api.post(f"{PATH}/confirm")
    assert kept.status_code == 200, kept.text
    assert kept.json()["settings"]["management"] == [f"{ADMIN}/32"] and kept.json()["trial"] is None
    assert appliance.systemd.armed is None
    appliance.systemd.fire()  # nothing armed: nothing comes back
    assert not appliance.reaches(STRANGER, 443) and appliance.reaches(ADMIN, 443)
    assert "10.99.0.2" in (appliance.files.read(firewall.RULES_FILE) or "")


def test_an_unconfirmed_change_rolls_back_by_itself(appliance: Appliance) -> None:
    appliance.reconcile()
    appliance.put({"management": [f"{ADMIN}/32"], "iscsi": [], "ssh": False})
    assert not appliance.reaches(STRANGER, 443)
    appliance.systemd.fire()  # the timer, with the api gone or the browser cut off
    assert appliance.reaches(STRANGER, 443)
    state = appliance.api.app.state
    with state.sessionmaker() as db:
        row = db.get(FirewallConfig, 1)
        row.trial_until = 1.0  # its time is up
        db.commit()
    late = appliance.api.post(f"{PATH}/confirm")
    assert late.status_code == 409
    assert "not confirmed in time" in late.json()["detail"]
    assert appliance.api.get(PATH).json()["settings"]["management"] == ["0.0.0.0/0", "::/0"]
    assert appliance.reaches(STRANGER, 443)


def test_a_change_that_leaves_the_caller_out_is_refused_and_changes_nothing(appliance: Appliance) -> None:
    appliance.reconcile()
    before = appliance.files.read(firewall.RULES_FILE)
    calls = len(appliance.nft.calls)
    refused = appliance.put({"management": [f"{COLLEAGUE}/32"], "iscsi": [], "ssh": False})
    assert refused.status_code == 422
    body = refused.json()
    assert body["code"] == "would_lock_out" and body["field"] == "management"
    assert body["your_address"] == ADMIN and ADMIN in body["detail"]
    assert len(appliance.nft.calls) == calls  # refused before any command
    assert appliance.files.read(firewall.RULES_FILE) == before
    assert appliance.reaches(ADMIN, 443)


@pytest.mark.parametrize(("network", "allowed"), [("10.99.0.2/31", True), ("10.99.0.4/31", False)])
def test_the_lockout_check_holds_at_the_network_edge(
    appliance: Appliance, network: str, allowed: bool
) -> None:
    appliance.reconcile()
    answer = appliance.put({"management": [network], "iscsi": [], "ssh": False})
    assert (answer.status_code == 200) is allowed, answer.text


def test_a_second_change_waits_for_the_first_trial(appliance: Appliance) -> None:
    appliance.reconcile()
    appliance.put({"management": [f"{ADMIN}/32"], "iscsi": [], "ssh": False})
    second = appliance.put({"management": ["10.99.0.0/24"], "iscsi": [], "ssh": False})
    assert second.status_code == 409 and "waits for confirmation" in second.json()["detail"]
    cancelled = appliance.api.delete(f"{PATH}/trial")
    assert cancelled.status_code == 200 and cancelled.json()["trial"] is None
    assert appliance.reaches(STRANGER, 443) and appliance.systemd.armed is None
    assert appliance.api.post(f"{PATH}/confirm").status_code == 409


def test_iscsi_opens_with_the_first_target_and_ssh_follows_its_switch(appliance: Appliance) -> None:
    appliance.reconcile()
    same = ["0.0.0.0/0", "::/0"]
    saved = appliance.put({"management": same, "iscsi": [f"{HOST}/32"], "ssh": True})
    assert saved.status_code == 200 and saved.json()["trial"] is None  # no management change: at once
    assert appliance.systemd.ssh_on and appliance.reaches(ADMIN, 22)
    assert not appliance.reaches(HOST, 3260)  # no target yet
    state = appliance.api.app.state
    with state.sessionmaker() as db:
        db.add(
            IscsiTarget(
                iqn="iqn.2026-11.lab.arcvsa:t",
                zvol="tank/lun",
                initiators_json="[]",
                created_at=datetime.now(UTC),
            )
        )
        db.commit()
    appliance.reconcile()
    assert appliance.reaches(HOST, 3260) and not appliance.reaches(STRANGER, 3260)
    appliance.put({"management": same, "iscsi": [f"{HOST}/32"], "ssh": False})
    assert not appliance.systemd.ssh_on and not appliance.reaches(ADMIN, 22)


def test_exports_open_nfs_to_their_hosts_only(appliance: Appliance) -> None:
    appliance.reconcile()
    state = appliance.api.app.state
    with state.sessionmaker() as db:
        exports.store(db, Export(export_id=101, dataset="tank/a", protocol=Protocol.v41, clients=[HOST]))
        db.commit()
    appliance.reconcile()
    assert appliance.reaches(HOST, 2049) and not appliance.reaches(HOST, 111)
    assert not appliance.reaches(STRANGER, 2049)
    shown = {a["service"]: a for a in appliance.api.get(PATH).json()["allowed"]}
    assert shown["NFSv4.1"]["sources"] == [HOST] and shown["NFSv3"]["sources"] == []


def test_the_management_networks_first_boot_was_given_are_adopted(link: netns.Pair, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "etc").mkdir(parents=True)
    (data / "etc" / "appliance.json").write_text(json.dumps({"management_networks": [f"{ADMIN}/32"]}))
    appliance = Appliance(link, tmp_path / "root", data)
    assert appliance.reconcile() == ["rule set loaded"]
    assert appliance.api.get(PATH).json()["settings"]["management"] == [f"{ADMIN}/32"]
    assert appliance.reaches(ADMIN, 443) and not appliance.reaches(COLLEAGUE, 443)


def test_with_a_storage_network_nfs_is_answered_on_its_nic_and_the_web_interface_elsewhere(
    link: netns.Pair, tmp_path: Path
) -> None:
    # The clients' link as the storage NIC first boot named: the host's export answers there, and the
    # web interface is refused there though every address may reach it on the management network.
    data = tmp_path / "data"
    (data / "etc").mkdir(parents=True)
    storage = {"interface": link.link, "address": "10.99.0.1/24", "mtu": 9000}
    (data / "etc" / "appliance.json").write_text(json.dumps({"storage_network": storage}))
    appliance = Appliance(link, tmp_path / "root", data, address="127.0.0.1")
    appliance.reconcile()
    with appliance.api.app.state.sessionmaker() as db:
        exports.store(db, Export(export_id=102, dataset="tank/b", protocol=Protocol.v41, clients=[HOST]))
        db.commit()
    appliance.reconcile()
    assert appliance.reaches(HOST, 2049) and not appliance.reaches(STRANGER, 2049)
    assert not appliance.reaches(ADMIN, 443) and not appliance.reaches(HOST, 443)
    shown = appliance.api.get(PATH).json()
    assert shown["storage_network"] == storage
    where = {a["service"]: a["interface"] for a in shown["allowed"]}
    assert where == {
        "web interface": f"not {link.link}",
        "NFSv3": link.link,
        "NFSv4.1": link.link,
        "iSCSI": link.link,
    }


@pytest.mark.parametrize(
    "entry",
    [None, {"interface": 'eth1" accept', "address": "10.99.0.1/24", "mtu": 1500}, {"interface": "eth1"}],
)
def test_no_or_a_broken_storage_entry_leaves_every_nic_serving_everything(
    link: netns.Pair, tmp_path: Path, entry: object
) -> None:
    data = tmp_path / "data"
    (data / "etc").mkdir(parents=True)
    (data / "etc" / "appliance.json").write_text(json.dumps({"storage_network": entry}))
    appliance = Appliance(link, tmp_path / "root", data)
    appliance.reconcile()
    assert appliance.reaches(ADMIN, 443)
    shown = appliance.api.get(PATH).json()
    assert shown["storage_network"] is None and {a["interface"] for a in shown["allowed"]} == {None}
