"""An iSCSI initiator on the host for SCSI-3 persistent reservations: libiscsi (libiscsi7, the library
of Debian's libiscsi-bin that `make setup` installs) through ctypes.

libiscsi's command-line tools have no PERSISTENT RESERVE verbs and the host has no kernel initiator,
so the test speaks to the library the tools are built on: one session per initiator name, PR OUT
(register, reserve, preempt, clear, with APTPL), PR IN (read keys, read reservation) and WRITE(10).
Each initiator keeps one ISID across logins, as ESXi and open-iscsi do: the target knows a registration
by initiator name and ISID.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

LIB = ctypes.util.find_library("iscsi") or "libiscsi.so.7"
SESSION_NORMAL = 2
GOOD, CHECK_CONDITION, RESERVATION_CONFLICT = 0x00, 0x02, 0x18
UNIT_ATTENTION = 0x6
REGISTRATIONS_PREEMPTED = 0x2A05  # the unit attention a preempted initiator's next command gets
# PERSISTENT RESERVE OUT service actions and PERSISTENT RESERVE IN ones (SPC-4 6.15, 6.16)
REGISTER, RESERVE, CLEAR, PREEMPT = 0, 1, 3, 4
READ_KEYS, READ_RESERVATION = 0, 1
WRITE_EXCLUSIVE = 1
SCOPE_LU = 0


class _Sense(ctypes.Structure):
    _fields_ = [
        ("error_type", ctypes.c_ubyte),
        ("key", ctypes.c_int),
        ("ascq", ctypes.c_int),
        # three one-bit fields, bit_pointer and field_pointer: the compiler packs them in one word
        ("specific", ctypes.c_uint32),
    ]


class _Data(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte))]


class _Task(ctypes.Structure):
    """The head of libiscsi's struct scsi_task (scsi-lowlevel.h), up to the data-in buffer."""

    _fields_ = [
        ("status", ctypes.c_int),
        ("cdb_size", ctypes.c_int),
        ("xfer_dir", ctypes.c_int),
        ("expxferlen", ctypes.c_int),
        ("cdb", ctypes.c_ubyte * 16),
        ("residual_status", ctypes.c_int),
        ("residual", ctypes.c_size_t),
        ("sense", _Sense),
        ("datain", _Data),
    ]


class _ProutBasic(ctypes.Structure):
    _fields_ = [
        ("reservation_key", ctypes.c_uint64),
        ("service_action_reservation_key", ctypes.c_uint64),
        ("spec_i_pt", ctypes.c_uint8),
        ("all_tg_pt", ctypes.c_uint8),
        ("aptpl", ctypes.c_uint8),
    ]


def _lib() -> ctypes.CDLL:
    lib = ctypes.CDLL(LIB)
    ctx, task = ctypes.c_void_p, ctypes.POINTER(_Task)
    lib.iscsi_create_context.restype = ctx
    lib.iscsi_create_context.argtypes = [ctypes.c_char_p]
    lib.iscsi_get_error.restype = ctypes.c_char_p
    lib.iscsi_get_error.argtypes = [ctx]
    lib.iscsi_set_targetname.argtypes = [ctx, ctypes.c_char_p]
    lib.iscsi_set_session_type.argtypes = [ctx, ctypes.c_int]
    lib.iscsi_set_isid_random.argtypes = [ctx, ctypes.c_uint32, ctypes.c_uint32]
    lib.iscsi_full_connect_sync.argtypes = [ctx, ctypes.c_char_p, ctypes.c_int]
    lib.iscsi_logout_sync.argtypes = [ctx]
    lib.iscsi_destroy_context.argtypes = [ctx]
    lib.iscsi_persistent_reserve_out_sync.restype = task
    lib.iscsi_persistent_reserve_out_sync.argtypes = [
        ctx,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
    ]
    lib.iscsi_persistent_reserve_in_sync.restype = task
    lib.iscsi_persistent_reserve_in_sync.argtypes = [ctx, ctypes.c_int, ctypes.c_int, ctypes.c_uint16]
    lib.iscsi_write10_sync.restype = task
    lib.iscsi_write10_sync.argtypes = [ctx, ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_uint32,
                                       ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_int]  # fmt: skip
    lib.scsi_free_scsi_task.argtypes = [task]
    return lib


@dataclass(frozen=True)
class Answer:
    """A command's SCSI status, its sense key and ASC/ASCQ (0 when GOOD), and its data-in bytes."""

    status: int
    sense_key: int
    ascq: int
    data: bytes

    def __str__(self) -> str:
        return f"status 0x{self.status:02x} sense key {self.sense_key} asc/ascq 0x{self.ascq:04x}"


class Initiator:
    """One session to LUN 0 of a target as ``name``."""

    def __init__(self, name: str, portal: str, target: str) -> None:
        self.lib = _lib()
        self.name, self.portal, self.target = name, portal, target
        self.ctx: int | None = None
        self.attentions: list[int] = []  # ASC/ASCQ of each unit attention, answered by a retry

    def __enter__(self) -> Initiator:
        self.connect()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def connect(self) -> None:
        ctx = self.lib.iscsi_create_context(self.name.encode())
        if not ctx:
            raise RuntimeError("iscsi_create_context failed")
        self.ctx = ctx
        self.lib.iscsi_set_targetname(ctx, self.target.encode())
        self.lib.iscsi_set_session_type(ctx, SESSION_NORMAL)
        # A reservation belongs to an I_T nexus, whose initiator port includes the session's ISID: a
        # real initiator logs in again with the same one, as this one does (derived from its name).
        self.lib.iscsi_set_isid_random(ctx, zlib.crc32(self.name.encode()) & 0xFFFFFF, 0)
        if self.lib.iscsi_full_connect_sync(ctx, self.portal.encode(), 0) != 0:
            error = self.error()
            self.close()
            raise ConnectionError(f"{self.name} could not log in to {self.target}: {error}")

    def error(self) -> str:
        return (self.lib.iscsi_get_error(self.ctx) or b"").decode(errors="replace")

    def close(self) -> None:
        if self.ctx:
            self.lib.iscsi_logout_sync(self.ctx)
            self.lib.iscsi_destroy_context(self.ctx)
            self.ctx = None

    def _send(self, command: Callable[[], ctypes._Pointer[_Task]]) -> Answer:
        """Run a command; a unit attention is noted and the command sent again, as an initiator does."""
        answer = self._answer(command())
        while answer.status == CHECK_CONDITION and answer.sense_key == UNIT_ATTENTION:
            self.attentions.append(answer.ascq)
            answer = self._answer(command())
        return answer

    def _answer(self, task: ctypes._Pointer[_Task]) -> Answer:
        if not task:
            raise ConnectionError(f"{self.name}: no answer: {self.error()}")
        t = task.contents
        data = ctypes.string_at(t.datain.data, t.datain.size) if t.datain.size > 0 and t.datain.data else b""
        answer = Answer(t.status, t.sense.key if t.status else 0, t.sense.ascq if t.status else 0, data)
        self.lib.scsi_free_scsi_task(task)
        return answer

    def prout(self, action: int, key: int, sa_key: int = 0, rtype: int = 0, aptpl: bool = False) -> Answer:
        """PERSISTENT RESERVE OUT with the basic parameter list."""
        params = _ProutBasic(key, sa_key, 0, 0, int(aptpl))
        out = self.lib.iscsi_persistent_reserve_out_sync
        return self._send(lambda: out(self.ctx, 0, action, SCOPE_LU, rtype, ctypes.byref(params)))

    def read_keys(self) -> list[int]:
        """The registered keys (PR IN READ KEYS)."""
        answer = self._send(lambda: self.lib.iscsi_persistent_reserve_in_sync(self.ctx, 0, READ_KEYS, 512))
        if answer.status != GOOD:
            raise AssertionError(f"{self.name}: READ KEYS answered {answer}")
        length = struct.unpack(">I", answer.data[4:8])[0]
        return [struct.unpack(">Q", answer.data[8 + i : 16 + i])[0] for i in range(0, length, 8)]

    def read_reservation(self) -> tuple[int, int] | None:
        """(holder's key, type) of the reservation, None when there is none (PR IN READ RESERVATION)."""
        answer = self._send(
            lambda: self.lib.iscsi_persistent_reserve_in_sync(self.ctx, 0, READ_RESERVATION, 512)
        )
        if answer.status != GOOD:
            raise AssertionError(f"{self.name}: READ RESERVATION answered {answer}")
        if struct.unpack(">I", answer.data[4:8])[0] < 16:
            return None
        return struct.unpack(">Q", answer.data[8:16])[0], answer.data[21] & 0x0F

    def write(self, lba: int = 0, block: int = 512) -> Answer:
        """WRITE(10) of one block of zeros."""
        buf = bytes(block)
        return self._send(
            lambda: self.lib.iscsi_write10_sync(self.ctx, 0, lba, buf, block, block, 0, 0, 0, 0, 0)
        )
