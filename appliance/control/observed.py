"""The appliance's actual state, observed in one pass: what every read of the api answers from.

Reads of the tools (zpool, zfs, lsblk, DBus, systemctl, chronyc) happen here only, in the state poller
and right after a change; a dashboard's request never waits for a fork. Each part is read on its own:
one that fails (ganesha down, a pool whose status hangs) is kept as its typed error, which a read of
that part raises again, and the other parts still answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from functools import partial
from typing import NoReturn, TypeVar

from pydantic import BaseModel, Field

from appliance.control import chrony, datasets, disks, errors, imports, pools
from appliance.control.chrony import Tracking
from appliance.control.datasets import Dataset
from appliance.control.disks import Disk
from appliance.control.errors import ControlError, NotFound
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.imports import ImportableZfsPool
from appliance.control.nfs import backends, ganesha
from appliance.control.nfs.backends import Backend, ServiceState
from appliance.control.nfs.ganesha import ExportIO
from appliance.control.nfs.model import Protocol
from appliance.control.pools import ZfsPoolHealth, ZfsPoolSpace

T = TypeVar("T")


class Part(StrEnum):
    """A part of the observed state, read (and refreshed after a change) on its own."""

    pools = "pools"  # zpool list, and each pool's zpool status
    datasets = "datasets"  # zfs get, per pool
    disks = "disks"  # lsblk
    imports = "imports"  # zpool import: reads every disk's labels, so not on every pass
    nfs = "nfs"  # ganesha's exports and their counters
    services = "services"  # the NFS servers' systemd services
    clock = "clock"  # chronyc tracking


EVERY_PART = frozenset(Part)


class Failure(BaseModel):
    """A read that failed: the error's class (one of appliance.control.errors) and its words."""

    error: str = Field(description="the ControlError class the read raised")
    message: str = Field(description="what it said")

    @classmethod
    def of(cls, exc: ControlError) -> Failure:
        return cls(error=_nearest(exc).__name__, message=str(exc))

    def raise_(self) -> NoReturn:
        """Raise the error again, as the read would have (the api maps it to its status and code)."""
        found = getattr(errors, self.error, None)
        kind = found if isinstance(found, type) and issubclass(found, ControlError) else errors.SystemFault
        if issubclass(kind, (errors.CommandFailed, errors.CommandTimeout)):
            # their constructors compose the words from the argv; the published words are composed
            # already, and the class alone decides the api's answer (a timeout is a 504)
            told = kind.__new__(kind)
            Exception.__init__(told, self.message)
            raise told
        raise kind(self.message)


def _nearest(exc: ControlError) -> type[ControlError]:
    """The first class of ``exc``'s ancestry the errors module defines (a caller's own subclass)."""
    for kind in type(exc).__mro__:
        if issubclass(kind, ControlError) and getattr(errors, kind.__name__, None) is kind:
            return kind
    return ControlError


class NfsObserved(BaseModel):
    """The NFS server as observed: what ganesha serves and its per-export counters."""

    ganesha_exports: dict[int, str] | None = Field(
        None, description="what ganesha serves (export id: path); none when it does not answer on DBus"
    )
    ganesha_failure: Failure | None = Field(None, description="why ganesha's exports could not be read")
    io: dict[int, dict[Protocol, ExportIO]] = Field(
        default_factory=dict, description="ganesha's counters per served export id and protocol"
    )


class Observed(BaseModel):
    """What the tools said, part by part; a part never read is None, one that failed is in ``failures``."""

    spaces: list[ZfsPoolSpace] | None = Field(None, description="zpool list: every imported pool's space")
    pools: list[ZfsPoolHealth] | None = Field(None, description="zpool status of every imported pool")
    pool_failures: dict[str, Failure] = Field(
        default_factory=dict, description="pools whose status could not be read, and why"
    )
    datasets: dict[str, list[Dataset]] | None = Field(None, description="each pool's datasets and zvols")
    dataset_failures: dict[str, Failure] = Field(
        default_factory=dict, description="pools whose datasets could not be read, and why"
    )
    disks: list[Disk] | None = Field(None, description="the machine's whole disks")
    imports: list[ImportableZfsPool] | None = Field(None, description="pools on the disks not imported")
    nfs: NfsObserved | None = Field(None, description="what ganesha serves")
    services: dict[Backend, ServiceState | Failure] | None = Field(
        None, description="each NFS server's systemd service (or why it could not be read)"
    )
    clock: Tracking | None = Field(None, description="chronyd's tracking")
    failures: dict[Part, Failure] = Field(
        default_factory=dict, description="parts that could not be read at all, and why"
    )

    def part(self, part: Part, value: T | None) -> T:
        """``value`` (this part's), or the error its read raised; a part never read is a SystemFault."""
        if part in self.failures:
            self.failures[part].raise_()
        if value is None:
            raise errors.SystemFault(f"the appliance's {part.value} have not been read yet")
        return value

    def pool(self, name: str) -> ZfsPoolHealth:
        """One pool's health, as ``zpool status`` answered it; NotFound for a pool not imported."""
        if name in self.pool_failures:
            self.pool_failures[name].raise_()
        for health in self.part(Part.pools, self.pools):
            if health.name == name:
                return health
        raise NotFound(f"cannot open '{name}': no such pool")

    def datasets_of(self, pool: str) -> list[Dataset]:
        """A pool's datasets; NotFound for a pool not imported."""
        if pool in self.dataset_failures:
            self.dataset_failures[pool].raise_()
        found = self.part(Part.datasets, self.datasets)
        if pool not in found:
            raise NotFound(f"cannot open '{pool}': dataset does not exist")
        return found[pool]

    def merged(self, newer: Observed, parts: Iterable[Part]) -> Observed:
        """This state with ``parts`` taken from ``newer`` (a refresh of some parts after a change)."""
        taken = frozenset(parts)
        update: dict[str, object] = {}
        for part in taken:
            for field in FIELDS[part]:
                update[field] = getattr(newer, field)
        failures = {p: f for p, f in self.failures.items() if p not in taken}
        failures.update({p: f for p, f in newer.failures.items() if p in taken})
        update["failures"] = failures
        return self.model_copy(update=update)


FIELDS: dict[Part, tuple[str, ...]] = {
    Part.pools: ("spaces", "pools", "pool_failures"),
    Part.datasets: ("datasets", "dataset_failures"),
    Part.disks: ("disks",),
    Part.imports: ("imports",),
    Part.nfs: ("nfs",),
    Part.services: ("services",),
    Part.clock: ("clock",),
}


def _try(read: Callable[[], T]) -> T | Failure:
    try:
        return read()
    except ControlError as exc:
        return Failure.of(exc)


def observe(
    gw: Gateway,
    files: Files,
    parts: Iterable[Part] = EVERY_PART,
    services: Iterable[Backend] = tuple(Backend),
) -> Observed:
    """Read ``parts`` through the gateway (and files): the one place reads run their tools. ``services``:
    the NFS servers whose systemd service to read (a caller that knows the chosen one reads it alone)."""
    wanted = set(parts)
    out = Observed()
    spaces: list[ZfsPoolSpace] | Failure | None = None
    if wanted & {Part.pools, Part.datasets}:
        spaces = _try(lambda: pools.space(gw))
    if Part.pools in wanted:
        if isinstance(spaces, Failure):
            out.failures[Part.pools] = spaces
        else:
            out.spaces, out.pools = spaces, []
            for space in spaces or []:
                health = _try(partial(pools.status, gw, space.name))
                if isinstance(health, Failure):
                    if health.error != NotFound.__name__:  # exported since the listing: simply gone
                        out.pool_failures[space.name] = health
                else:
                    out.pools.append(health)
    if Part.datasets in wanted:
        if isinstance(spaces, Failure):
            out.failures[Part.datasets] = spaces
        else:
            out.datasets = {}
            for space in spaces or []:
                found = _try(partial(datasets.list_all, gw, space.name))
                if isinstance(found, Failure):
                    if found.error != NotFound.__name__:
                        out.dataset_failures[space.name] = found
                else:
                    out.datasets[space.name] = found
    for part, read in (
        (Part.disks, lambda: disks.inventory(gw)),
        (Part.imports, lambda: imports.importable(gw)),
    ):
        if part in wanted:
            value = _try(read)
            if isinstance(value, Failure):
                out.failures[part] = value
            else:
                setattr(out, part.value, value)
    if Part.nfs in wanted:
        out.nfs = _nfs(gw)
    if Part.services in wanted:
        out.services = {b: _try(partial(backends.service_state, gw, b)) for b in services}
    if Part.clock in wanted and chrony.uptime(files) is not None:  # no /proc/uptime: not an appliance
        clock = _try(lambda: chrony.tracking(gw))
        if isinstance(clock, Failure):
            out.failures[Part.clock] = clock
        else:
            out.clock = clock
    return out


def _nfs(gw: Gateway) -> NfsObserved:
    seen = NfsObserved()
    try:
        live = ganesha.live(gw)
    except ControlError as exc:  # ServiceDown when it is not running: nothing served
        seen.ganesha_failure = Failure.of(exc)
        return seen
    seen.ganesha_exports = {e.export_id: e.path for e in live}
    for export in live:
        try:
            seen.io[export.export_id] = {p: ganesha.io_stats(gw, export.export_id, p) for p in Protocol}
        except ControlError:  # removed between ShowExports and now: no counters to show
            continue
    return seen
