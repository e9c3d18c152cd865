"""Stored deployments. Secret OVF values are kept only sealed (api.secretbox), apart from the plan."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class Deployment(Base):
    __tablename__ = "deployments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    vcenter_id: Mapped[int] = mapped_column(ForeignKey("vcenters.id", ondelete="CASCADE"), index=True)
    plan_json: Mapped[str] = mapped_column(Text)
    secrets_sealed: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
