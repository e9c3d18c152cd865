"""X.509 certificates the project makes itself (lab signing keys, first-boot TLS, lab vCenters); every
other package may use it, and it imports none of them."""

from pki.certificate import Extension, Issuer, PrivateKey, PublicKey, Validity, issue, self_signed

__all__ = ["Extension", "Issuer", "PrivateKey", "PublicKey", "Validity", "issue", "self_signed"]
