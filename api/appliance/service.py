"""Read what first boot and the image build wrote. Missing files are normal off the appliance."""

from __future__ import annotations

import re
import socket

from pydantic import ValidationError

from api import VERSION
from api.appliance import config as appliance_json
from api.appliance.schemas import ApplianceInfo, Build, FirstBoot
from api.settings import Settings


def firstboot(settings: Settings) -> FirstBoot:
    """The first-boot report; `pending` on an appliance where it has not finished, `absent` elsewhere."""
    report = appliance_json.json_object(settings.data_dir / "firstboot.json")
    if report is None:
        return FirstBoot(status="pending" if settings.build_manifest.is_file() else "absent")
    try:
        return FirstBoot.model_validate(report, strict=False)
    except ValidationError:
        return FirstBoot(status="failed", warnings=["firstboot.json is unreadable"])


def file_hostname(name: str | None = None) -> str:
    """This appliance's host name (or ``name``) as it goes into a download's file name."""
    return re.sub(r"[^A-Za-z0-9.-]", "-", name or socket.gethostname())[:64] or "appliance"


def info(settings: Settings) -> ApplianceInfo:
    """Version, build, role and first boot of this appliance."""
    config = appliance_json.read(settings)
    build = appliance_json.json_object(settings.build_manifest)
    return ApplianceInfo(
        version=VERSION,
        hostname=socket.gethostname(),
        role=config.get("role"),
        nfs_backend=config.get("nfs_backend"),
        build=Build.model_validate(build) if build else None,
        firstboot=firstboot(settings),
    )


def admin_password_hash(settings: Settings) -> str | None:
    """The argon2id hash first boot made from the admin_password property, if any."""
    try:
        text = settings.admin_password_hash_file.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text if text.startswith("$argon2") else None
