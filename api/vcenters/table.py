"""Stored vCenter connections. The password is kept only encrypted (api.secretbox)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class VCenter(Base):
    __tablename__ = "vcenters"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    host: Mapped[str] = mapped_column(String(253))
    port: Mapped[int]
    username: Mapped[str] = mapped_column(String(256))
    password_sealed: Mapped[bytes] = mapped_column(LargeBinary)
    thumbprint_sha256: Mapped[str | None] = mapped_column(String(95))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
