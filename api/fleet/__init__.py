"""The fleet as it is now: a deployment's objects in vCenter and its appliances' health, read-only."""
