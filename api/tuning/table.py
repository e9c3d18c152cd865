"""The tuning plan: the ZFS module parameters arcvsa holds in effect and at every module load."""

from __future__ import annotations

from sqlalchemy import BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from api.db import Base


class ZfsParameter(Base):
    __tablename__ = "zfs_parameters"

    name: Mapped[str] = mapped_column(String(80), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)
