"""What one reconcile of a noun did: the changes it made, or the error that kept it from converging.

Each noun's reconciler (nfs.backends, lio, modparams) reads the actual state, compares it with the desired
state it is given and applies the difference. Run at boot and on a timer, a change it makes is drift it
converged (an export ganesha lost, a file edited by hand); an error is drift it cannot converge (a dataset
gone), kept until the next reconcile and alerted, never answered by destroying data.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from appliance.control.errors import ControlError, InvalidRequest, SystemFault
from appliance.control.observed import Failure


class Noun(StrEnum):
    """What a reconciler owns."""

    nfs_exports = "nfs_exports"  # what the chosen NFS server serves
    zfs_parameters = "zfs_parameters"  # the module parameters in effect
    iscsi_targets = "iscsi_targets"  # what LIO exports
    firewall = "firewall"  # the nftables rule set and whether SSH runs
    api_folder = "api_folder"  # who owns what is in /var/lib/arcvsa


class Reconciled(BaseModel):
    """One reconcile of one noun."""

    noun: Noun = Field(description="what was reconciled")
    at: datetime = Field(description="when the reconcile ended")
    changes: list[str] = Field(default_factory=list, description="what it changed, one line each")
    failure: Failure | None = Field(
        None, description="why the noun could not be brought to its desired state"
    )


def attempt(noun: Noun, at: Callable[[], datetime], reconcile: Callable[[], list[str]]) -> Reconciled:
    """Run one noun's reconcile; its typed error, if any, is kept as the outcome rather than raised."""
    try:
        changes = reconcile()
    except ControlError as exc:
        return Reconciled(noun=noun, at=at(), failure=Failure.of(exc))
    except ValueError as exc:  # a stored row the models refuse (ValidationError is one): the others go on
        refused = InvalidRequest(f"the stored {noun.value} are not valid: {str(exc)[:500]}")
        return Reconciled(noun=noun, at=at(), failure=Failure.of(refused))
    except OSError as exc:
        return Reconciled(noun=noun, at=at(), failure=Failure.of(SystemFault(f"{noun.value}: {exc}")))
    return Reconciled(noun=noun, at=at(), changes=changes)
