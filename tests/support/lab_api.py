"""The booted lab appliance's api as its admin, and its shell, for the lab tests (storage, faults, security)."""

from __future__ import annotations

from typing import Any

from fixtures.appliance.remote import SshRunner

from appliance.control.gateway import Result
from lab.appliance_api import ApplianceApi
from support.lab_boot import BootedAppliance


class LabApi:
    """Bearer token from the admin password the lab gave first boot; JSON in and out; the expected status
    checked. Pool creation writes labels through the throttled SAN under TCG: minutes per call allowed."""

    def __init__(self, booted: BootedAppliance, timeout: float = 900) -> None:
        self.client = ApplianceApi(booted.api.port, booted.api.cert_file, timeout=timeout)
        self.password = (booted.vm.directory / "env" / "admin-password").read_text(encoding="utf-8").strip()
        self.token = ""
        self.login()

    def login(self) -> None:
        """A new token (the old one may have expired)."""
        self.token = self.client.token("admin", self.password)

    def raw(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """(status, body); logs in again once when the token has expired."""
        status, data = self.client.request(method, path, body, token=self.token)
        if status == 401:
            self.login()
            status, data = self.client.request(method, path, body, token=self.token)
        return status, data

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, expect: int = 200) -> Any:
        """The body of an answer with status ``expect`` (AssertionError with the api's error otherwise)."""
        status, data = self.raw(method, path, body)
        assert status == expect, f"{method} {path} answered {status} (expected {expect}): {data}"
        return data

    def refused(self, method: str, path: str, body: dict[str, Any], expect: int) -> dict[str, Any]:
        """An error answer with status ``expect`` in the api's error shape {detail, code, field}."""
        data = self.call(method, path, body, expect)
        assert isinstance(data, dict) and data.get("detail"), data
        return data


def in_guest(guest: SshRunner, argv: list[str], timeout: float = 600) -> Result:
    """Run argv in the guest; AssertionError with its stderr when it fails."""
    result = guest.execute(argv, timeout=timeout)
    assert result.exit_code == 0, f"{argv} in the guest exited {result.exit_code}: {result.stderr}"
    return result
