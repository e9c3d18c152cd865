"""The desired NFS exports and the storage settings (which NFS backend serves them)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class NfsExport(Base):
    __tablename__ = "nfs_exports"

    export_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    dataset: Mapped[str] = mapped_column(String(512))
    protocol: Mapped[str] = mapped_column(String(8))
    clients_json: Mapped[str] = mapped_column(Text)
    insecure_ports: Mapped[bool]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StorageSetting(Base):
    __tablename__ = "storage_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
