"""Metrics: the raw counters one sample stores, and the rates and cards the routes answer with.

Samples keep cumulative counters (as the kernel and ganesha count them), never rates: a rate over any
span is the difference of two samples, and a missed or failed sample loses no I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class Counters(BaseModel):
    """Cumulative read/write operations and bytes."""

    read_ops: int = Field(0, description="read operations")
    read_bytes: int = Field(0, description="bytes read")
    write_ops: int = Field(0, description="write operations")
    write_bytes: int = Field(0, description="bytes written")


class ClientCounters(Counters):
    """Cumulative NFS client I/O, with the server's time on it where the server counts it (ganesha)."""

    latency_ns: int = Field(0, description="ns spent on the operations, summed (0: not counted)")


class LunCounters(Counters):
    """Cumulative block-layer I/O of one data vdev (a SAN LUN), with the time spent on it."""

    read_ms: int = Field(0, description="milliseconds spent on reads, summed over the reads")
    write_ms: int = Field(0, description="milliseconds spent on writes, summed over the writes")


class ExportCounters(ClientCounters):
    """One NFS export and its clients' cumulative I/O (zeros under knfsd, which counts per server)."""

    export_id: int = Field(description="Export_Id (ganesha) / fsid (knfsd)")
    path: str = Field(description="exported path")
    dataset: str | None = Field(None, description="the dataset mounted at path, when found")


class DatasetSpace(BaseModel):
    """Space and compression of a dataset when sampled."""

    name: str = Field(description="dataset name")
    mountpoint: str | None = Field(None, description="mount point")
    used: int = Field(description="bytes used")
    logical_used: int = Field(description="bytes before compression")
    compressratio: float = Field(description="logical / physical bytes")


class Sample(BaseModel):
    """Everything read in one sampling pass; counters are cumulative."""

    t: datetime = Field(description="when the sample was taken (UTC)")
    arc_hits: int = Field(description="ARC hits")
    arc_misses: int = Field(description="ARC misses")
    l2_hits: int = Field(description="L2ARC hits")
    l2_misses: int = Field(description="L2ARC misses")
    arc_size: int = Field(description="ARC size in bytes")
    arc_max: int = Field(0, description="ARC maximum in bytes")
    l2_size: int = Field(description="L2ARC logical bytes")
    luns: dict[str, LunCounters] = Field(
        default_factory=dict, description="data vdevs by pool/kernel name; log and cache vdevs left out"
    )
    backend: Literal["ganesha", "knfsd"] | None = Field(None, description="the NFS server that was running")
    clients: dict[str, ClientCounters] = Field(
        default_factory=dict,
        description="NFS client counters: 'export:<id>' per ganesha export, 'server' for knfsd",
    )
    exports: list[ExportCounters] = Field(default_factory=list, description="exports served")
    datasets: list[DatasetSpace] = Field(
        default_factory=list, description="pool root datasets and exported datasets"
    )
    pool_roots: list[str] = Field(default_factory=list, description="names of the pools' root datasets")


class MetricPoint(BaseModel):
    """Rates over one sampling interval (per second), ratios and latencies; null when not measurable."""

    t: datetime = Field(description="end of the interval (UTC)")
    arc_hit_ratio: float | None = Field(description="ARC hits / lookups in the interval")
    l2_hit_ratio: float | None = Field(description="L2ARC hits / lookups in the interval")
    arc_size: int = Field(description="ARC size in bytes at the end")
    l2_size: int = Field(description="L2ARC logical bytes at the end")
    client_read_bytes: float = Field(description="bytes/s read by NFS clients")
    client_write_bytes: float = Field(description="bytes/s written by NFS clients")
    client_read_ops: float = Field(description="NFS reads/s")
    client_write_ops: float = Field(description="NFS writes/s")
    lun_read_bytes: float = Field(description="bytes/s read from the data LUNs (not SLOG, not L2ARC)")
    lun_write_bytes: float = Field(description="bytes/s written to the data LUNs")
    lun_read_ops: float = Field(description="reads/s reaching the data LUNs")
    lun_write_ops: float = Field(description="writes/s reaching the data LUNs")
    read_offload: float | None = Field(description="client read bytes / LUN read bytes (null when LUN 0)")
    write_offload: float | None = Field(description="client write bytes / LUN write bytes (null when LUN 0)")
    write_aggregation: float | None = Field(
        description="average LUN write size / average client write size (null without writes on both)"
    )
    compressratio: float | None = Field(description="logical / physical bytes over all pools")
    client_latency_ms: float | None = Field(description="average NFS operation latency (null: not counted)")
    lun_read_latency_ms: float | None = Field(description="average LUN read time (null without reads)")
    lun_write_latency_ms: float | None = Field(description="average LUN write time (null without writes)")


class MetricSeries(BaseModel):
    """Points over the requested span, oldest first."""

    interval_seconds: float = Field(description="the sampler's interval")
    points: list[MetricPoint] = Field(description="one point per pair of consecutive samples")


class ExportCard(BaseModel):
    """One datastore (export) on the dashboard."""

    export_id: int = Field(description="Export_Id / fsid")
    dataset: str | None = Field(description="the exported dataset (null when not found)")
    path: str = Field(description="exported path")
    compressratio: float | None = Field(description="the dataset's compression ratio")
    used: int | None = Field(description="bytes used by the dataset")
    logical_used: int | None = Field(description="bytes before compression")
    client_read_bytes: float | None = Field(
        description="bytes/s read by clients over the last interval (null: not counted per export)"
    )
    client_write_bytes: float | None = Field(
        description="bytes/s written by clients over the last interval (null: not counted per export)"
    )


class Summary(BaseModel):
    """The latest sample: a card per export and the ARC figures."""

    t: datetime | None = Field(description="when the latest sample was taken (null: no sample yet)")
    backend: str | None = Field(description="the NFS server that was running")
    exports: list[ExportCard] = Field(description="one card per export")
    arc_size: int | None = Field(description="ARC size in bytes")
    arc_max: int | None = Field(description="ARC maximum in bytes")
    l2_size: int | None = Field(description="L2ARC logical bytes")
    arc_hit_ratio: float | None = Field(description="ARC hit ratio over the last interval")
    l2_hit_ratio: float | None = Field(description="L2ARC hit ratio over the last interval")
    compressratio: float | None = Field(description="logical / physical bytes over all pools")
