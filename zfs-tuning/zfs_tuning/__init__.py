"""VDI tuning for OpenZFS: profiles per desktop-pool type (data) and a pure sizing calculator.

Pure: no I/O but reading the packaged profiles, so the api (plans, the wizard's "why") and the appliance
(applying them) share one source.
"""
