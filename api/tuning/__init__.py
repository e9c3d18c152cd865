"""Tuning: the profiles per pool type, the sizing calculator and the live ZFS module parameters."""
