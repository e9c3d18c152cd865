"""Typed errors of the ovf package: callers tell a bad descriptor from a failed tool by type."""

from __future__ import annotations

from collections.abc import Sequence


class OvfError(Exception):
    """Base of every error raised by the ovf package."""


class DescriptorInvalid(OvfError):
    """An OVF envelope breaks a DMTF rule we rely on; `problems` lists every rule broken."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"OVF descriptor invalid ({len(self.problems)} problem(s)):\n{lines}")


class ImageInvalid(OvfError):
    """A disk image is not what an OVA needs: qemu-img describes something else (or nothing it can parse),
    or its size cannot be written as a VMDK."""


class PackageInvalid(OvfError):
    """An OVA breaks the packaging rules (.ovf first, manifest digests matching)."""


class SignatureInvalid(PackageInvalid):
    """An OVA's .cert is malformed, or its signature does not match the manifest it signs."""


class SigningKeyInvalid(OvfError):
    """The signing key or certificate cannot sign an OVA: unreadable, a wrong or missing passphrase, not
    RSA of 2048 bits or more, outside its validity period, a chain out of order, or a key that is not the
    certificate's."""


class VmdkInvalid(ImageInvalid):
    """A stream-optimized VMDK breaks the format: cut short, corrupt grain data, tables pointing elsewhere."""
