"""Password hashing (argon2id)."""

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


@cache
def _dummy_hash() -> str:
    """Verified against when the user does not exist, so a wrong name costs as long as a wrong password.
    Made at the first login rather than at import: a hash costs seconds on a slow CPU, and every process
    that imports the api (the metrics service, the CLI) would pay it at start for nothing."""
    return _hasher.hash("arcvsa-timing-equaliser")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _dummy_hash(), password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False
