"""vSphere provisioning through pyVmomi: sessions, inventory, and (later) plan/apply."""
