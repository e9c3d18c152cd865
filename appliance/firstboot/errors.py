"""Typed first-boot errors: the CLI turns each into a console line and a status report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class FirstBootError(Exception):
    """Base of every first-boot error."""


class EnvironmentNotFound(FirstBootError):
    """Neither guestinfo nor a CD-ROM carried an OVF environment."""


class EnvironmentMalformed(FirstBootError):
    """The OVF environment document is not a readable ovf-env.xml."""


@dataclass(frozen=True)
class FieldError:
    """One refused property: its key, the wizard's label, and what is wrong."""

    key: str
    label: str
    message: str

    def __str__(self) -> str:
        return f"{self.key} ({self.label}): {self.message}"


class ConfigInvalid(FirstBootError):
    """One or more properties were refused; `errors` lists every one, nothing was applied."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        lines = "\n".join(f"  - {e}" for e in self.errors)
        super().__init__(f"OVF properties refused ({len(self.errors)} problem(s)), nothing applied:\n{lines}")


class ApplyFailed(FirstBootError):
    """Writing the configuration or running a system tool failed."""
