"""The verification rule of reliability.ledger on hand-made logs (no VM: runs in seconds)."""

from __future__ import annotations

import hashlib

import pytest

from reliability.ledger import Write, parse, verify
from reliability.writer import fill_block

BLOCK = 64


def block(seq: int, offset: int) -> bytes:
    """Data of one write: seq-stamped, like the writer's."""
    head = f"seq={seq} offset={offset}\n".encode()
    return (head + bytes([seq % 251]) * BLOCK)[:BLOCK]


def content(write: Write) -> bytes:
    return block(write.seq, write.offset)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def log(sent: list[tuple[int, int]], acked: list[int]) -> str:
    """A writer log: I records for (seq, slot) in order, A records for the acked seqs."""
    lines = []
    slots = dict(sent)
    for seq, slot in sent:
        lines.append(f"I {seq} {slot * BLOCK} {BLOCK} {sha(block(seq, slot * BLOCK))} sync")
        if seq in acked:
            lines.append(
                f"A {seq} {slot * BLOCK} {BLOCK} {sha(block(seq, slots[seq] * BLOCK))} sync 00 {seq}"
            )
    return "\n".join(lines) + "\n"


def image(slots: dict[int, int]) -> bytes:
    """File bytes: slot -> seq whose data is there (absent slots zero-filled)."""
    size = (max(slots) + 1) * BLOCK
    data = bytearray(size)
    for slot, seq in slots.items():
        data[slot * BLOCK : (slot + 1) * BLOCK] = block(seq, slot * BLOCK)
    return bytes(data)


def test_newest_acked_present_passes() -> None:
    ledger = parse(log([(1, 0), (2, 1), (3, 0)], acked=[1, 2, 3]))
    verdict = verify(ledger, image({0: 3, 1: 2}), content)
    assert verdict.lost == [] and verdict.newest_present == 2 and verdict.acked_writes == 3


def test_newer_unacked_write_is_allowed() -> None:
    ledger = parse(log([(1, 0), (2, 0)], acked=[1]))
    verdict = verify(ledger, image({0: 2}), content)
    assert verdict.lost == [] and verdict.newer_unacked_present == 1


def test_stale_block_is_lost() -> None:
    ledger = parse(log([(1, 0), (2, 0)], acked=[1, 2]))
    verdict = verify(ledger, image({0: 1}), content)
    assert [(lost.expected_seq, lost.found_seq) for lost in verdict.lost] == [(2, 1)]
    assert "older write 1" in verdict.lost[0].found


def test_torn_short_and_misplaced_blocks_are_lost() -> None:
    ledger = parse(log([(1, 0), (2, 1), (3, 2)], acked=[1, 2, 3]))
    data = bytearray(image({0: 1, 2: 3}))
    data[BLOCK : 2 * BLOCK] = block(3, 2 * BLOCK)  # slot 1 holds the write meant for slot 2
    data[5] ^= 0xFF  # slot 0 torn
    verdict = verify(ledger, bytes(data[: 2 * BLOCK + 10]), content)  # slot 2 cut short
    found = sorted((lost.offset // BLOCK, lost.found.split(":")[0].split(" (")[0]) for lost in verdict.lost)
    assert found == [(0, "bytes of no write"), (1, "write 3 meant for offset 128"), (2, "short file")]


def test_unacked_slots_are_not_judged_and_torn_last_line_is_ignored() -> None:
    text = log([(1, 0), (2, 1)], acked=[1]) + "A 2 64 64 ab"  # killed mid-record: no newline
    ledger = parse(text)
    assert sorted(ledger.acked) == [1] and ledger.next_seq() == 3
    assert verify(ledger, image({0: 1}), content).slots_checked == 1


def test_unreadable_line_is_refused() -> None:
    with pytest.raises(ValueError):
        parse("X what\n")


def test_unacked_write_torn_over_the_acked_one_passes_and_is_counted() -> None:
    ledger = parse(log([(1, 0), (2, 0)], acked=[1]))
    torn = block(2, 0)[:40] + block(1, 0)[40:]
    verdict = verify(ledger, torn, content)
    assert verdict.lost == [] and verdict.torn_unacked_present == 1 and verdict.newer_unacked_present == 0


def test_unacked_write_torn_over_an_older_write_is_lost() -> None:
    ledger = parse(log([(1, 0), (2, 0), (3, 0)], acked=[1, 2]))
    verdict = verify(ledger, block(3, 0)[:40] + block(1, 0)[40:], content)  # write 2 is gone
    assert [lost.expected_seq for lost in verdict.lost] == [2] and verdict.torn_unacked_present == 0


# Recorded in `make reliability` (seed 608097369, cycle 18, tank's UNSTABLE+COMMIT writer): the cut fell
# while write 16794's COMMIT was in flight; after the reboot the slot held its first 11,720 bytes over
# the last 4,664 of write 15974 (acknowledged). These are the writer's own log records and the sha256
# of the bytes read back over NFS; fill_block must regenerate both writes exactly.
RECORDED_SEED = 608097369 * 16 + 1
RECORDED_LOG = (
    "I 15974 1097728 16384 a8899f452d8fb6fe911d5897913461f84186003384c7351a9d529939a75de41f unstable\n"
    "A 15974 1097728 16384 a8899f452d8fb6fe911d5897913461f84186003384c7351a9d529939a75de41f unstable"
    " 9780036b00000000 1795391671579004705\n"
    "I 16794 1097728 16384 dbe2c8d4db88bcde3a869c280a8766c79652810ff77253fa661f0b8f12b693bd unstable\n"
)
RECORDED_READ_BACK = "6dd4eae56b82fc7533158bcccf128a3f93e92787c3335791ebe9d62f4496065b"


def recorded(write: Write) -> bytes:
    return fill_block(RECORDED_SEED, write.seq, write.offset, write.length)


def test_recorded_zil_tear_is_regenerated_byte_exact_and_passes() -> None:
    ledger = parse(RECORDED_LOG)
    acked, in_flight = ledger.sent[15974], ledger.sent[16794]
    assert sha(recorded(acked)) == acked.sha256 and sha(recorded(in_flight)) == in_flight.sha256
    slot = recorded(in_flight)[:11720] + recorded(acked)[11720:]
    assert sha(slot) == RECORDED_READ_BACK
    verdict = verify(ledger, bytes(acked.offset) + slot, recorded)
    assert verdict.lost == [] and verdict.torn_unacked_present == 1


def test_recorded_slot_with_the_acked_part_corrupted_is_lost() -> None:
    ledger = parse(RECORDED_LOG)
    slot = bytearray(recorded(ledger.sent[16794])[:11720] + recorded(ledger.sent[15974])[11720:])
    slot[16000:16008] = bytes(8)  # eight bytes of the acknowledged part zeroed: no write holds them
    verdict = verify(ledger, bytes(1097728) + bytes(slot), recorded)
    assert len(verdict.lost) == 1 and "bytes of no write" in verdict.lost[0].found
