"""What a domain gives the backup: its part of the desired state, collected, stored again and converged.

The backup knows no domain's tables. Each domain that holds configuration provides one :class:`Section`
(``api/<domain>/backup.py``) and the app lists them (api.app); a backup is every section's ``collect``
under its key, a restore every section's ``store`` in one transaction and then its ``converge``, the
same reconcile a change through the api runs. A section reports what it could not bring back through
:class:`Restoring` rather than failing the restore.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from api.secretbox import SecretBox
from api.settings import Settings
from appliance.control.datasets import Dataset
from appliance.control.files import Files
from appliance.control.gateway import Gateway
from appliance.control.observed import Part


class Skipped(BaseModel):
    """Something the backup could not carry, named so that a restore reports it."""

    kind: str = Field(description="what it is: iscsi_target, ...")
    name: str = Field(description="which one")
    reason: str = Field(description="why it is not in the backup")


class NotRestored(BaseModel):
    """Something in the backup this restore could not bring back."""

    kind: str = Field(description="pool, dataset, export, iscsi_target, tuning, tls, vcenter, users ...")
    name: str = Field(description="which one")
    reason: str = Field(description="why, in words for a person")


def opened(box: SecretBox, sealed: bytes, kind: str, name: str, skipped: list[Skipped]) -> str | None:
    """A stored secret in plain text for the file; None, and a note for the restore, when this
    appliance's key no longer opens it."""
    try:
        return box.open(sealed)
    except RuntimeError:
        skipped.append(Skipped(kind=kind, name=name, reason="its stored secret cannot be decrypted here"))
        return None


@dataclass(frozen=True)
class Context:
    """What sections read and write through: the database (one transaction for a restore's rows), the
    secret box that seals stored secrets, the storage files and tools, the settings."""

    db: Session
    box: SecretBox
    files: Files
    settings: Settings
    gw: Gateway
    by: str = ""  # who restores (the TLS certificate's install is logged with it)
    address: str = ""  # where the restore's request came from (the firewall must not cut it off)


@dataclass
class Restoring:
    """A restore under way: the datasets found for the sections that need them, and what is lost."""

    found: dict[str, Dataset] = field(default_factory=dict)
    missing: list[NotRestored] = field(default_factory=list)
    sessions_ended: bool = False  # the users were replaced: every login ended
    to_converge: set[str] = field(default_factory=set)  # sections whose store changed what runs

    def converge(self, section: Section) -> None:
        """``section`` stored something the system must be brought to (its converge runs after the commit)."""
        self.to_converge.add(section.key)

    def lost(self, kind: str, name: str, reason: str) -> None:
        self.missing.append(NotRestored(kind=kind, name=name, reason=reason))


class Section(abc.ABC):
    """One domain's configuration in a backup. Subclasses set the class attributes, implement collect and
    store, and override what else they hold; the defaults are a section that needs no storage and
    converges nothing."""

    key: ClassVar[str]  # the section's name in the file
    title: ClassVar[str]  # for people, in the restore's report
    model: ClassVar[type[BaseModel]]  # what the section holds (secrets in plain text: inside the file only)
    touches: ClassVar[tuple[Part, ...]] = ()  # the published state's parts its converge can change
    restarts_api: ClassVar[bool] = False  # what its converge changed is served from the api's next start

    def prepare(self, ctx: Context) -> None:
        """Before a restore reads this appliance: its own state brought up to date (what an older release
        kept elsewhere adopted), so the restore weighs and keeps it as the domain would."""
        return None  # a domain that keeps nothing outside the database has nothing to adopt

    @abc.abstractmethod
    def collect(self, ctx: Context, skipped: list[Skipped]) -> BaseModel | None:
        """This appliance's configuration of the domain; None when it has none to carry."""

    def needs(self, value: Any) -> Iterable[str]:
        """The datasets and zvols the configuration needs (a restore imports their pools first)."""
        return ()

    def held(self, ctx: Context) -> str | None:
        """What of the domain makes this appliance configured (a restore then needs ``replace``)."""
        return None

    @abc.abstractmethod
    def store(self, ctx: Context, value: Any | None, restoring: Restoring) -> list[str]:
        """The backup's configuration as this appliance's desired state (rows added, not committed);
        the names of what is stored now. ``value`` is None when the backup has no such section. A store
        that changed what the system runs asks for its ``converge`` (``restoring.converge``)."""

    def changing(self, ctx: Context) -> contextlib.AbstractContextManager[object]:
        """The lock a change of this domain holds (around ``converge``)."""
        return contextlib.nullcontext()

    def converge(self, ctx: Context, value: Any | None) -> list[str] | None:
        """The system brought to the stored desired state (after the commit); what that changed. None:
        nothing of this domain lives outside the database. ``value``: the backup's section, for what is
        not kept in the database. Raises the control package's (or the api's) typed errors."""
        return None
