"""The benchmark's load generator, boot trace and golden data: the pure parts, no network, no VM."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from bench import golden, toolchain, trace

# Lines as qemu 7.2's log backend wrote them (-msg timestamp=on) during a traced boot of the image.
REAL_LOG = """\
25173@1795348114.374158:virtio_blk_handle_read vdev 0x55f53eb43e70 req 0x55f53dc0e2c0 sector 0 nsectors 1
25173@1795348114.375224:virtio_blk_handle_read vdev 0x55f53eb43e70 req 0x55f53ed94eb0 sector 1 nsectors 1
25173@1795348114.375791:virtio_blk_handle_read vdev 0x55f53eb43e70 req 0x55f53ed94eb0 sector 2 nsectors 57
25173@1795348135.532562:virtio_blk_handle_write vdev 0x55f53eb43e70 req 0x55f53dc06ac0 sector 2048 nsectors 8
25173@1795348136.688933:virtio_blk_handle_write vdev 0x55f53eb43e70 req 0x55f53dc06ac0 sector 4458496 nsectors 8
"""

EXPECTED_OPS = [
    trace.Op(0.0, "r", 0, 512),  # SeaBIOS reads the MBR over virtio-blk
    trace.Op(0.001066, "r", 512, 512),
    trace.Op(0.001633, "r", 1024, 57 * 512),  # GRUB's core.img
    trace.Op(21.158404, "w", 1 << 20, 4096),  # ext4 superblock (partition at 1 MiB)
    trace.Op(22.314775, "w", 4458496 * 512, 4096),  # the journal, mid-disk
]


def test_parse_real_qemu_trace_lines() -> None:
    ops = trace.parse_log(REAL_LOG.splitlines())
    assert ops == EXPECTED_OPS


def test_parse_skips_other_lines_and_other_disks() -> None:
    lines = [
        "qemu-system-x86_64: warning: something",
        "100@1700000000.500000:virtio_blk_handle_read vdev 0xaaa req 0x1 sector 2048 nsectors 8",
        "100@1700000000.750000:virtio_blk_handle_write vdev 0xbbb req 0x2 sector 0 nsectors 1",
        "100@1700000001.000000:virtio_blk_handle_write vdev 0xaaa req 0x3 sector 4096 nsectors 16",
        "100@1700000001.100000:virtio_blk_rw_complete vdev 0xaaa req 0x3 ret 0",
    ]
    assert trace.parse_log(lines) == [
        trace.Op(0.0, "r", 2048 * 512, 8 * 512),
        trace.Op(0.5, "w", 4096 * 512, 16 * 512),
    ]
    assert trace.parse_log(["nothing"]) == []


SMALL = [
    trace.Op(0.0, "r", 0, 4096),
    trace.Op(0.0015, "r", 1 << 20, 65536),
    trace.Op(0.25, "w", 8192, 4096),
    trace.Op(1.5, "r", 2048, 4096),
]


def test_iolog_v3_text(tmp_path: Path) -> None:
    out = trace.iolog(SMALL, "/data/replica.raw", tmp_path / "boot.iolog")
    assert out.read_text(encoding="utf-8") == (
        "fio version 3 iolog\n"
        "0 /data/replica.raw add\n"
        "0 /data/replica.raw open\n"
        "1 /data/replica.raw read 0 4096\n"  # never 0: fio does not wait after a line stamped 0
        "1500 /data/replica.raw read 1048576 65536\n"
        "250000 /data/replica.raw write 8192 4096\n"
        "1500000 /data/replica.raw read 2048 4096\n"
        "1500000 /data/replica.raw close\n"
    )


def test_iolog_reads_only_untimed(tmp_path: Path) -> None:
    text = trace.iolog(SMALL, "lun0", tmp_path / "r.iolog", reads_only=True, timed=False).read_text()
    lines = text.splitlines()
    assert lines[0] == "fio version 3 iolog"
    assert [line for line in lines if " write " in line] == []
    assert lines[3:] == [
        "0 lun0 read 0 4096",
        "0 lun0 read 1048576 65536",
        "0 lun0 read 2048 4096",
        "0 lun0 close",
    ]


def test_iolog_pads_writes_for_fio_iodepth(tmp_path: Path) -> None:
    text = trace.iolog(SMALL, "f", tmp_path / "p.iolog", timed=False, iodepth=3, scratch_offset=1 << 30)
    assert text.read_text().splitlines()[-3:] == [
        f"0 f write {1 << 30} 4096",
        f"0 f write {1 << 30} 4096",
        "0 f close",
    ]
    plain = trace.iolog(SMALL, "f", tmp_path / "q.iolog", timed=False, iodepth=3)  # no scratch: no pad
    assert " write 1073741824 " not in plain.read_text()
    reads = trace.iolog(SMALL, "f", tmp_path / "r.iolog", reads_only=True, iodepth=3, scratch_offset=0)
    assert " write " not in reads.read_text()  # a log without writes needs no pad


def test_summary_and_unique_bytes() -> None:
    found = trace.summary(SMALL)
    assert found["ops"] == 4 and found["reads"] == 3 and found["writes"] == 1
    assert found["bytes_read"] == 4096 + 65536 + 4096 and found["bytes_written"] == 4096
    assert found["read_size_mean"] == round((4096 + 65536 + 4096) / 3)
    assert found["read_pct"] == 75.0 and found["seconds"] == 1.5
    assert found["max_offset_end"] == (1 << 20) + 65536
    # [0, 4096) and [2048, 6144) overlap: 6144 bytes; plus 64 KiB; the write at 8192 adds 4096.
    assert found["unique_bytes_read"] == 6144 + 65536
    assert found["unique_bytes_touched"] == 6144 + 65536 + 4096


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    trace.save(SMALL, path, {"image": "/x.qcow2"})
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["image"] == "/x.qcow2" and doc["summary"]["ops"] == 4
    assert doc["ops"][1] == [0.0015, "r", 1 << 20, 65536]
    assert trace.load(path) == SMALL


def test_toolchain_cache_key_follows_the_mirror_and_argv() -> None:
    line = "deb http://mirror.example/debian trixie main contrib"
    assert toolchain.cache_key(line) == toolchain.cache_key(line)
    assert toolchain.cache_key(line) != toolchain.cache_key(line.replace("example", "example2"))
    argv = toolchain.mmdebstrap_argv(line, Path("/t"))
    assert "--include=fio,libnfs-utils" in argv and argv[-3:] == ["trixie", "/t", line]
    assert "--mode=root" in argv


def test_toolchain_runs_tools_through_the_tree_loader(tmp_path: Path) -> None:
    (tmp_path / "usr/lib/x86_64-linux-gnu/ceph").mkdir(parents=True)
    chain = toolchain.Toolchain(tmp_path)
    argv = chain.fio_argv(["--version"])
    assert argv[0] == str(tmp_path / "lib64/ld-linux-x86-64.so.2")
    assert argv[1] == "--library-path"
    assert argv[2].split(":") == [
        str(tmp_path / "usr/lib/x86_64-linux-gnu"),
        str(tmp_path / "usr/lib/x86_64-linux-gnu/ceph"),
        str(tmp_path / "usr/lib"),
    ]
    assert argv[3:] == [str(tmp_path / "usr/bin/fio"), "--version"]


def test_ensure_reuses_a_tree_whose_marker_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line = "deb http://mirror.example/debian trixie main contrib"
    root = tmp_path / "fio-root"
    root.mkdir()
    (tmp_path / "fio-root.done").write_text(json.dumps({"key": toolchain.cache_key(line)}))
    assert toolchain.ensure(root, source_line=line).root == root
    (tmp_path / "fio-root.done").write_text(json.dumps({"key": "stale"}))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # a stale tree is rebuilt: needs root
    with pytest.raises(toolchain.ToolchainError, match="needs root"):
        toolchain.ensure(root, source_line=line)


def test_replica_packs_data_and_touched_chunks_and_remaps_the_trace() -> None:
    mib = golden.MIB
    ops = [
        trace.Op(0.0, "r", 0, 512),
        trace.Op(0.1, "r", 3 * mib - 4096, 8192),  # spans chunks 2 and 3
        trace.Op(0.2, "r", 8191 * mib + 4096, 4096),  # an end-of-disk probe
    ]
    touched = golden.touched_chunks(ops)
    assert touched == {0, 2, 3, 8191}
    mapping = golden.chunk_map(touched | {1, 5})  # 1 and 5 hold data
    assert mapping == {0: 0, 1: 1, 2: 2, 3: 3, 5: 4, 8191: 5}
    assert golden.remap(ops, mapping) == [
        trace.Op(0.0, "r", 0, 512),
        trace.Op(0.1, "r", 3 * mib - 4096, 8192),
        trace.Op(0.2, "r", 5 * mib + 4096, 4096),
    ]


def test_even_samples() -> None:
    assert golden.evenly(list(range(100)), 4) == [12, 37, 62, 87]
    assert golden.evenly([5, 6], 8) == [5, 6]


def test_allocated_chunks_of_a_sparse_file(tmp_path: Path) -> None:
    path = tmp_path / "disk.raw"
    mib = golden.MIB
    with path.open("wb") as handle:
        handle.truncate(16 * mib)
        handle.seek(2 * mib - 4096)
        handle.write(b"a" * 8192)  # chunks 1 and 2
        handle.seek(9 * mib)
        handle.write(b"b")  # chunk 9
    assert golden.allocated_chunks(path) == {1, 2, 9}


def test_data_chunks_skip_holes_and_zero_blocks(tmp_path: Path) -> None:
    path = tmp_path / "disk.raw"
    mib = golden.MIB
    with path.open("wb") as handle:
        handle.truncate(8 * mib)
        handle.seek(1 * mib)
        handle.write(b"x" * mib)  # chunk 1: data
        handle.seek(3 * mib)
        handle.write(bytes(mib))  # chunk 3: written zeros
        handle.seek(5 * mib + 100)
        handle.write(b"y")  # chunk 5: mostly a hole (only wholly allocated chunks count)
        handle.seek(6 * mib)
        handle.write(b"z" * mib)  # chunk 6: data
    assert golden.data_chunks(path, 8 * mib) == [1 * mib, 6 * mib]
    assert golden.data_chunks(path, 2 * mib) == [1 * mib]


@pytest.mark.skipif(shutil.which("lz4") is None, reason="lz4 CLI not installed")
def test_zfs_lz4_estimate(tmp_path: Path) -> None:
    path = tmp_path / "d.raw"
    text = b"".join(f"line {i} of a very ordinary log file\n".encode() for i in range(20000))
    random_like = b"".join(hashlib.sha256(str(i).encode()).digest() for i in range(4096))
    path.write_bytes(bytes(262144) + text[:262144] + random_like)
    sizes = golden.lz4_record_sizes(text[:262144], 131072)
    assert len(sizes) == 2 and all(compressed and size < 131072 // 2 for size, compressed in sizes)
    ratio = golden.zfs_lz4_ratio(path, path.stat().st_size, 131072)
    # zeros are holes (not counted), the text compresses, the last record stays as is
    assert 1.2 < ratio < 3.0


def stand_in(script: str) -> toolchain.Toolchain:
    """A toolchain whose fio is a real process: ``script`` run by this Python."""

    class StandIn(toolchain.Toolchain):
        def fio_argv(self, args: list[str]) -> list[str]:
            return [sys.executable, "-c", script]

    return StandIn(Path("/nonexistent"))


def test_run_fio_returns_fios_json_and_stops_when_aborted(tmp_path: Path) -> None:
    row = '{"jobs": [{"jobname": "j", "read": {"total_ios": 3}, "write": {"total_ios": 0}}]}'
    done = stand_in(f"print('fio: a note'); print({row!r})")
    assert done.run_fio(tmp_path / "j.fio", timeout=30)["jobs"][0]["read"]["total_ios"] == 3
    sleeper = stand_in("import sys, time; print('started', file=sys.stderr, flush=True); time.sleep(60)")
    abort = threading.Event()
    threading.Timer(0.5, abort.set).start()
    started = time.monotonic()
    with pytest.raises(toolchain.FioError, match=r"(?s)was aborted.*started") as aborted:
        sleeper.run_fio(tmp_path / "j.fio", timeout=60, abort=abort)
    assert time.monotonic() - started < 10
    assert not isinstance(aborted.value, toolchain.FioTimeout)  # a dead target is not retried
    with pytest.raises(toolchain.FioTimeout, match="timed out after 1 s"):
        sleeper.run_fio(tmp_path / "j.fio", timeout=1)
