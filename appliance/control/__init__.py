"""Appliance control: pools, datasets, exports, iSCSI and metrics, driven through one subprocess gateway.

Every module builds argv lists from validated models, runs them through :mod:`appliance.control.gateway`
and parses machine output only (``-j --json-int`` from OpenZFS 2.3, ``-H -p`` or JSON otherwise).
"""
