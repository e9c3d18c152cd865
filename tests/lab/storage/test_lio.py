"""LIO through rtslib on the booted appliance: all-or-nothing creates, no CHAP secret on any argv, and
SCSI-3 persistent reservations from two initiators that survive a target restart with APTPL.

Targets are made through the appliance's api; the guest's shell is used only to look at what the api
cannot show (configfs, /proc, LIO's saved files), to restart the target service and to run the reconciler
itself a second time.

- A failure half way: the request's second initiator is an IQN of 260 characters. arcvsa's IQN pattern
  has no length limit and configfs refuses a directory name over 255 bytes, so LIO itself refuses the
  ACL after the backstore, target, TPG, portal, LUN and the first ACL with its CHAP were made: a real
  refusal at a real step, with no hook in the product. Nothing may be left in configfs nor in
  saveconfig.json, and the same request without that initiator then succeeds.
- While creates with CHAP run, a sampler in the guest reads every process's /proc/PID/cmdline as fast
  as it can; it must never see a secret, and must see a control token put on an argv on purpose (so
  it can fail).
- Two initiators (libiscsi on the host, tests/support/iscsi_pr.py) register with APTPL, one reserves
  (the other's write then conflicts), the other preempts; the target service is restarted (LIO
  cleared and restored from saveconfig.json) and the registration and reservation are still there;
  then they are cleared.
- Reading the targets (what GET answers from) starts no process: configfs through rtslib only.
- The reconciler converges: run again on what it made it changes nothing, and a VAAI attribute set by
  hand is set back by the poller's reconcile from the stored target (and nothing else touched), logged.
- An update that drops an initiator, whose save then fails (the save replaced in the guest's process, the
  one hook here: LIO itself refuses no removal), makes that initiator's ACL again with its CHAP and its
  mapped LUN.
- A target removed with targetcli (backstore and all) is made again by the poller from the stored target,
  with the unit serial ESXi knows the LUN by.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fixtures.appliance.remote import SshRunner
from support.iscsi_pr import (
    CLEAR,
    GOOD,
    PREEMPT,
    REGISTER,
    REGISTRATIONS_PREEMPTED,
    RESERVATION_CONFLICT,
    RESERVE,
    WRITE_EXCLUSIVE,
    Initiator,
)
from support.lab_api import LabApi, in_guest

from lab.appliance_vm import ApplianceVm

pytestmark = [pytest.mark.lab, pytest.mark.timeout(2400)]

TARGETS = "/api/storage/iscsi/targets"
CONFIGFS = "/sys/kernel/config/target"
SAVECONFIG = "/etc/rtslib-fb-target/saveconfig.json"
# Held by the api and the poller around every change of the targets: a reconcile run here under it
# never meets the poller's.
ISCSI_LOCK = "/var/lib/arcvsa/iscsi.lock"
PR_DIR = "/etc/rtslib-fb-target/pr"
ZVOL_BYTES = 32 << 20
HOST_A = "iqn.2026-11.lab.arcvsa:esxi-a"
HOST_B = "iqn.2026-11.lab.arcvsa:esxi-b"
# 260 characters: valid for arcvsa's pattern, longer than a configfs directory name may be.
TOO_LONG = "iqn.2026-11.lab.arcvsa." + "x" * (260 - len("iqn.2026-11.lab.arcvsa.") - len(":h")) + ":h"
KEY_A, KEY_B = 0xA0A0, 0xB0B0


def chap() -> dict[str, str]:
    return {"user": "esxi-lio", "secret": secrets.token_hex(12)}


@pytest.fixture(scope="module")
def pool(api: LabApi) -> str:
    """A pool on the first SAN LUN for this module's zvols."""
    api.call(
        "POST", "/api/storage/pools", {"name": "tank", "data": ["/dev/disk/by-id/virtio-lun0"]}, expect=201
    )
    return "tank"


@pytest.fixture
def zvol(api: LabApi, pool: str, request: pytest.FixtureRequest) -> str:
    """A fresh 32 MiB zvol named after the test."""
    name = f"{pool}/{request.node.name.removeprefix('test_')[:24].replace('_', '-').strip('-')}"
    api.call("POST", "/api/storage/volumes", {"name": name, "size_bytes": ZVOL_BYTES}, expect=201)
    return name


# The iSCSI fabric's own directories: there while its kernel module is loaded (by the first create), made
# by no create and removed by no delete.
FABRIC = {f"{CONFIGFS}/iscsi", f"{CONFIGFS}/iscsi/discovery_auth"}


def lio_tree(guest: SshRunner) -> list[str]:
    """Every directory of LIO's backstores and iSCSI targets in configfs (objects, not attributes)."""
    argv = ["find", f"{CONFIGFS}/core", f"{CONFIGFS}/iscsi", "-maxdepth", "7", "-type", "d"]
    found = guest.execute(argv, timeout=120).stdout.splitlines()
    return sorted(p for p in found if p not in FABRIC and not p.endswith(("/attrib", "/param")))


def saved(guest: SshRunner) -> str:
    """SHA-256 of LIO's saved configuration ("" when there is none)."""
    result = guest.execute(["cat", SAVECONFIG], timeout=60)
    return hashlib.sha256(result.stdout.encode()).hexdigest() if result.exit_code == 0 else ""


def test_a_create_lio_refuses_half_way_leaves_nothing_behind(
    api: LabApi, guest: SshRunner, zvol: str
) -> None:
    iqn = "iqn.2026-11.lab.arcvsa:half-way"
    before, before_saved = lio_tree(guest), saved(guest)
    body = {"iqn": iqn, "zvol": zvol, "initiators": [HOST_A, TOO_LONG], "chap": chap()}
    error = api.refused("POST", TARGETS, body, expect=502)
    print(f"\nrefused half way: {error['detail'][:300]}")
    assert error["code"] == "system_fault" and "CreateAcl" in error["detail"], error
    assert "nothing of this change is left" in error["detail"]
    assert body["chap"]["secret"] not in json.dumps(error)
    after = lio_tree(guest)
    assert after == before, f"left behind: {sorted(set(after) - set(before))}"
    assert saved(guest) == before_saved
    assert iqn not in [t["iqn"] for t in api.call("GET", TARGETS)]
    # nothing blocks the same target without the refused initiator
    made = api.call("POST", TARGETS, {**body, "initiators": [HOST_A]}, expect=201)
    assert made["luns"] == [f"/dev/zvol/{zvol}"] and made["chap"] is True
    assert made["vaai"] == {"emulate_3pc": 1, "emulate_caw": 1, "emulate_tpu": 1, "emulate_tpws": 0}
    assert saved(guest) != before_saved
    api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)
    assert lio_tree(guest) == before


SAMPLER = r"""
import json, os, sys, time
secrets = [s.encode() for s in sys.stdin.read().split()]
control = secrets.pop(0)
stop = "/run/arcvsa-argv-sampler.stop"
passes = reads = 0
pids = set()
hits, control_seen = [], False
deadline = time.monotonic() + 600
while not os.path.exists(stop) and time.monotonic() < deadline:
    passes += 1
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read()
        except OSError:
            continue
        reads += 1
        pids.add(pid)
        control_seen = control_seen or control in argv
        hits += [argv.replace(b"\0", b" ").decode(errors="replace")[:200] for s in secrets if s in argv]
print(json.dumps({"passes": passes, "reads": reads, "pids": len(pids), "hits": hits, "control": control_seen}))
"""


def test_no_process_ever_shows_a_chap_secret(api: LabApi, guest: SshRunner, pool: str) -> None:
    creates = 3
    creds = [chap() for _ in range(creates)]
    control = secrets.token_hex(8)
    for i in range(creates):
        api.call(
            "POST", "/api/storage/volumes", {"name": f"{pool}/argv{i}", "size_bytes": ZVOL_BYTES}, expect=201
        )
    in_guest(guest, ["rm", "-f", "/run/arcvsa-argv-sampler.stop"])
    result: dict[str, Any] = {}

    def sample() -> None:
        stdin = " ".join([control, *(c["secret"] for c in creds)])
        answer = guest.execute(["python3", "-c", SAMPLER], timeout=900, input_text=stdin)
        result.update(json.loads(answer.stdout or "{}"), exit_code=answer.exit_code, stderr=answer.stderr)

    sampler = threading.Thread(target=sample)
    sampler.start()
    time.sleep(5)  # the sampler is reading before the first create
    started = time.monotonic()
    # the positive control: a process whose argv carries a token, as targetcli's carried the secret
    in_guest(guest, ["sh", "-c", "sleep 1", control])
    for i, cred in enumerate(creds):
        iqn = f"iqn.2026-11.lab.arcvsa:argv{i}"
        api.call(
            "POST",
            TARGETS,
            {"iqn": iqn, "zvol": f"{pool}/argv{i}", "initiators": [HOST_A], "chap": cred},
            expect=201,
        )
        api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)
    seconds = time.monotonic() - started
    in_guest(guest, ["touch", "/run/arcvsa-argv-sampler.stop"])
    sampler.join(timeout=900)
    print(
        f"\nargv sampler: {result.get('passes')} passes over /proc, {result.get('reads')} cmdlines read "
        f"({result.get('pids')} processes) during {creates} CHAP creates and deletes in {seconds:.1f} s; "
        f"hits {result.get('hits')}; control token seen {result.get('control')}"
    )
    assert result.get("exit_code") == 0, result
    assert result["control"], "the sampler missed the control token: it cannot see argv"
    assert result["passes"] > 10 * creates, result
    assert result["hits"] == [], result["hits"]


@pytest.fixture
def pr_target(api: LabApi, guest: SshRunner, zvol: str) -> Iterator[str]:
    iqn = "iqn.2026-11.lab.arcvsa:reservations"
    # both initiators run on the host: its network is the one the firewall lets in to 3260
    allowed = api.call("GET", "/api/settings/firewall")["settings"]
    api.call("PUT", "/api/settings/firewall", {**allowed, "iscsi": ["10.0.2.2/32"]})
    api.call("POST", TARGETS, {"iqn": iqn, "zvol": zvol, "initiators": [HOST_A, HOST_B]}, expect=201)
    yield iqn
    api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)
    left = in_guest(guest, ["ls", PR_DIR]).stdout.split()
    assert not [f for f in left if f.startswith("aptpl_")], f"the deleted LUN's reservations stayed: {left}"


def test_persistent_reservations_from_two_initiators_survive_a_target_restart(
    api: LabApi, guest: SshRunner, appliance: ApplianceVm, pr_target: str
) -> None:
    assert shutil.which("iscsi-ls"), "libiscsi-bin missing on the host (make setup)"
    mode = in_guest(guest, ["stat", "-c", "%a", PR_DIR]).stdout.strip()
    assert mode == "700", f"{PR_DIR} mode {mode}"
    portal = f"127.0.0.1:{appliance.config.host_ports['iscsi']}"
    seen: list[str] = []
    with Initiator(HOST_A, portal, pr_target) as a, Initiator(HOST_B, portal, pr_target) as b:
        for who, key in ((a, KEY_A), (b, KEY_B)):
            answer = who.prout(REGISTER, 0, key, aptpl=True)
            assert answer.status == GOOD, f"{who.name} REGISTER: {answer}"
        assert sorted(a.read_keys()) == [KEY_A, KEY_B]
        seen.append("registered A and B (APTPL)")
        assert a.prout(RESERVE, KEY_A, rtype=WRITE_EXCLUSIVE).status == GOOD
        assert b.read_reservation() == (KEY_A, WRITE_EXCLUSIVE)
        assert b.write().status == RESERVATION_CONFLICT, "B wrote through A's reservation"
        assert a.write().status == GOOD
        seen.append("A reserved (write exclusive); B's write conflicted, A's went through")
        answer = b.prout(PREEMPT, KEY_B, KEY_A, rtype=WRITE_EXCLUSIVE)
        assert answer.status == GOOD, f"B PREEMPT: {answer}"
        assert a.read_reservation() == (KEY_B, WRITE_EXCLUSIVE) and a.read_keys() == [KEY_B]
        assert REGISTRATIONS_PREEMPTED in a.attentions, [hex(x) for x in a.attentions]
        assert a.write().status == RESERVATION_CONFLICT
        seen.append("B preempted A: A was told (unit attention 2A/05), B holds it, A's writes conflict")
    files = in_guest(guest, ["ls", PR_DIR]).stdout.split()
    assert [f for f in files if f.startswith("aptpl_")], f"no APTPL file in {PR_DIR}: {files}"

    in_guest(guest, ["systemctl", "restart", "rtslib-fb-targetctl.service"], timeout=300)
    seen.append("target service restarted (LIO cleared and restored from saveconfig.json)")
    with Initiator(HOST_A, portal, pr_target) as a, Initiator(HOST_B, portal, pr_target) as b:
        assert b.read_keys() == [KEY_B], "the registration did not survive the restart"
        assert a.read_reservation() == (KEY_B, WRITE_EXCLUSIVE), "the reservation did not survive"
        assert a.write().status == RESERVATION_CONFLICT
        seen.append("after the restart: B's key and reservation are back, A still conflicts")
        assert b.prout(CLEAR, KEY_B).status == GOOD
        assert a.read_keys() == [] and a.read_reservation() is None
        assert a.write().status == GOOD
        seen.append("B cleared: no keys, no reservation, A writes")
    print("\npersistent reservations: " + "; ".join(seen))


NO_PROCESS = r"""
import json, os, subprocess
started = []
popen = subprocess.Popen.__init__
def spy(self, *args, **kwargs):
    started.append(str(args[0] if args else kwargs.get("args")))
    return popen(self, *args, **kwargs)
subprocess.Popen.__init__ = spy
fork = os.fork
os.fork = lambda: started.append("fork") or fork()
subprocess.run(["true"], check=True)  # the control: the spy sees a process start
control = list(started)
started.clear()
from api.iscsi import service
found = [t.iqn for t in service.targets()]
print(json.dumps({"control": control, "started": started, "targets": found}))
"""


def test_reading_targets_starts_no_process(api: LabApi, guest: SshRunner, pr_target: str) -> None:
    answer = in_guest(guest, ["/opt/arcvsa/venv/bin/python", "-c", NO_PROCESS])
    seen = json.loads(answer.stdout)
    assert seen["control"] == ["['true']"], seen
    assert pr_target in seen["targets"] and seen["started"] == [], seen


RECONCILE = r"""
import json, sys
from appliance.control import iscsi, lio
spec = iscsi.TargetSpec.model_validate_json(sys.stdin.read())
print(json.dumps(lio.reconcile(spec)))
"""


def test_a_second_reconcile_changes_nothing_and_a_hand_change_is_set_back_by_the_poller(
    api: LabApi, guest: SshRunner, zvol: str
) -> None:
    iqn = "iqn.2026-11.lab.arcvsa:converge"
    cred = chap()
    api.call("POST", TARGETS, {"iqn": iqn, "zvol": zvol, "initiators": [HOST_A], "chap": cred}, expect=201)
    backstore = zvol.replace("/", "_")
    spec = {"iqn": iqn, "zvol": zvol, "backstore": backstore, "initiators": [HOST_A], "chap": cred}

    def reconcile() -> list[str]:
        # the appliance's own code in the guest; the spec, and so the secret, on stdin
        argv = ["flock", ISCSI_LOCK, "/opt/arcvsa/venv/bin/python", "-c", RECONCILE]
        answer = guest.execute(argv, timeout=300, input_text=json.dumps(spec))
        assert answer.exit_code == 0, answer.stderr
        changed: list[str] = json.loads(answer.stdout)
        return changed

    assert reconcile() == [], "what LIO holds reads back as something else than what was made"
    caw = in_guest(guest, ["sh", "-c", f"ls -d {CONFIGFS}/core/iblock_*/{backstore}"]).stdout.strip()
    since = in_guest(guest, ["date", "-u", "+%Y-%m-%d %H:%M:%S"]).stdout.strip()
    in_guest(guest, ["sh", "-c", f"echo 0 > {caw}/attrib/emulate_caw"])  # an admin's change by hand
    started = time.monotonic()
    while in_guest(guest, ["cat", f"{caw}/attrib/emulate_caw"]).stdout.strip() != "1":
        assert time.monotonic() < started + 180, "the poller did not set emulate_caw back"
        time.sleep(5)
    print(f"\nemulate_caw set back by the poller {time.monotonic() - started:.0f} s after the change")
    journal = ["journalctl", "-u", "arcvsa-metrics.service", "--since", since, "-o", "cat"]
    said = [line for line in in_guest(guest, journal).stdout.splitlines() if "iscsi_targets drifted" in line]
    assert len(said) == 1 and f"{iqn}: SetBackstoreAttribute(" in said[0] and "emulate_caw" in said[0], said
    assert cred["secret"] not in said[0]
    assert reconcile() == []
    api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)


RECONCILE_UNSAVED = r"""
import json, sys
from appliance.control import iscsi, lio
def save(self):
    raise OSError("the saved configuration cannot be written")
lio.Lio.save = save
spec = iscsi.TargetSpec.model_validate_json(sys.stdin.read())
try:
    lio.reconcile(spec)
except lio.LioFault as err:
    print(json.dumps(str(err)))
"""


def test_a_dropped_initiator_comes_back_whole_when_the_change_fails_after_it(
    api: LabApi, guest: SshRunner, zvol: str
) -> None:
    iqn = "iqn.2026-11.lab.arcvsa:drop-undone"
    cred = chap()
    made = {"iqn": iqn, "zvol": zvol, "initiators": [HOST_A, HOST_B], "chap": cred}
    api.call("POST", TARGETS, made, expect=201)
    before, before_saved = lio_tree(guest), saved(guest)
    acl_b = f"{CONFIGFS}/iscsi/{iqn}/tpgt_1/acls/{HOST_B}"
    assert f"{acl_b}/lun_0" in before
    spec = {
        "iqn": iqn,
        "zvol": zvol,
        "backstore": zvol.replace("/", "_"),
        "initiators": [HOST_A],
        "chap": cred,
    }
    argv = ["flock", ISCSI_LOCK, "/opt/arcvsa/venv/bin/python", "-c", RECONCILE_UNSAVED]
    answer = guest.execute(argv, timeout=300, input_text=json.dumps(spec))
    assert answer.exit_code == 0, answer.stderr
    refused = json.loads(answer.stdout)
    print(f"\nrefused at the save: {refused[:200]}")
    assert "saving the configuration" in refused and cred["secret"] not in refused
    assert lio_tree(guest) == before, f"missing: {sorted(set(before) - set(lio_tree(guest)))}"
    assert in_guest(guest, ["cat", f"{acl_b}/auth/userid"]).stdout.strip() == cred["user"]
    assert in_guest(guest, ["cat", f"{acl_b}/auth/password"]).stdout.strip() == cred["secret"]
    assert saved(guest) == before_saved
    api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)


def test_a_target_lio_lost_is_made_again_by_the_poller_as_the_same_lun(
    api: LabApi, guest: SshRunner, zvol: str
) -> None:
    """Removed with targetcli (its backstore too, and saved so), the target is made again from what the
    api stored, within the poller's minute, with the unit serial ESXi knows the LUN by."""
    iqn = "iqn.2026-11.lab.arcvsa:lost"
    cred = chap()
    api.call("POST", TARGETS, {"iqn": iqn, "zvol": zvol, "initiators": [HOST_A], "chap": cred}, expect=201)
    backstore = zvol.replace("/", "_")

    def serial() -> str:
        found = in_guest(guest, ["sh", "-c", f"cat {CONFIGFS}/core/iblock_*/{backstore}/wwn/vpd_unit_serial"])
        return found.stdout.strip().rsplit(" ", 1)[-1]

    before = serial()
    since = in_guest(guest, ["date", "-u", "+%Y-%m-%d %H:%M:%S"]).stdout.strip()
    for path in (f"/iscsi delete {iqn}", f"/backstores/block delete {backstore}", "saveconfig"):
        in_guest(guest, ["flock", ISCSI_LOCK, "targetcli", *path.split()])
    assert iqn not in in_guest(guest, ["cat", SAVECONFIG]).stdout
    started = time.monotonic()
    while guest.execute(["test", "-d", f"{CONFIGFS}/iscsi/{iqn}/tpgt_1/lun/lun_0"], timeout=60).exit_code:
        assert time.monotonic() < started + 180, "the poller did not make the target again"
        time.sleep(5)
    print(f"\ntarget made again by the poller {time.monotonic() - started:.0f} s after its removal")
    assert serial() == before, "the LUN came back as another one"
    assert (
        in_guest(guest, ["cat", f"{CONFIGFS}/iscsi/{iqn}/tpgt_1/acls/{HOST_A}/auth/userid"]).stdout.strip()
        == cred["user"]
    )
    journal = ["journalctl", "-u", "arcvsa-metrics.service", "--since", since, "-o", "cat"]
    said = [line for line in in_guest(guest, journal).stdout.splitlines() if "iscsi_targets drifted" in line]
    assert said and f"{iqn}: CreateBackstore(" in said[0] and cred["secret"] not in said[0], said
    api.call("DELETE", f"{TARGETS}/{iqn}", expect=204)
