"""In-place upgrades: upload a signed bundle, see what it would install, apply it (appliance/upgrade)."""
