"""The writer's log and the rule every acknowledged write is checked by after a power cut.

The log (tools/nfswriter/nfswriter.c) has one record a line: ``I`` before a WRITE is sent (its sequence
number, offset, length, sha256 and mode), ``A`` once the server acknowledged it (FILE_SYNC reply, or a
COMMIT whose verifier matches the WRITE replies'), ``R`` when a write is sent again, ``E`` on an error.

The rule, per block-sized slot of the file (offset), read back over NFS after the reboot:

- slots without an acknowledged write are not judged (anything may be there: the file's hole, an older
  write, or one the server never acknowledged);
- a slot whose newest acknowledged write has sequence number N passes when its bytes are exactly the
  bytes of one write the writer sent to this offset (sha256 equal to that write's ``I`` record) with a
  sequence number >= N: the newest acknowledged write itself, or a newer one the server took but had not
  acknowledged yet;
- it also passes when every byte is the byte, at the same place, of write N or of a newer write sent to
  this offset: a write nobody acknowledged, partly on disk over the acknowledged one. NFS promises
  nothing of a WRITE the server never answered (RFC 1813 4.8: the client keeps it and sends it again
  after the server restarts, which overwrites the slot whole); ZFS can leave one behind when the ZIL split
  it across log blocks and the cut fell between them. The harness kills its writers at the cut, so they
  never re-send; the rule accepts exactly what a re-send would repair, and counts it;
- anything else is a lost write: an older write's bytes (a stale block), bytes of no write (corrupt), or
  a short file.

Every write carries its own sequence number in its data, so equal checksums mean the same write; its
bytes come from a PRNG, so a byte of an older write or of garbage matches a candidate's by chance only
once in 256 per candidate, and a stale or corrupt block fails on thousands of its bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field


@dataclass(frozen=True)
class Write:
    """One write the writer sent (``I``) or had acknowledged (``A``)."""

    seq: int
    offset: int
    length: int
    sha256: str
    mode: str
    acked_ns: int = 0


@dataclass
class Ledger:
    """What one writer's log says: every write sent, every write acknowledged, re-sends and errors."""

    sent: dict[int, Write] = field(default_factory=dict)
    acked: dict[int, Write] = field(default_factory=dict)
    resent: int = 0
    errors: list[str] = field(default_factory=list)

    def next_seq(self) -> int:
        """The first sequence number a new writer run may use (never one already sent)."""
        return max(self.sent, default=0) + 1

    def newest_acked(self) -> dict[int, Write]:
        """Per offset, the acknowledged write with the highest sequence number."""
        newest: dict[int, Write] = {}
        for write in self.acked.values():
            if write.offset not in newest or write.seq > newest[write.offset].seq:
                newest[write.offset] = write
        return newest

    def acked_times(self) -> list[int]:
        """Acknowledgement times (ns, CLOCK_REALTIME), sorted."""
        return sorted(w.acked_ns for w in self.acked.values())


def parse(text: str) -> Ledger:
    """A Ledger from the log's text; a torn last line (the writer was killed mid-record) is ignored."""
    ledger = Ledger()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        lines.pop()  # no newline at its end: cut off by the kill, never fsynced as a whole record
    for line in lines:
        words = line.split(" ")
        kind = words[0]
        if kind == "I" and len(words) == 6:
            write = Write(int(words[1]), int(words[2]), int(words[3]), words[4], words[5])
            ledger.sent[write.seq] = write
        elif kind == "A" and len(words) == 8:
            write = Write(int(words[1]), int(words[2]), int(words[3]), words[4], words[5], int(words[7]))
            ledger.acked[write.seq] = write
        elif kind == "R":
            ledger.resent += 1
        elif kind == "E":
            ledger.errors.append(line[2:])
        else:
            raise ValueError(f"unreadable writer log line: {line!r}")
    return ledger


def read_ledger(path: Path) -> Ledger:
    """The Ledger of a log file (empty when the file does not exist yet)."""
    return parse(path.read_text(encoding="ascii")) if path.exists() else Ledger()


class Lost(BaseModel):
    """An acknowledged write that is not on the server after the reboot."""

    offset: int = Field(description="byte offset of the slot")
    expected_seq: int = Field(description="sequence number of the newest acknowledged write there")
    expected_sha256: str = Field(description="its sha256")
    found_seq: int | None = Field(description="sequence number of the write whose bytes are there, if any")
    found_sha256: str = Field(description="sha256 of the bytes read back")
    found: str = Field(description="what is there: older write, unknown bytes, short file")


class Verdict(BaseModel):
    """The check of one file against its ledger."""

    acked_writes: int = Field(description="acknowledged writes in the log (all runs of the writer so far)")
    slots_checked: int = Field(description="slots holding an acknowledged write, each compared byte-exact")
    newest_present: int = Field(description="slots holding exactly their newest acknowledged write")
    newer_unacked_present: int = Field(description="slots holding a newer write that was not acknowledged")
    torn_unacked_present: int = Field(
        default=0, description="slots holding part of a newer, unacknowledged write over the acknowledged one"
    )
    lost: list[Lost] = Field(description="acknowledged writes missing (the run fails when not empty)")


def made_of(block: bytes, writes: list[bytes]) -> bool:
    """True when every byte of ``block`` is the byte at the same place of one of ``writes``."""
    return all(any(write[i] == byte for write in writes) for i, byte in enumerate(block))


def verify(ledger: Ledger, data: bytes, content: Callable[[Write], bytes]) -> Verdict:
    """Check the file's bytes (read back over NFS) against the ledger by the rule of the module docstring.

    ``content`` regenerates the bytes of a write (only for a slot no whole write's checksum matches).
    """
    by_sha = {w.sha256: w for w in ledger.sent.values()}
    by_offset: dict[int, list[Write]] = {}
    for write in ledger.sent.values():
        by_offset.setdefault(write.offset, []).append(write)
    present = newer = torn = 0
    lost: list[Lost] = []
    newest = ledger.newest_acked()
    for offset, want in sorted(newest.items()):
        block = data[offset : offset + want.length]
        digest = hashlib.sha256(block).hexdigest()
        found = by_sha.get(digest)
        if len(block) == want.length and found is not None and found.offset == offset:
            if found.seq == want.seq:
                present += 1
                continue
            if found.seq > want.seq:
                newer += 1
                continue
        later = [w for w in by_offset.get(offset, []) if w.seq > want.seq and w.length == want.length]
        if later and len(block) == want.length and made_of(block, [content(w) for w in [want, *later]]):
            torn += 1
            continue
        if len(block) < want.length:
            what = f"short file: {len(block)} of {want.length} bytes"
        elif found is None:
            what = f"bytes of no write (header {block[:64]!r})"
        elif found.offset != offset:
            what = f"write {found.seq} meant for offset {found.offset}"
        else:
            what = f"older write {found.seq}"
        lost.append(
            Lost(
                offset=offset,
                expected_seq=want.seq,
                expected_sha256=want.sha256,
                found_seq=found.seq if found else None,
                found_sha256=digest,
                found=what,
            )
        )
    return Verdict(
        acked_writes=len(ledger.acked),
        slots_checked=len(newest),
        newest_present=present,
        newer_unacked_present=newer,
        torn_unacked_present=torn,
        lost=lost,
    )
