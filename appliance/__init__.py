"""What runs on the appliance box: first boot, and (later) storage control."""
