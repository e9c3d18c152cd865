"""Typed vCenter faults. The api maps each class to one HTTP status (api/errors.py)."""


class FieldError(Exception):
    """An error that may name the input field it is about, so a form can show it beside that field."""

    field: str | None = None

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        if field is not None:
            self.field = field


class VCenterError(FieldError):
    """Base of every fault raised while talking to a vCenter."""


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


# --- plan and apply ---------------------------------------------------------------------------------------
# Raised before anything changes when the fault can be known from the plan and the live inventory.


class PlanError(FieldError):
    """A DeploymentPlan cannot be applied as it stands; nothing was changed."""


class PlacementNotFound(PlanError):
    """A datacenter, cluster, host, datastore, network or golden VM the plan names does not exist."""


class LunNotFound(PlacementNotFound):
    """An RDM names a SCSI LUN the appliance's host does not see."""


class HostNotInCluster(PlanError):
    """An appliance is placed on a host that is not a member of the plan's cluster."""

    field = "appliances"


class SnapshotMissing(PlanError):
    """The golden VM has no snapshot of the planned name (linked clones need one)."""

    field = "pool.snapshot"


class NameCollision(PlanError):
    """A name the plan would create is taken by an object arcvsa does not own."""

    def __init__(self, message: str, *, names: list[str], field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.names = names


class InsufficientSpace(PlanError):
    """The planned desktops do not fit the datastore's free space."""

    field = "pool.count"


class InsufficientResources(PlanError):
    """The cluster has not the memory or CPU the plan asks for."""

    field = "pool.count"


class SessionExpired(VCenterError):
    """vCenter ended the session mid-run and logging in again failed."""


class Cancelled(Exception):
    """The run was cancelled by the user; what was created so far stays and is owned."""
