"""Why a bundle is refused or an upgrade failed. The api maps these to 422 (the file) and 409 (the state)."""

from __future__ import annotations


class UpgradeError(Exception):
    """Base of every upgrade error."""


class BundleRefused(UpgradeError):
    """The file is not an upgrade this appliance may install; nothing was changed."""

    code = "bundle_refused"


class Malformed(BundleRefused):
    """Not an arcvsa upgrade bundle (wrong members, sizes, format or manifest)."""

    code = "bundle_malformed"


class Unsigned(BundleRefused):
    """The bundle carries no signature, or one made with a key this appliance does not trust."""

    code = "bundle_unsigned"


class Tampered(BundleRefused):
    """The signature holds for the manifest, but the payload is not the one it describes."""

    code = "bundle_tampered"


class NotNewer(BundleRefused):
    """The bundle is this release or an older one (a rollback is its own action)."""

    code = "bundle_not_newer"


class Incompatible(BundleRefused):
    """The bundle needs another base system (OS packages) than this image has: deploy the new OVA and
    restore a configuration backup instead."""

    code = "bundle_incompatible"


class Busy(UpgradeError):
    """An upgrade is running already, or nothing is staged to apply."""


class UpgradeFailed(UpgradeError):
    """The new release was installed but did not come up; the previous one is serving again."""
