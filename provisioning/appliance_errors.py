"""Typed faults of an arcvsa appliance's own api, as the fleet manager meets them.

An appliance is not a vCenter: its faults are a family of their own, so a caller that handles one never
catches the other by accident, and the api answers each with an appliance code (api/errors.py). Every
message starts with the appliance's name and ends with what to do.
"""

from __future__ import annotations

from provisioning.errors import FieldError


class ApplianceApiError(FieldError):
    """Base of every fault met talking to an appliance's api: it refused a request or did not answer."""

    def __init__(self, message: str, *, status: int = 0, code: str = "", field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.status, self.code = status, code


class ApplianceUnreachable(ApplianceApiError):
    """No TCP or TLS connection to the appliance's api address, or no answer in time."""

    field = "fleet.appliances"


class ApplianceCertificateMismatch(ApplianceApiError):
    """The appliance presented another certificate than the one pinned for it."""

    field = "fleet.appliances"

    def __init__(self, message: str, *, thumbprint: str) -> None:
        super().__init__(message)
        self.thumbprint = thumbprint


class ApplianceBadAnswer(ApplianceApiError):
    """Something answered at the appliance's address, but not as an arcvsa api does (TLS, HTTP)."""

    field = "fleet.appliances"


class ApplianceRequestRefused(ApplianceApiError):
    """The appliance's api answered a request with an error status; its status and code are kept."""


class ApplianceLoginFailed(ApplianceRequestRefused):
    """The appliance refused the admin password the plan gave it."""

    field = "fleet.admin_password"
