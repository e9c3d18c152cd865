"""Alerts: what needs an admin's attention now, derived from the appliance's state on each read."""
