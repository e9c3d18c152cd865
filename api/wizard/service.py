"""Find the OVAs in the configured folder and read the stand-in file the demo writes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from api.settings import Settings
from api.wizard.schemas import Offers, OvaFile, StandIn, StandInFile

MAX_OVAS = 50


def ovas(folder: Path | None) -> list[OvaFile]:
    """The *.ova files directly in `folder`, newest first; none when no folder is set or it is missing."""
    if folder is None or not folder.is_dir():
        return []
    found = []
    for path in folder.glob("*.ova"):
        try:
            stat = path.stat()
        except OSError:  # removed while listing
            continue
        if path.is_file():
            modified = datetime.fromtimestamp(stat.st_mtime, UTC)
            found.append(
                OvaFile(path=str(path), name=path.name, size_bytes=stat.st_size, modified_at=modified)
            )
    found.sort(key=lambda o: (o.modified_at, o.name), reverse=True)
    return found[:MAX_OVAS]


def stand_ins(path: Path | None) -> tuple[list[StandIn], str | None]:
    """The stand-ins the file names (none when no file is set or it is not written yet), and why the file
    was refused when it is not a stand-in file."""
    if path is None or not path.is_file():
        return [], None
    try:
        return StandInFile.model_validate_json(path.read_bytes()).stand_ins, None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return [], f"{path.name} is not a stand-in file ({where}: {first['msg']})"


def offers(settings: Settings) -> Offers:
    found, refused = stand_ins(settings.stand_in_file)
    pending = settings.stand_in_file is not None and not found and refused is None
    return Offers(
        ovas=ovas(settings.ova_dir), stand_ins=found, stand_ins_pending=pending, stand_ins_refused=refused
    )
