"""Stored notification settings (SMTP password sealed by api.secretbox) and the alerts last sent.

The sent set is kept per channel in SQLite so that a restarted api sends only what changed meanwhile,
and a channel that was down gets what it missed once it answers again.
"""

from __future__ import annotations

from sqlalchemy import LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class NotifyConfig(Base):
    __tablename__ = "notify_config"

    id: Mapped[int] = mapped_column(primary_key=True)  # one row, id 1
    settings_json: Mapped[str] = mapped_column(Text)
    smtp_password: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class SentAlert(Base):
    __tablename__ = "notify_sent"

    channel: Mapped[str] = mapped_column(String(16), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    severity: Mapped[str] = mapped_column(String(16))
    alert_json: Mapped[str] = mapped_column(Text)
