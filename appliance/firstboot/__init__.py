"""First boot: read the OVF environment, validate it, and configure the appliance once.

Flow: source (guestinfo or CD-ROM) -> environment (ovf-env.xml parsed) -> model (validated against
the model derived from ovf/properties.yaml) -> plan (every file rendered in memory) -> apply
(atomic writes under a root directory, then the once-only marker). A refused environment writes
no configuration at all; the image's own DHCP network file keeps the appliance reachable.
"""
