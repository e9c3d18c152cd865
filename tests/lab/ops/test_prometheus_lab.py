"""Issue 9, Prometheus: a real Prometheus server scrapes the booted lab appliance and answers PromQL.

The appliance gets a pool with a SLOG, a datastore and its NFSv3 export for the host, and a scrape
token made through its api. Debian's prometheus binary runs on the host with a temporary config: it
scrapes the appliance's forwarded HTTPS port at /api/metrics/prometheus, the token in its
credentials_file, the appliance's certificate pinned as its only CA (the certificate names
"localhost"). The host writes a file over NFS and reads it back while Prometheus scrapes, so the ARC
counts hits, then the ARC hit ratio is asked in PromQL over Prometheus' HTTP API. The exposition is
also fetched once directly and checked with promtool. Revoking the token makes the next scrapes fail
with 401.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.appliance.remote import nfs_cp, wait_writable
from support import polling
from support.lab_api import LabApi
from support.lab_boot import BootedAppliance

from lab.appliance_vm import ApplianceVm
from lab.daemon import Daemon, free_port, spawn

pytestmark = [pytest.mark.lab, pytest.mark.timeout(1800)]

LUN0, SLOG = "/dev/disk/by-id/virtio-lun0", "/dev/disk/by-id/virtio-ssd-slog"
HOST = "10.0.2.2"  # the host as qemu user networking shows it to the guest
FILE_MIB = 16
SCRAPE_SECONDS = 5
ARC_HIT_RATIO = (
    "sum(rate(arcvsa_arc_hits_total[1m])) / "
    "(sum(rate(arcvsa_arc_hits_total[1m])) + sum(rate(arcvsa_arc_misses_total[1m])))"
)


def host_binary(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not installed: make setup installs Debian's prometheus package (mk/ops.mk)")
    return path


class Prometheus:
    """The host's Prometheus server on a free loopback port, its data in a temporary folder."""

    def __init__(self, folder: Path, config: dict[str, Any]) -> None:
        self.folder = folder
        self.port = free_port()
        (folder / "prometheus.yml").write_text(json.dumps(config, indent=2), encoding="utf-8")  # YAML ⊃ JSON
        argv = [
            host_binary("prometheus"),
            f"--config.file={folder / 'prometheus.yml'}",
            f"--storage.tsdb.path={folder / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--storage.tsdb.retention.time=1h",
        ]
        self.daemon: Daemon = spawn(argv, log=folder / "prometheus.log", marker=str(folder), tied=True)

    def get(self, path: str, **params: str) -> Any:
        """The ``data`` of an HTTP API answer (status checked)."""
        url = f"http://127.0.0.1:{self.port}{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=30) as answer:
            body = json.loads(answer.read())
        assert body["status"] == "success", body
        return body["data"]

    def ready(self) -> bool | None:
        """True once the server answers /-/ready (it must not have exited meanwhile)."""
        assert self.daemon.alive(), self.log()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=5) as answer:
                return True if answer.status == 200 else None
        except OSError:
            return None

    def target(self, health: str) -> dict[str, Any] | None:
        """The one scrape target (with its last error) once its last scrape had ``health`` (up, down)."""
        active = self.get("/api/v1/targets", state="active")["activeTargets"]  # empty until discovered
        assert len(active) <= 1, active
        return dict(active[0]) if active and active[0]["health"] == health else None

    def query(self, expr: str) -> list[dict[str, Any]]:
        """An instant vector's samples."""
        data = self.get("/api/v1/query", query=expr)
        assert data["resultType"] == "vector", data
        return list(data["result"])

    def log(self) -> str:
        return (self.folder / "prometheus.log").read_text(encoding="utf-8", errors="replace")[-3000:]

    def stop(self) -> None:
        self.daemon.stop()


def nfs_url(vm: ApplianceVm, path: str) -> str:
    ports = vm.config.host_ports
    return f"nfs://127.0.0.1{path}?nfsport={ports['nfs']}&mountport={ports['mountd']}"


@pytest.fixture(scope="module")
def datastore(api: LabApi, appliance: ApplianceVm, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A pool with a SLOG, a stateless-linked dataset and its NFSv3 export to the host; its path."""
    tmp = tmp_path_factory.mktemp("nfs")
    created = api.call(
        "POST", "/api/storage/pools", {"name": "tank", "data": [LUN0], "log": [SLOG]}, expect=201
    )
    assert created["state"] == "ONLINE", created
    api.call("POST", "/api/storage/datasets", {"name": "tank/vdi", "profile": "stateless-linked"}, expect=201)
    body = {"dataset": "tank/vdi", "protocol": "3", "clients": [HOST], "insecure_ports": True}
    api.call("POST", "/api/storage/exports", body, expect=201)
    wait_writable(lambda p: nfs_url(appliance, p), "/tank/vdi", tmp / "probe")
    return "/tank/vdi"


@pytest.fixture(scope="module")
def scrape_token(api: LabApi) -> Iterator[dict[str, Any]]:
    """A scrape token made through the api (the admin's way); revoked afterwards if the test did not."""
    created: dict[str, Any] = api.call("POST", "/api/metrics/scrape-tokens", {"name": "lab-prometheus"}, 201)
    yield created
    status, _ = api.raw("DELETE", f"/api/metrics/scrape-tokens/{created['id']}")
    assert status in (204, 404)


@pytest.fixture(scope="module")
def prometheus(
    booted: BootedAppliance, scrape_token: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Prometheus]:
    folder = tmp_path_factory.mktemp("prometheus")
    credentials = folder / "scrape-token"
    credentials.touch(mode=0o600)
    credentials.write_text(scrape_token["token"], encoding="utf-8")
    config = {
        "global": {"scrape_interval": f"{SCRAPE_SECONDS}s", "scrape_timeout": f"{SCRAPE_SECONDS - 1}s"},
        "scrape_configs": [
            {
                "job_name": "arcvsa",
                "scheme": "https",
                "metrics_path": "/api/metrics/prometheus",
                "authorization": {"type": "Bearer", "credentials_file": str(credentials)},
                # pinned: the certificate first boot made is the only CA; it names localhost
                "tls_config": {"ca_file": str(booted.api.cert_file), "server_name": "localhost"},
                "static_configs": [{"targets": [f"127.0.0.1:{booted.api.port}"]}],
            }
        ],
    }
    server = Prometheus(folder, config)
    try:
        polling.wait("prometheus ready", server.ready, timeout=60, every=0.5)
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder / "tsdb", ignore_errors=True)
        credentials.unlink()  # revoked at the end of the module, but no token stays on disk


def test_the_exposition_passes_promtool(booted: BootedAppliance, scrape_token: dict[str, Any]) -> None:
    """One scrape by hand, over the pinned TLS, with the scrape token: what Prometheus will parse."""
    context = ssl.create_default_context(cafile=str(booted.api.cert_file))
    context.check_hostname = False  # the pinned certificate is the only CA; it names the guest, not 127.0.0.1
    request = urllib.request.Request(
        f"https://127.0.0.1:{booted.api.port}/api/metrics/prometheus",
        headers={"Authorization": f"Bearer {scrape_token['token']}"},
    )
    with urllib.request.urlopen(request, timeout=60, context=context) as answer:  # noqa: S310 (https only)
        assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = answer.read().decode()
    done = subprocess.run(
        [host_binary("promtool"), "check", "metrics"], input=text, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'arcvsa_collector_success{collector="arc"} 1' in text


def test_prometheus_scrapes_and_answers_the_arc_hit_ratio(
    datastore: str, prometheus: Prometheus, appliance: ApplianceVm, tmp_path: Path
) -> None:
    # the datastore first: scrapes while zpool create writes labels through the throttled SAN may time out
    target = polling.wait("first scrape", lambda: prometheus.target("up"), timeout=180)
    print(f"\nscraped in {target['lastScrapeDuration']:.3f} s")
    assert [s["value"][1] for s in prometheus.query('up{job="arcvsa"}')] == ["1"]

    # ARC traffic between scrapes: a file written over NFS, then read back (warm: from the ARC).
    local = tmp_path / "data.bin"
    with local.open("wb") as handle:
        for index in range(FILE_MIB):
            handle.write(index.to_bytes(4, "big") * (1 << 18))
    nfs_cp(str(local), nfs_url(appliance, f"{datastore}/data.bin"), timeout=600)
    deadline = time.monotonic() + 4 * SCRAPE_SECONDS
    while time.monotonic() < deadline:
        back = tmp_path / "back.bin"
        back.unlink(missing_ok=True)
        nfs_cp(nfs_url(appliance, f"{datastore}/data.bin"), str(back), timeout=600)
        assert back.read_bytes() == local.read_bytes()

    def ratio() -> float | None:
        found = prometheus.query(ARC_HIT_RATIO)
        return float(found[0]["value"][1]) if found and found[0]["value"][1] != "NaN" else None

    hit_ratio = polling.wait("ARC hit ratio in PromQL", ratio, timeout=120)
    print(f"ARC hit ratio (PromQL, 1m): {hit_ratio:.3f}")
    assert 0.5 < hit_ratio <= 1.0  # warm reads of a file the ARC holds

    online = prometheus.query('arcvsa_pool_health{pool="tank",state="ONLINE"}')
    assert [s["value"][1] for s in online] == ["1"]
    assert [s["value"][1] for s in prometheus.query('arcvsa_alerts_active{severity="critical"}')] == ["0"]
    failing = prometheus.query("arcvsa_collector_success == 0")
    assert failing == [], failing
    offload = prometheus.query(
        "sum(rate(arcvsa_nfs_read_bytes_total[1m])) / sum(rate(arcvsa_lun_read_bytes_total[1m]))"
    )
    print(f"read offload (PromQL, 1m): {offload[0]['value'][1] if offload else 'no data'}")


def test_a_revoked_token_stops_the_scrapes(
    prometheus: Prometheus, api: LabApi, scrape_token: dict[str, Any]
) -> None:
    polling.wait("a scrape", lambda: prometheus.target("up"), timeout=120)
    api.call("DELETE", f"/api/metrics/scrape-tokens/{scrape_token['id']}", expect=204)
    refused = polling.wait("a refused scrape", lambda: prometheus.target("down"), timeout=60)
    assert "401" in refused["lastError"], refused
