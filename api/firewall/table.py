"""The stored firewall settings (one row), and a change of them on trial until confirmed."""

from __future__ import annotations

from sqlalchemy import Float, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class FirewallConfig(Base):
    __tablename__ = "firewall_config"

    id: Mapped[int] = mapped_column(primary_key=True)  # one row, id 1
    settings_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # None: never saved
    trial_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    trial_until: Mapped[float | None] = mapped_column(Float, nullable=True)  # Unix time
