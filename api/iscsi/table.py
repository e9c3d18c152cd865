"""The desired iSCSI targets: one LUN on a zvol each, its unit serial, its initiators and their CHAP
(secret sealed by api.secretbox)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class IscsiTarget(Base):
    __tablename__ = "iscsi_targets"

    iqn: Mapped[str] = mapped_column(String(223), primary_key=True)
    zvol: Mapped[str] = mapped_column(String(512), unique=True)
    initiators_json: Mapped[str] = mapped_column(Text)
    chap_user: Mapped[str | None] = mapped_column(String(255))
    chap_secret: Mapped[bytes | None] = mapped_column(LargeBinary)
    wwn: Mapped[str | None] = mapped_column(String(64))  # the LUN's unit serial, kept when LIO remakes it
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
