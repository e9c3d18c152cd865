"""A lab vCenter: govmomi's simulator on 127.0.0.1, shaped like a small VDI site.

The simulator is arcvsa-vcsim (tools/labvcsim): vcsim's model with hosts the size of VDI hosts
(HOST_MEMORY_GIB, HOST_CORES), so that an appliance passes its admission check; the last host is an
older, smaller one, where a large appliance does not fit.

vcsim's own model names everything DC0_C0_H0 and cannot rename datastores, so the site is built after
start through the vSphere API itself: two shared datastores, VMs on them, a golden image with a snapshot,
and the renames a vSphere admin would do. That keeps the fixture honest: what the tests read was written
by pyVmomi calls that also work against a real vCenter.

Run `python -m lab.vcsim` for a foreground instance (the demo): it prints its connection details as one
JSON line and stops cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import datetime as dt
import ipaddress
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pyVmomi import vim, vmodl

from pki import Extension, Validity, self_signed
from process import ProcessError, run
from provisioning.certificate import fetch_certificate
from provisioning.errors import Unreachable
from provisioning.session import connect

# The site every test and the demo can count on.
DATACENTER = "vdi-dc"
CLUSTER = "vdi-cluster"
HOST_COUNT = 4
#: memory of DC0_C0_H0 .. H3: a large appliance (32 GiB) does not fit the last one
HOST_MEMORY_GIB = (128, 128, 128, 24)
HOST_CORES = 16
DATASTORES = ("san-lun-01", "san-lun-02")
#: vcsim's two distributed port groups DC0_DVPG0/1, renamed; vcsim also has the standard 'VM Network'
#: and the switch's uplink port group DVS0-DVUplinks-<n>
PORT_GROUPS = ("vdi-desktops", "vsa-nfs")
GOLDEN_VM = "golden-win11"
GOLDEN_SNAPSHOT = "base"
DESKTOP_VMS = ("desktop-01", "desktop-02", "desktop-03")
GUEST_ID = "windows11_64Guest"
#: vcsim refuses logins whose user name contains "@" (administrator@vsphere.local), so no domain here
USERNAME = "administrator"

_VERSION_HINT = "build it from tools/labvcsim with `make setup`"


class VcsimError(RuntimeError):
    """vcsim could not be found, started or shaped into the lab site."""


BINARY = "arcvsa-vcsim"


def find_vcsim() -> str:
    """Path of the lab's simulator: $VCSIM, then arcvsa-vcsim on PATH, then in $(go env GOPATH)/bin."""
    if explicit := os.environ.get("VCSIM"):
        if not os.access(explicit, os.X_OK):
            raise VcsimError(f"$VCSIM={explicit} is not an executable")
        return explicit
    if found := shutil.which(BINARY):
        return found
    go = shutil.which("go")
    if go:
        try:
            gopath = run([go, "env", "GOPATH"], timeout=20).stdout.strip()
        except (ProcessError, OSError):
            gopath = ""
        for entry in filter(None, gopath.split(os.pathsep)):
            candidate = Path(entry) / "bin" / BINARY
            if os.access(candidate, os.X_OK):
                return str(candidate)
    raise VcsimError(f"{BINARY} not found; {_VERSION_HINT}")


def write_self_signed(
    directory: Path,
    host: str = "127.0.0.1",
    *,
    organisation: str = "arcvsa lab",
    stem: str = "vcsim",
    days: int = 30,
) -> tuple[Path, Path]:
    """A fresh self-signed certificate and key for `host`, as PEM files (`stem`.crt, `stem`.key) in `directory`.

    vcsim's built-in certificate is the same for everyone (its key ships with govmomi), so each lab
    vCenter gets its own: a test cannot then pass on a thumbprint that happens to be hard-coded. An IP
    address is also the certificate's subject alternative name.
    """
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organisation),
            x509.NameAttribute(NameOID.COMMON_NAME, host),
        ]
    )
    extensions: list[Extension] = []
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        extensions.append(Extension(x509.SubjectAlternativeName([x509.IPAddress(address)]), critical=False))
    now = dt.datetime.now(dt.UTC)
    validity = Validity(not_before=now - dt.timedelta(minutes=5), not_after=now + dt.timedelta(days=days))
    cert = self_signed(key, name, validity=validity, extensions=extensions)
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / f"{stem}.crt", directory / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.touch(mode=0o600)
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def wait_for_task(si: vim.ServiceInstance, task: vim.Task, timeout: float) -> Any:
    """The task's result once it succeeds; raises its fault, or TimeoutError.

    Waits on a PropertyCollector filter with WaitForUpdatesEx (pyVim.task.WaitForTask is flaky against
    vcsim) in its own collector so the session's other filters are left alone.
    """
    deadline = time.monotonic() + timeout
    pcm = vmodl.query.PropertyCollector
    collector = si.RetrieveContent().propertyCollector.CreatePropertyCollector()
    try:
        collector.CreateFilter(
            pcm.FilterSpec(
                objectSet=[pcm.ObjectSpec(obj=task, skip=False)],
                propSet=[
                    pcm.PropertySpec(type=vim.Task, pathSet=["info.state", "info.error", "info.result"])
                ],
            ),
            partialUpdates=False,
        )
        version, info = "", dict[str, Any]()
        while info.get("info.state") not in ("success", "error"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"task {task._moId} still {info.get('info.state')} after {timeout:g} s")
            update = collector.WaitForUpdatesEx(
                version, pcm.WaitOptions(maxWaitSeconds=max(1, int(min(left, 5))))
            )
            if update is None:
                continue
            version = update.version
            for filter_update in update.filterSet:
                for obj in filter_update.objectSet:
                    info.update({change.name: change.val for change in obj.changeSet})
        if info["info.state"] == "error":
            raise info["info.error"]
        return info.get("info.result")
    finally:
        collector.Destroy()


def build_site(si: vim.ServiceInstance, workdir: Path, *, timeout: float = 30.0) -> None:
    """Turn vcsim's bare model (1 datacenter, 1 cluster, no datastores, no VMs) into the lab site."""
    content = si.RetrieveContent()
    assert content.searchIndex is not None
    find = content.searchIndex.FindByInventoryPath
    dc, cluster = find("DC0"), find("DC0/host/DC0_C0")
    if not isinstance(dc, vim.Datacenter) or not isinstance(cluster, vim.ClusterComputeResource):
        raise VcsimError("vcsim's model has no DC0/host/DC0_C0; was it started with other flags?")
    hosts = list(cluster.host)

    datastores = []
    for name in DATASTORES:
        # vcsim backs a "local" datastore with a directory; the same one on every host makes it shared.
        backing = workdir / name
        backing.mkdir()
        for host in hosts:
            system = host.configManager.datastoreSystem
            assert system is not None
            ds = system.CreateLocalDatastore(name, str(backing))
        datastores.append(ds)

    for i, name in enumerate((GOLDEN_VM, *DESKTOP_VMS)):
        spec = vim.vm.ConfigSpec(
            name=name,
            guestId=GUEST_ID,
            numCPUs=2,
            memoryMB=4096,
            files=vim.vm.FileInfo(vmPathName=f"[{DATASTORES[i % len(DATASTORES)]}]"),
        )
        vm = wait_for_task(
            si, dc.vmFolder.CreateVM_Task(spec, cluster.resourcePool, hosts[i % len(hosts)]), timeout
        )
        if name == GOLDEN_VM:
            snapshot = vm.CreateSnapshot_Task(
                name=GOLDEN_SNAPSHOT, description="sealed golden image", memory=False, quiesce=False
            )
            wait_for_task(si, snapshot, timeout)
        else:
            wait_for_task(si, vm.PowerOnVM_Task(), timeout)

    drs_ha = vim.cluster.ConfigSpecEx(
        drsConfig=vim.cluster.DrsConfigInfo(enabled=True),
        dasConfig=vim.cluster.DasConfigInfo(enabled=True),
    )
    wait_for_task(si, cluster.ReconfigureComputeResource_Task(drs_ha, modify=True), timeout)

    for old, new in zip(("DC0_DVPG0", "DC0_DVPG1"), PORT_GROUPS, strict=True):
        pg = find(f"DC0/network/{old}")
        if pg is None:
            raise VcsimError(f"vcsim's model has no port group {old}; was it started with -pg 2?")
        wait_for_task(si, pg.Rename_Task(new), timeout)
    wait_for_task(si, cluster.Rename_Task(CLUSTER), timeout)
    wait_for_task(si, dc.Rename_Task(DATACENTER), timeout)


class Vcsim:
    """One vcsim process on 127.0.0.1 with a free port, fresh credentials and the lab site.

    Always stopped: by `stop()`, by leaving the `with` block, at interpreter exit, and, should this
    process die without any of those, by vcsim itself when its stdin pipe closes (-stdinexit).
    """

    def __init__(
        self,
        *,
        build: bool = True,
        tls_cert: str | None = None,
        tls_key: str | None = None,
        start_timeout: float = 60.0,
        binary: str | None = None,
    ) -> None:
        self.build = build
        self.tls_cert, self.tls_key = tls_cert, tls_key
        self.start_timeout = start_timeout
        self.binary = binary
        self.username = USERNAME
        self.password = secrets.token_hex(12)
        self.host = "127.0.0.1"
        self.port = 0
        self.thumbprint_sha256 = ""
        self.workdir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The SDK URL, without credentials."""
        return f"https://{self.host}:{self.port}/sdk"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def details(self) -> dict[str, Any]:
        """Connection details and the names of the lab site, as the CLI prints them."""
        return {
            "url": self.url,
            "host": self.host,
            "port": self.port,
            "username": self.username,
            "password": self.password,
            "thumbprint_sha256": self.thumbprint_sha256,
            "pid": self._proc.pid if self._proc else None,
            "workdir": str(self.workdir),
            "datacenter": DATACENTER,
            "cluster": CLUSTER,
            "datastores": list(DATASTORES),
            "port_groups": list(PORT_GROUPS),
            "golden_vm": GOLDEN_VM,
            "golden_snapshot": GOLDEN_SNAPSHOT,
        }

    def argv(self, binary: str, password_file: Path, tls_cert: str, tls_key: str) -> list[str]:
        # vcsim's own datastores (-ds) cannot be renamed and its VMs (-vm) need one: both are made later.
        # -password takes a file name too, which keeps the password out of `ps`.
        args = [
            binary,
            "-l", f"{self.host}:0",
            "-username", self.username,
            "-password", str(password_file),
            "-dc", "1", "-cluster", "1", "-host", str(HOST_COUNT), "-standalone-host", "0",
            "-ds", "0", "-vm", "0", "-pg", str(len(PORT_GROUPS)),
            "-host-memory-gib", ",".join(map(str, HOST_MEMORY_GIB)), "-host-cores", str(HOST_CORES),
            "-E", "vcsim.env",
            "-stdinexit",
            "-tlscert", tls_cert,
            "-tlskey", tls_key,
        ]  # fmt: skip
        return args

    def start(self) -> Vcsim:
        """Start vcsim, wait until it answers, build the site; raises VcsimError within start_timeout."""
        if self._proc is not None:
            raise VcsimError("already started")
        deadline = time.monotonic() + self.start_timeout
        binary = self.binary or find_vcsim()
        self.workdir = Path(tempfile.mkdtemp(prefix="arcvsa-vcsim-"))
        # -E only writes to a file that exists
        (self.workdir / "vcsim.env").touch()
        password_file = self.workdir / "password"
        password_file.touch(mode=0o600)
        password_file.write_text(self.password)
        if self.tls_cert and self.tls_key:
            tls_cert, tls_key = self.tls_cert, self.tls_key
        else:
            cert_path, key_path = write_self_signed(self.workdir, self.host)
            tls_cert, tls_key = str(cert_path), str(key_path)
        with open(self.workdir / "vcsim.log", "wb") as log:
            self._proc = subprocess.Popen(
                self.argv(binary, password_file, tls_cert, tls_key),
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                # vcsim puts its scratch directories under TMPDIR: keep them in the workdir we remove
                env={**os.environ, "TMPDIR": str(self.workdir)},
                start_new_session=True,
            )
        atexit.register(self.stop)
        try:
            self.port = self._wait_for_port(deadline)
            self.thumbprint_sha256 = self._wait_for_tls(deadline)
            if self.build:
                with connect(
                    self.host,
                    self.port,
                    self.username,
                    self.password,
                    thumbprint_sha256=self.thumbprint_sha256,
                    timeout=max(deadline - time.monotonic(), 1.0),
                ) as si:
                    build_site(si, self.workdir, timeout=max(deadline - time.monotonic(), 1.0))
        except BaseException as exc:
            tail = self._log_tail()
            self.stop()
            if isinstance(exc, Exception) and not isinstance(exc, VcsimError):
                raise VcsimError(f"vcsim did not come up: {exc!r}\n{tail}") from exc
            raise
        return self

    def _wait_for_port(self, deadline: float) -> int:
        assert self._proc is not None and self.workdir is not None
        env_file = self.workdir / "vcsim.env"
        while time.monotonic() < deadline:
            text = env_file.read_text()
            if text.endswith("\n"):
                for word in text.split():
                    if word.startswith("GOVC_URL="):
                        port = urlsplit(word.removeprefix("GOVC_URL=")).port
                        if port:
                            return port
                raise VcsimError(f"cannot read vcsim's URL from {text!r}")
            if self._proc.poll() is not None:
                raise VcsimError(f"vcsim exited with {self._proc.returncode}:\n{self._log_tail()}")
            time.sleep(0.05)
        raise VcsimError(f"vcsim printed no URL within {self.start_timeout:g} s:\n{self._log_tail()}")

    def _wait_for_tls(self, deadline: float) -> str:
        # vcsim prints its URL once listening, so this normally succeeds at once.
        while True:
            try:
                return fetch_certificate(self.host, self.port, timeout=2.0).thumbprint_sha256
            except Unreachable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _log_tail(self, lines: int = 20) -> str:
        try:
            assert self.workdir is not None
            return "\n".join((self.workdir / "vcsim.log").read_text(errors="replace").splitlines()[-lines:])
        except (OSError, AssertionError):
            return ""

    def stop(self) -> None:
        """Stop vcsim and everything in its process group, wait for it, remove its files. Idempotent."""
        proc, self._proc = self._proc, None
        atexit.unregister(self.stop)
        if proc is not None:
            # Signal the group only while its leader is not reaped yet: the group id cannot be reused then.
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
            if proc.stdin:
                proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self) -> Vcsim:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Run a lab vCenter in the foreground until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m lab.vcsim", description=__doc__.splitlines()[0])
    parser.add_argument("--bare", action="store_true", help="vcsim's bare model, without the lab site")
    parser.add_argument("--start-timeout", type=float, default=60.0, help="seconds to wait for readiness")
    args = parser.parse_args(argv)

    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    try:
        sim = Vcsim(build=not args.bare, start_timeout=args.start_timeout).start()
    except VcsimError as exc:
        print(f"lab.vcsim: {exc}", file=sys.stderr)
        return 1
    try:
        print(json.dumps(sim.details()), flush=True)
        while not stopping.wait(0.5):
            if not sim.running:
                print("lab.vcsim: vcsim exited by itself", file=sys.stderr)
                return 1
        return 0
    finally:
        sim.stop()


if __name__ == "__main__":
    sys.exit(main())
