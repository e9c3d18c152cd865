"""The lab: local stand-ins for vCenter, ESXi and the SAN (DESIGN.md section 5)."""
