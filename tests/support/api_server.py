"""An httpx client for a running `python -m api` (lab.stack.ApiServer), with a token and pinned TLS."""

from __future__ import annotations

import ssl
import time
from typing import Any

import httpx
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from lab.stack import ApiServer
from lab.vcsim import Vcsim
from provisioning.certificate import thumbprint_sha256
from support.api import ADMIN, ADMIN_PASSWORD

FINAL = {"succeeded", "failed", "cancelled"}


def client(server: ApiServer) -> httpx.Client:
    ctx = ssl.create_default_context(cafile=str(server.data_dir / "tls.crt"))
    anon = httpx.Client(base_url=server.url, verify=ctx, timeout=30)
    r = anon.post("/api/auth/token", json={"username": ADMIN, "password": ADMIN_PASSWORD})
    r.raise_for_status()
    anon.headers["Authorization"] = f"Bearer {r.json()['token']}"
    return anon


def api_thumbprint(server: ApiServer) -> str:
    """The api's own certificate thumbprint: the api stands in for the appliances' health endpoints."""
    cert = x509.load_pem_x509_certificate((server.data_dir / "tls.crt").read_bytes())
    return thumbprint_sha256(cert.public_bytes(Encoding.DER))


def add_vcenter(api: httpx.Client, sim: Vcsim) -> int:
    body = {
        "name": "lab-vc", "host": sim.host, "port": sim.port, "username": sim.username,
        "password": sim.password, "thumbprint_sha256": sim.thumbprint_sha256,
    }  # fmt: skip
    r = api.post("/api/vcenters", json=body)
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def wait_job(api: httpx.Client, job_id: int, timeout: float, until: Any = None) -> dict[str, Any]:
    """Poll a job until it is final (or `until(job)` holds); returns the job."""
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = api.get(f"/api/jobs/{job_id}").json()
        if (until(job) if until else job["state"] in FINAL) or time.monotonic() > deadline:
            return job
        time.sleep(0.1)
