"""Calibration on fio 3.39 output recorded in the lab VM (recordings/calibration.json, made by
record_calibration.py): the SAN check and a ramp on a free LUN, a ramp on a dataset, the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.appliance import calibration_flows as flows
from fixtures.appliance.replay import ReplayRunner, load, replay
from pydantic import ValidationError

from appliance.control import calibration as cal
from appliance.control.errors import BadOutput, DeviceInUse, InvalidName, InvalidRequest, NotFound
from appliance.control.gateway import Gateway


def _empty() -> tuple[Gateway, ReplayRunner]:
    runner = ReplayRunner({"commands": []})
    return Gateway(runner), runner


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold_ms": 0},
        {"threshold_ms": 20_000},
        {"start": 0},
        {"step": 0},
        {"max": 3000},
        {"step_seconds": 1},
    ],
)
def test_out_of_range_ramps_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        cal.RampSpec(**kwargs)  # type: ignore[arg-type]


def test_ramps_that_go_nowhere_or_too_far_are_refused() -> None:
    with pytest.raises(InvalidRequest, match="below start"):
        cal.RampSpec(start=20, max=10)
    with pytest.raises(InvalidRequest, match="at most 100 steps"):
        cal.RampSpec(start=1, step=1, max=500)
    assert cal.RampSpec(start=10, step=10, max=45).counts() == [10, 20, 30, 40]


@pytest.mark.parametrize(
    "target",
    [
        cal.Target(kind="lun", name="/dev/sdb;reboot"),
        cal.Target(kind="lun", name="/dev/disk/by-id/../../sda"),
        cal.Target(kind="dataset", name="tank/../etc"),
        cal.Target(kind="dataset", name="-o tank"),
    ],
)
def test_bad_names_are_refused_before_any_tool_runs(target: cal.Target) -> None:
    gw, runner = _empty()
    with pytest.raises(InvalidName):
        cal.prepare(gw, target, need_bytes=1)
    assert runner.calls == []


def test_a_desktop_is_one_fio_job_at_the_profiles_rate_and_mix() -> None:
    lun = cal.Prepared(target=flows.RAMP_LUN, path="/dev/vdd", size_bytes=2 << 30)
    argv = cal.desktops_argv(lun, cal.DesktopProfile(), cal.RampSpec(step_seconds=5), 30)
    assert argv[:2] == ["fio", "--output-format=json"]
    for word in (
        "--numjobs=30",
        "--group_reporting",
        "--rw=randrw",
        "--rwmixread=20",
        "--bssplit=32k/100,4k/50:8k/50",
        "--rate=65536,49152",  # 10 IOPS, 20 % reads: 2 x 32K and 8 x 6K (the mean of 4K and 8K) a second
        "--time_based",
        "--runtime=5",
        "--percentile_list=50:95:99",
        "--filename=/dev/vdd",
        "--offset_increment=64m",
        "--direct=1",
    ):
        assert word in argv
    folder = cal.Prepared(target=flows.RAMP_DATASET, path="/tank/vdi/.arcvsa-calibration", size_bytes=1 << 30)
    argv = cal.desktops_argv(folder, cal.DesktopProfile(read_percent=0), cal.RampSpec(), 1)
    assert "--sync=1" in argv and "--direct=1" not in argv and "--rate=0,61440" in argv
    assert "--directory=/tank/vdi/.arcvsa-calibration" in argv


def _figures(iops: float, read_p95: float | None, write_p95: float | None) -> cal.Figures:
    def p(v: float | None) -> cal.Percentiles:
        return cal.Percentiles(p50_ms=v, p95_ms=v, p99_ms=v)

    return cal.Figures(
        read_iops=iops / 5,
        write_iops=iops * 4 / 5,
        read_mib_s=0,
        write_mib_s=0,
        read=p(read_p95),
        write=p(write_p95),
    )


def test_a_step_fails_on_the_worse_p95_or_when_the_target_cannot_keep_up() -> None:
    profile = cal.DesktopProfile()
    assert cal.judge(10, profile, 20, _figures(100, 3, 19.9)).passed
    late = cal.judge(10, profile, 20, _figures(100, 25, 2))
    assert not late.passed and late.p95_ms == 25 and "above the 20 ms" in (late.reason or "")
    slow = cal.judge(10, profile, 20, _figures(89, 1, 1))
    assert not slow.passed and "cannot keep up" in (slow.reason or "")
    assert not cal.judge(10, profile, 20, _figures(0, None, None)).passed


def test_bssplits_that_fio_would_refuse_are_refused() -> None:
    with pytest.raises(InvalidRequest, match="shares add up"):
        cal.DesktopProfile(write_bssplit="4k/60:8k/60")
    with pytest.raises(ValidationError):
        cal.DesktopProfile(read_bssplit="32k;reboot")
    assert cal.mean_block("4k/25:64k/75") == 4096 / 4 + 65536 * 3 / 4


def test_output_that_is_not_fios_report_is_refused() -> None:
    with pytest.raises(BadOutput):
        cal.parse_step("fio: engine libaio not loadable\n")
    with pytest.raises(BadOutput, match="error 5"):
        cal.parse_step(json.dumps({"jobs": [{"jobname": "desktops", "error": 5}]}))


def test_the_recorded_calibration_replays(tmp_path: Path) -> None:
    recording = load("calibration")
    gw, _, runner = replay("calibration", tmp_path)
    figures = recording["figures"]
    prepared = cal.prepare(gw, flows.SAN_LUN, need_bytes=64 << 20)
    san = cal.san_check(gw, prepared, flows.SAN_SECONDS)
    assert san.model_dump() == figures["san"]
    assert [p.name for p in san.phases] == ["randread-4k", "randwrite-4k", "read-1m", "write-1m"]
    assert all(p.iops > 0 and p.mib_s > 0 and p.latency.p95_ms for p in san.phases)
    need = cal.ramp_bytes(flows.PROFILE, flows.RAMP)
    seen: list[tuple[int, int]] = []
    for name, target in (("lun", flows.RAMP_LUN), ("dataset", flows.RAMP_DATASET)):
        prepared = cal.prepare(gw, target, need_bytes=need)
        result = cal.ramp(gw, prepared, flows.PROFILE, flows.RAMP, lambda d, t, m, s: seen.append((d, t)))
        assert result.model_dump() == figures[name]
        passed = [s.desktops for s in result.steps if s.passed]
        assert result.desktops_supported == (passed[-1] if passed else 0)
        assert all(s.passed for s in result.steps[:-1])  # patience 1: it stops at the first failed step
        if result.desktops_supported < flows.RAMP.max:
            assert not result.steps[-1].passed and result.stop_reason == result.steps[-1].reason
    assert prepared.path == "/tank/vdi/.arcvsa-calibration" and prepared.properties["sync"] == "standard"
    with pytest.raises(DeviceInUse, match="calibration writes only to a free LUN"):
        cal.prepare(gw, flows.IN_USE, need_bytes=need)
    with pytest.raises(NotFound):
        cal.prepare(gw, flows.UNKNOWN, need_bytes=need)
    assert runner.pending == []  # every command run live ran again, nothing more
    assert seen[-1][1] == len(flows.RAMP.counts())


def _recorded_steps(where: str) -> dict[int, str]:
    """fio's output of each recorded ramp step by desktops: on the free LUN ("lun": 10 and 20 passed,
    30 failed) or the dataset ("dataset": 10 to 40 passed, 50 failed)."""
    steps = [c for c in load("calibration")["commands"] if "--name=desktops" in c["argv"]]
    on_lun = [c for c in steps if "--filename=/dev/vdd" in c["argv"]]
    measured = [c for c in steps if "--create_only=1" not in c["argv"]]
    chosen = on_lun if where == "lun" else [c for c in measured if c not in on_lun]
    return {int(next(a for a in c["argv"] if a.startswith("--numjobs="))[10:]): c["stdout"] for c in chosen}


def _ramp_on(outputs: list[str], spec: cal.RampSpec) -> tuple[cal.RampResult, ReplayRunner]:
    """A ramp on the free LUN whose steps answer, in order, with recorded fio outputs."""
    prepared = cal.Prepared(target=flows.RAMP_LUN, path="/dev/vdd", size_bytes=4 << 30)
    commands = [
        {
            "argv": cal.desktops_argv(prepared, flows.PROFILE, spec, count),
            "exit_code": 0,
            "stdout": out,
            "stderr": "",
        }
        for count, out in zip(spec.counts(), outputs, strict=False)
    ]
    runner = ReplayRunner({"commands": commands})
    return cal.ramp(Gateway(runner), prepared, flows.PROFILE, spec), runner


def test_one_noisy_failed_step_does_not_end_the_ramp() -> None:
    lun, dataset = _recorded_steps("lun"), _recorded_steps("dataset")
    spec = flows.RAMP.model_copy(update={"patience": 2})
    # 10 passes; 20 fails (the LUN's 30-desktop output: p95 over the threshold); 30 passes (the
    # dataset's 30); 40 and 50 fail (the LUN's 30 again: p95 over, and too few IOPS for 40 and 50)
    result, runner = _ramp_on([lun[10], lun[30], dataset[30], lun[30], lun[30], lun[30]], spec)
    assert [s.passed for s in result.steps] == [True, False, True, False, False]
    assert result.desktops_supported == 30
    assert result.stop_reason == result.steps[-1].reason and "threshold" in result.stop_reason
    assert len(runner.pending) == 1  # no step ran after the second failure in a row


def test_a_failed_last_step_is_the_reason_even_short_of_patience() -> None:
    out = _recorded_steps("lun")
    spec = cal.RampSpec(
        threshold_ms=20, start=10, step=10, max=30, step_seconds=5, ramp_seconds=2, patience=3
    )
    result, runner = _ramp_on([out[10], out[20], out[30]], spec)
    assert result.desktops_supported == 20 and runner.pending == []
    assert result.stop_reason == result.steps[-1].reason != "reached the maximum of 30 desktops"
