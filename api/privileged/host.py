"""What a verb is given to do its work: the tools, files, database and published state of the machine.

The control service builds its own; in the api's process (no control service: the tests' recorded
tools, a developer's machine) it is taken from ``app.state`` at each call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from api.backup.section import Section
from api.calibration.service import Runner
from api.secretbox import SecretBox
from api.settings import Settings
from api.state.snapshot import Store
from appliance.control.files import Files
from appliance.control.gateway import Gateway


@dataclass(frozen=True)
class Host:
    settings: Settings
    sessionmaker: sessionmaker[Session]
    storage_gateway: Gateway
    storage_files: Files
    snapshot: Store
    backup_sections: Sequence[Section]
    calibrations: Runner
    secretbox: SecretBox  # the key read once, not at every call

    @classmethod
    def of(cls, state: Any) -> Host:
        """The api's own (``app.state``, which has these attributes)."""
        return cls(
            settings=state.settings,
            sessionmaker=state.sessionmaker,
            storage_gateway=state.storage_gateway,
            storage_files=state.storage_files,
            snapshot=state.snapshot,
            backup_sections=state.backup_sections,
            calibrations=state.calibrations,
            secretbox=state.secretbox,
        )
