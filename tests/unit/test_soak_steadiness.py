"""The soak's figures (reliability.steadiness) on hand-made fio logs, /proc text, ps and wrk output."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab import console
from reliability import steadiness
from reliability.soak import report, third_rows

MEMINFO = "MemTotal:        2000000 kB\nMemFree:          100000 kB\nMemAvailable:     800000 kB\n"
ARCSTATS = "13 1 0x01 147 39984 1 2\nname  type  data\nhits  4  1000\nsize  4  {size}\nc_max  4  786432000\n"


def sample(at: float, size: int, ps: str = "51200 ganesha.nfsd\n20480 python3\n10240 python3\n") -> dict:
    return steadiness.memory_sample(at, MEMINFO + ARCSTATS.format(size=size), ps)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert steadiness.percentile(values, 50) == 50
    assert steadiness.percentile(values, 99) == 99
    assert steadiness.percentile(values, 100) == 100
    assert steadiness.percentile([], 99) == 0


def test_lat_logs_split_by_direction_in_seconds_and_ms(tmp_path: Path) -> None:
    log = tmp_path / "soak_lat.1.log"
    log.write_text("1000, 2000000, 0, 16384, 0, 0\n2500, 5000000, 1, 4096, 0, 0\n2600, 1, 2, 4096, 0, 0\n")
    read = steadiness.read_lat_logs([log])
    assert read == {"read": [(1.0, 2.0)], "write": [(2.5, 5.0)]}  # trims (2) ignored


def test_windows_and_drift_show_latency_that_creeps_up() -> None:
    flat = [(t / 10, 2.0) for t in range(0, 600)]
    creeping = [(t / 10, 2.0 + t / 100) for t in range(0, 600)]
    assert steadiness.drift(flat, 10, 60)["p99_ratio"] == 1.0
    assert steadiness.drift(creeping, 10, 60)["p99_ratio"] > 1.5
    windows = steadiness.windows(creeping, 20)
    assert [w.start_s for w in windows] == [0, 20, 40]
    assert windows[0].ios == 200 and windows[2].p99_ms > windows[0].p99_ms


def test_memory_sample_reads_meminfo_arcstats_and_ps() -> None:
    s = sample(30, 500 << 20)
    assert s["mem_total"] == 2000000 * 1024
    assert s["used_outside_arc"] == (2000000 - 800000) * 1024 - (500 << 20)
    assert s["arc_c_max"] == 786432000
    assert s["rss_top"]["python3"] == 30720 * 1024  # processes of one name summed


def test_memory_trend_measures_growth_after_the_warmup() -> None:
    samples = [sample(0, 900 << 20)] + [sample(t, 500 << 20) for t in (60, 90, 120, 150)]
    trend = steadiness.memory_trend(samples, warmup_s=60)
    assert trend["outside_arc_growth_mib"] == 0
    assert trend["arc_over_max_mib"] == 150.0  # the first sample's 900 MiB passed c_max (750 MiB)
    assert trend["arc_overflow_allowed_mib"] == 24.0  # 1.5 x 16 MiB
    growing = [sample(t, (500 << 20) - (t << 20)) for t in (60, 90, 120, 150)]
    assert steadiness.memory_trend(growing, 60)["outside_arc_growth_mib"] == pytest.approx(
        60, abs=1
    )  # mean of the last three (120) - 60


def test_memory_growth_is_measured_once_every_client_is_connected() -> None:
    """Clients still connecting after the warm-up (a slow host) add the server's per-connection memory:
    that is not growth under the load; a leak after they are all connected still is."""
    ramp = [(60, 40, 0), (90, 80, 20), (120, 100, 40), (150, 100, 40), (180, 100, 40), (210, 100, 40)]

    def ramped(leak_per_s: int) -> list[dict]:
        out = []
        for at, connections, held_mib in ramp:
            s = sample(
                at, (500 << 20) - (held_mib << 20) - ((at - 120) * leak_per_s << 20 if at > 120 else 0)
            )
            out.append({**s, "nfs_connections": connections})
        return out

    flat = steadiness.memory_trend(ramped(0), 60)
    assert (flat["steady_from_s"], flat["nfs_connections"], flat["outside_arc_growth_mib"]) == (120, 100, 0)
    leaking = steadiness.memory_trend(ramped(1), 60)  # 1 MiB/s after every client is connected
    assert leaking["steady_from_s"] == 120 and leaking["outside_arc_growth_mib"] == pytest.approx(60, abs=1)
    unknown = [{**s, "nfs_connections": None} for s in ramped(0)]  # no ss: from the warm-up, as before
    assert steadiness.memory_trend(unknown, 60)["outside_arc_growth_mib"] == pytest.approx(40, abs=1)


def test_established_nfs_connections_are_counted_from_proc_net_tcp() -> None:
    """One established to 2049 over IPv4 and one over IPv6 count; a listener (0A), one closing (06), a
    client's own port 2049 on the remote side, another local port and meminfo's lines do not."""
    text = MEMINFO + (
        "  sl  local_address rem_address   st tx_queue rx_queue\n"
        "   0: 00000000:0801 00000000:0000 0A 00000000:00000000\n"
        "   1: 0200A8C0:0801 0100A8C0:C350 01 00000000:00000000\n"
        "   2: 0200A8C0:0801 0100A8C0:C351 06 00000000:00000000\n"
        "   3: 0200A8C0:C352 0100A8C0:0801 01 00000000:00000000\n"
        "   4: 0200A8C0:0802 0100A8C0:C353 01 00000000:00000000\n"
        "   0: 0000000000000000FFFF00000200A8C0:0801 0000000000000000FFFF00000100A8C0:C354 01 00000000:00000000\n"
    )
    assert steadiness.established(text, 2049) == 2
    assert steadiness.parse_keyed(text)["MemTotal"] == 2000000 * 1024  # the same text still parses


def test_wrk_line_parsed_and_its_errors_summed() -> None:
    out = (
        "Running 10s test @ https://127.0.0.1:1\n"
        'ARCVSA-WRK {"requests":100,"duration_us":10000000,"p50_us":12000,"p90_us":30000,"p99_us":150000,'
        '"p999_us":190000,"max_us":250000,"connect":0,"read":0,"write":0,"status":2,"timeout":1}\n'
    )
    api = steadiness.parse_wrk(out)
    assert api["p99_ms"] == 150.0 and api["requests"] == 100 and api["errors"] == 3
    with pytest.raises(ValueError, match="ARCVSA-WRK"):
        steadiness.parse_wrk("Running 10s test\n")


def good() -> dict:
    return {
        "io_errors": 0,
        "drift": {"write": {"p99_ratio": 1.1}},
        "memory": steadiness.memory_trend([sample(t, 500 << 20) for t in (0, 30, 60)], 0),
        "api": {"errors": 0, "p99_ms": 120.0},
        "sync_writer": {"acked": 10, "lost": 0, "errors": []},
        "pool_state": "ONLINE",
    }


def test_verdict_passes_a_good_soak_and_names_each_failure() -> None:
    limits = steadiness.Limits()
    assert steadiness.verdict(good(), limits) == []
    bad = good() | {"io_errors": 3, "pool_state": "SUSPENDED"}
    bad["drift"] = {"write": {"p99_ratio": 2.0}}
    bad["api"] = {"errors": 1, "p99_ms": 250.0}
    bad["memory"] = steadiness.memory_trend([sample(0, 800 << 20)], 0)  # 50 MiB past c_max
    bad["sync_writer"] = {"lost": 1, "errors": []}
    failed = steadiness.verdict(bad, limits)
    assert len(failed) == 7, failed
    assert any("p99 drifted" in f for f in failed) and any("api p99" in f for f in failed)
    assert steadiness.verdict(good() | {"api": None}, limits) == ["no api load figures"]
    unread = good() | {"sync_writer": {"acked": 10, "errors": [], "read_back_error": "mount failed"}}
    assert steadiness.verdict(unread, limits) == [
        "sync writer: 10 acknowledged writes unverified: mount failed"
    ]


def test_api_figures_take_the_worst_path() -> None:
    fast = {"requests": 90, "errors": 0, "p50_ms": 5.0, "p90_ms": 9.0, "p99_ms": 20.0}
    slow = {"requests": 10, "errors": 1, "p50_ms": 80.0, "p90_ms": 150.0, "p99_ms": 300.0}
    api = steadiness.api_figures({"/api/health": fast, "/api/storage/pools": slow})
    assert api["requests"] == 100 and api["errors"] == 1
    assert api["p99_ms"] == 300.0 and api["p50_ms"] == 80.0


def test_arc_overflow_allowance_follows_openzfs() -> None:
    assert steadiness.arc_overflow_allowed(768 << 20) == 24 << 20  # 16 MiB floor
    assert steadiness.arc_overflow_allowed(16 << 30) == 96 << 20  # c / 256 = 64 MiB, x 1.5


STAT_BEFORE = """cpu  8324645 116389 1320849 6765086 115734 0 43651 9662 0 0
cpu0 4054717 50006 601803 3604929 19641 0 14572 4731 0 0
cpu1 4269928 66383 719045 3160156 96092 0 29078 4931 0 0
intr 123 0 0
ctxt 456
"""
PS_BEFORE = """     332 python3
       0 kthreadd
      40 ganesha.nfsd
       5 z_wr_iss
       3 z_wr_iss
       2 kworker/u4:2-events_unbound
"""


def test_cpu_use_splits_busy_time_by_command_and_short_lived_processes() -> None:
    first = steadiness.cpu_sample(STAT_BEFORE, PS_BEFORE)
    assert first["cpus"] == 2 and first["seconds"]["z_wr_iss"] == 8 and first["seconds"]["kworker"] == 2
    # 100 s later on 2 vCPUs (20,000 jiffies): 15,000 busy; python +60 s, ganesha +40 s, the rest unseen
    after = STAT_BEFORE.replace("cpu  8324645 116389 1320849 6765086", "cpu  8339645 116389 1320849 6770086")
    second = steadiness.cpu_sample(
        after, PS_BEFORE.replace("332 python3", "392 python3").replace("40 gan", "80 gan")
    )
    use = steadiness.cpu_use([{"at_s": 0, "cpu": first}, {"at_s": 100, "cpu": second}], warmup_s=0)
    assert use["cpus"] == 2 and use["seconds"] == 100 and use["busy_pct"] == 75.0
    assert use["by_command_pct"] == {"python3": 30.0, "ganesha.nfsd": 20.0}
    assert use["short_lived_pct"] == 25.0
    assert steadiness.cpu_use([{"at_s": 0, "cpu": first}], warmup_s=0) == {}


# The lab VM's console when its kernel panicked 9 minutes into a soak (image 751ab59, qemu 7.2 TCG).
PANICKED = """\
[   39.105981]  vdd: vdd1 vdd9
[  535.618958] traps: PANIC: double fault, error_code: 0x0
[  535.620728] Oops: double fault: 0000 [#1] PREEMPT SMP NOPTI
[  535.621121] CPU: 1 UID: 0 PID: 2615 Comm: ganesha.nfsd Tainted: P           OE      6.12.117+deb13-amd64 #1
[  535.621406] RIP: 0010:kmem_cache_alloc_node_noprof+0x6e/0x310
"""


def test_a_guest_panic_on_the_console_fails_the_soak() -> None:
    found = console.panic(PANICKED, lines=3)
    assert found is not None
    failed = steadiness.verdict(good() | {"guest_panic": found}, steadiness.Limits())
    assert failed == [
        "the appliance's kernel panicked: [  535.618958] traps: PANIC: double fault, error_code: 0x0"
    ]
    dead = {"guest_dead": "qemu ended; console ends:\narcvsa-lab login:"}
    assert steadiness.verdict(good() | dead, steadiness.Limits()) == [
        "the appliance's VM ended: qemu ended; console ends:"
    ]
    both = steadiness.verdict(good() | dead | {"guest_panic": found}, steadiness.Limits())
    assert len(both) == 1 and "panicked" in both[0]
    assert steadiness.verdict(good() | {"guest_panic": None}, steadiness.Limits()) == []


def _sample(at_s: float, guest_busy: int, host_busy: int, san_written: int) -> dict[str, object]:
    """A sampler's sample at ``at_s``: both CPUs' busy jiffies out of 200 a second (2 CPUs each), python
    on the guest and qemu on the host using all of it, the LUNs' bytes written so far."""
    total = int(at_s * 200)
    return {
        "at_s": at_s,
        "cpu": {
            "cpus": 2,
            "busy_jiffies": guest_busy,
            "total_jiffies": total,
            "seconds": {"python": guest_busy // 100},
        },
        "host_cpu": {
            "cpus": 2,
            "busy_jiffies": host_busy,
            "total_jiffies": total,
            "seconds": {"qemu-system-x86": host_busy // 100},
        },
        "san": {"rd_bytes": 0, "wr_bytes": san_written, "wr_ops": san_written >> 17},
    }


def test_thirds_compare_cpu_and_san_of_the_spans_drift_compares() -> None:
    mib = 1 << 20
    samples = [
        _sample(0, 0, 0, 0),  # the warm-up, left out
        _sample(100, 10_000, 20_000, 100 * mib),
        _sample(200, 20_000, 40_000, 200 * mib),  # first third 100-200 s: guest 50 %, host 100 %, 1 MiB/s
        _sample(250, 25_000, 50_000, 250 * mib),
        _sample(300, 34_000, 60_000, 350 * mib),
        _sample(400, 50_000, 80_000, 550 * mib),  # last third 300-400 s: guest 80 %, host 100 %, 2 MiB/s
    ]
    out = steadiness.thirds(samples, warmup_s=100, end_s=400)
    assert out["first"]["cpu"] == {"busy_pct": 50.0, "by_command_pct": {"python": 50.0}}
    assert out["first"]["host_cpu"]["busy_pct"] == 100.0
    assert out["first"]["san"] == {"write_mib_s": 1.0, "read_mib_s": 0.0, "writes_per_s": 8.0}
    assert out["last"]["cpu"]["busy_pct"] == 80.0 and out["last"]["san"]["write_mib_s"] == 2.0
    # a third with fewer than two samples says nothing rather than a rate over no time
    assert "last" not in steadiness.thirds(samples[:4], warmup_s=100, end_s=400)
    # the host's share is read the same way as the guest's
    assert steadiness.cpu_use(samples, warmup_s=100, key="host_cpu")["by_command_pct"] == {
        "qemu-system-x86": 100.0
    }


def test_san_sample_sums_the_luns_only() -> None:
    def stats(rd: int, wr: int, ops: int) -> dict[str, int]:
        return {
            "rd_bytes": rd,
            "wr_bytes": wr,
            "wr_operations": ops,
            "rd_operations": 1,
            "flush_operations": 3,
        }

    blockstats = {
        "lun0": stats(1, 4096, 1),
        "lun1": stats(2, 8192, 2),
        "ssd-slog": stats(0, 65536, 9),
        "os": stats(7, 7, 7),
    }
    assert steadiness.san_sample(blockstats) == {"rd_bytes": 3, "wr_bytes": 12288, "wr_ops": 3}


def test_pool_space_reads_zpool_list_parsable_columns() -> None:
    # zpool list -Hp -o size,allocated,fragmentation,capacity: tab-separated, bytes and bare percents
    assert steadiness.pool_space("8455716864\t1431306240\t4\t16\n") == {
        "size": 8455716864,
        "allocated": 1431306240,
        "fragmentation_pct": 4,
        "capacity_pct": 16,
    }
    assert steadiness.pool_space("8455716864\t1431306240\t-\t16\n")["fragmentation_pct"] == -1
    with pytest.raises(ValueError):
        steadiness.pool_space("cannot open 'tank': no such pool\n")


def test_the_soak_table_shows_what_moved_between_the_thirds() -> None:
    mib = 1 << 20
    samples = [_sample(100, 10_000, 20_000, 100 * mib), _sample(200, 20_000, 40_000, 200 * mib)]
    samples += [_sample(300, 34_000, 60_000, 350 * mib), _sample(400, 50_000, 80_000, 550 * mib)]
    space = {
        "start": steadiness.pool_space("8455716864\t1431306240\t2\t24\n"),
        "end": steadiness.pool_space("8455716864\t2431306240\t67\t33\n"),
    }
    rows = {row[0]: row[1] for row in third_rows(steadiness.thirds(samples, 100, 400), space)}
    assert rows["guest CPU busy first → last third (%)"] == "50.0 → 80.0"
    assert rows["host CPU busy first → last third (%)"] == "100.0 → 100.0"
    assert rows["SAN writes first → last third (MiB/s, /s)"] == "1.0 → 2.0, 8.0 → 16.0"
    assert rows["pool allocated, fragmentation start → end"] == "24 → 33 %, 2 → 67 %"
    # a pool the soak could not read (its error text) and a run too short for thirds add no row
    assert third_rows({}, {"start": "cannot open 'tank'", "end": space["end"]}) == []


def test_quota_use_reads_cpu_stat_between_two_reads() -> None:
    # /sys/fs/cgroup/arcvsa.slice/arcvsa-api.service/cpu.stat of a lab VM, 30 s apart
    before = (
        "usage_usec 91000000\nuser_usec 60000000\nsystem_usec 31000000\n"
        "nr_periods 1000\nnr_throttled 100\nthrottled_usec 5000000\n"
    )
    after = (
        "usage_usec 106000000\nuser_usec 70000000\nsystem_usec 36000000\n"
        "nr_periods 1300\nnr_throttled 160\nthrottled_usec 8000000\n"
    )
    assert steadiness.quota_use(before, after, 30.0) == {
        "cpu_s": 15.0,
        "cpu_pct_of_one": 50.0,
        "periods": 300,
        "throttled": 60,
        "throttled_s": 3.0,
        "throttled_ms_each": 50.0,
    }
    # without a quota the kernel counts no periods: nothing throttled, no division by zero
    bare = "usage_usec 1000000\nuser_usec 600000\nsystem_usec 400000\n"
    assert steadiness.quota_use(bare, bare.replace("1000000", "4000000", 1), 3.0)["throttled_ms_each"] == 0.0


def test_the_soak_table_shows_the_api_units_and_the_pollers_cpu() -> None:
    unit = steadiness.quota_use("usage_usec 0\nnr_periods 0\n", "usage_usec 3000000\nnr_periods 100\n", 10.0)
    poller = {**unit, "throttled": 4, "throttled_s": 0.2, "throttled_ms_each": 50.0}
    figures = {"desktops": 1, "iops_per_desktop": 3, "seconds": 10, "api_quota": unit}
    rows = [line for line in report(figures, steadiness.Limits())[0].splitlines() if "quota" in line]
    assert len(rows) == 1 and "30.0 % of one vCPU; throttled in 0 of 100 periods, 0.0 s" in rows[0]
    rows = report({**figures, "poller_quota": poller}, steadiness.Limits())[0].splitlines()
    assert any(r.startswith("state poller unit CPU") and "throttled in 4 of 100 periods" in r for r in rows)
