"""The api reads what first boot wrote: the admin's password hash, the report, the build manifest."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

from support.api import ADMIN, client_for, make_settings

from api.appliance import config as appliance_json
from appliance.firstboot.accounts import argon2_hash
from appliance.firstboot.errors import ConfigInvalid, FieldError
from appliance.firstboot.service import Outcome
from appliance.firstboot.status import error_report, outcome_report, render_report
from ovf.build_manifest import BuildManifest

NOW = dt.datetime(2026, 11, 22, 3, 0, tzinfo=dt.UTC)
PROPERTY_PASSWORD = "from the OVF property 42"


def appliance_files(data_dir: Path, report: bytes | None) -> Path:
    """Lay out data_dir and etc_dir as an appliance after first boot; returns etc_dir."""
    etc = data_dir / "etc"
    etc.mkdir(parents=True)
    manifest = BuildManifest(
        version="1.2.3", git_version="1.2.3-4-gabc", kernel="6.12.107+deb13-amd64", openzfs="2.3.9",
        nfs_ganesha="6.5-5",
    )  # fmt: skip
    (etc / "build-manifest.json").write_bytes(manifest.to_json())
    (etc / "appliance.json").write_text(json.dumps({"role": "manager", "nfs_backend": "ganesha"}))
    if report is not None:
        (data_dir / "firstboot.json").write_bytes(report)
    return etc


def test_first_boot_hash_seeds_the_admin(tmp_path: Path) -> None:
    etc = appliance_files(tmp_path, render_report(outcome_report(Outcome(status="applied"), NOW)))
    (tmp_path / "admin-password.argon2").write_text(argon2_hash(PROPERTY_PASSWORD) + "\n")
    client = client_for(make_settings(tmp_path, admin_password=None, etc_dir=etc))
    wrong = client.post("/api/auth/login", json={"username": ADMIN, "password": "not it"})
    assert wrong.status_code == 401
    r = client.post("/api/auth/login", json={"username": ADMIN, "password": PROPERTY_PASSWORD})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = client.cookies["arcvsa_csrf"]
    info = client.get("/api/appliance").json()
    assert info["build"]["openzfs"] == "2.3.9" and info["role"] == "manager"
    assert info["firstboot"]["status"] == "applied"


def test_no_password_anywhere_means_no_admin(tmp_path: Path) -> None:
    etc = appliance_files(tmp_path, None)
    client = client_for(make_settings(tmp_path, admin_password=None, etc_dir=etc))
    r = client.post("/api/auth/login", json={"username": ADMIN, "password": ""})
    assert r.status_code in (401, 422)
    assert client.get("/api/health").json()["firstboot"]["status"] == "pending"


def test_health_reports_refused_properties_without_values(tmp_path: Path) -> None:
    refused = ConfigInvalid([FieldError("ipv4_prefix", "IPv4 prefix", "must be 0..32, got 33")])
    etc = appliance_files(tmp_path, render_report(error_report(refused, NOW)))
    client = client_for(make_settings(tmp_path, admin_password=None, etc_dir=etc))
    health = client.get("/api/health")
    assert health.status_code == 200
    firstboot = health.json()["firstboot"]
    assert firstboot["status"] == "refused"
    assert firstboot["errors"] == [
        {"key": "ipv4_prefix", "label": "IPv4 prefix", "message": "must be 0..32, got 33"}
    ]
    assert client.get("/api/appliance").status_code == 401


def test_off_the_appliance_first_boot_is_absent(tmp_path: Path) -> None:
    client = client_for(make_settings(tmp_path))
    assert client.get("/api/health").json()["firstboot"] == {
        "status": "absent", "finished_at": None, "transport": None, "errors": [], "warnings": [],
    }  # fmt: skip


def test_first_boot_report_rewritten_is_read_anew(tmp_path: Path) -> None:
    # The api keeps the parsed file while it stays the same; a rename (what first boot does) and a write
    # in place of the same size are each a new report.
    etc = appliance_files(tmp_path, None)
    client = client_for(make_settings(tmp_path, admin_password=None, etc_dir=etc))
    assert client.get("/api/health").json()["firstboot"]["status"] == "pending"
    refused = ConfigInvalid([FieldError("ipv4_prefix", "IPv4 prefix", "must be 0..32, got 33")])
    staged = tmp_path / "firstboot.json.new"
    staged.write_bytes(render_report(error_report(refused, NOW)))
    staged.rename(tmp_path / "firstboot.json")
    assert client.get("/api/health").json()["firstboot"]["errors"][0]["key"] == "ipv4_prefix"
    report = tmp_path / "firstboot.json"
    first = report.read_bytes()
    report.write_bytes(first.replace(b"ipv4_prefix", b"ipv6_prefix"))
    os.utime(report, ns=(report.stat().st_atime_ns, report.stat().st_mtime_ns + 1))
    assert client.get("/api/health").json()["firstboot"]["errors"][0]["key"] == "ipv6_prefix"
    report.write_text("{not json")
    assert client.get("/api/health").json()["firstboot"]["status"] == "pending"
    report.unlink()
    assert client.get("/api/health").json()["firstboot"]["status"] == "pending"


def test_a_reader_changing_the_parsed_file_changes_no_other_reader(tmp_path: Path) -> None:
    etc = appliance_files(tmp_path, None)
    settings = make_settings(tmp_path, etc_dir=etc)
    appliance_json.read(settings)["role"] = "storage"
    assert appliance_json.read(settings)["role"] == "manager"
