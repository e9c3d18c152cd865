"""What a verb is given to do its work: the tools, files, database and published state of the machine.

The api's ``app.state`` has these attributes (the tests' recorded tools among them); the control
service builds a :class:`Host` of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from api.backup.section import Section
from api.calibration.service import Runner
from api.settings import Settings
from api.state.snapshot import Store
from appliance.control.files import Files
from appliance.control.gateway import Gateway


class Machine(Protocol):
    settings: Settings
    sessionmaker: sessionmaker[Session]
    storage_gateway: Gateway
    storage_files: Files
    snapshot: Store
    backup_sections: Sequence[Section]
    calibrations: Runner


@dataclass
class Host:
    """The control service's :class:`Machine`."""

    settings: Settings
    sessionmaker: sessionmaker[Session]
    storage_gateway: Gateway
    storage_files: Files
    snapshot: Store
    backup_sections: Sequence[Section]
    calibrations: Runner
