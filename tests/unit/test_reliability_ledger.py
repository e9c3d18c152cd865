"""The verification rule of reliability.ledger on hand-made logs (no VM: runs in seconds)."""

from __future__ import annotations

import hashlib

import pytest

from reliability.ledger import parse, verify

BLOCK = 64


def block(seq: int, offset: int) -> bytes:
    """Data of one write: seq-stamped, like the writer's."""
    head = f"seq={seq} offset={offset}\n".encode()
    return (head + bytes([seq % 251]) * BLOCK)[:BLOCK]


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
    verdict = verify(ledger, image({0: 3, 1: 2}))
    assert verdict.lost == [] and verdict.newest_present == 2 and verdict.acked_writes == 3


def test_newer_unacked_write_is_allowed() -> None:
    ledger = parse(log([(1, 0), (2, 0)], acked=[1]))
    verdict = verify(ledger, image({0: 2}))
    assert verdict.lost == [] and verdict.newer_unacked_present == 1


def test_stale_block_is_lost() -> None:
    ledger = parse(log([(1, 0), (2, 0)], acked=[1, 2]))
    verdict = verify(ledger, image({0: 1}))
    assert [(lost.expected_seq, lost.found_seq) for lost in verdict.lost] == [(2, 1)]
    assert "older write 1" in verdict.lost[0].found


def test_torn_short_and_misplaced_blocks_are_lost() -> None:
    ledger = parse(log([(1, 0), (2, 1), (3, 2)], acked=[1, 2, 3]))
    data = bytearray(image({0: 1, 2: 3}))
    data[BLOCK : 2 * BLOCK] = block(3, 2 * BLOCK)  # slot 1 holds the write meant for slot 2
    data[5] ^= 0xFF  # slot 0 torn
    verdict = verify(ledger, bytes(data[: 2 * BLOCK + 10]))  # slot 2 cut short
    found = sorted((lost.offset // BLOCK, lost.found.split(":")[0].split(" (")[0]) for lost in verdict.lost)
    assert found == [(0, "bytes of no write"), (1, "write 3 meant for offset 128"), (2, "short file")]


def test_unacked_slots_are_not_judged_and_torn_last_line_is_ignored() -> None:
    text = log([(1, 0), (2, 1)], acked=[1]) + "A 2 64 64 ab"  # killed mid-record: no newline
    ledger = parse(text)
    assert sorted(ledger.acked) == [1] and ledger.next_seq() == 3
    assert verify(ledger, image({0: 1})).slots_checked == 1


def test_unreadable_line_is_refused() -> None:
    with pytest.raises(ValueError):
        parse("X what\n")
