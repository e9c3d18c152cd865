"""Typed vCenter faults. The api maps each class to one HTTP status (api/errors.py)."""


class VCenterError(Exception):
    """Base of every fault raised while talking to a vCenter."""

    #: which input field the fault is about, so a form can show it beside that field
    field: str | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field


class AuthenticationFailed(VCenterError):
    """vCenter refused the user name or password."""

    field = "password"


class Unreachable(VCenterError):
    """No TCP/TLS connection to the address (DNS, refused, no route)."""

    field = "host"


class CertificateUntrusted(VCenterError):
    """The certificate is not trusted by the CA store and no thumbprint was accepted."""

    field = "thumbprint"

    def __init__(self, message: str, *, thumbprint: str) -> None:
        super().__init__(message)
        self.thumbprint = thumbprint


class ThumbprintMismatch(VCenterError):
    """The server's certificate does not match the SHA-256 thumbprint the user accepted."""

    field = "thumbprint"

    def __init__(self, message: str, *, thumbprint: str) -> None:
        super().__init__(message)
        self.thumbprint = thumbprint


class VCenterTimeout(VCenterError):
    """vCenter did not answer within the deadline."""

    field = "host"


class NotAVCenter(VCenterError):
    """Something answered, but it is not a vSphere API endpoint."""

    field = "host"
