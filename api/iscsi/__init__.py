"""iSCSI targets (LIO) on zvols: thin over appliance.control.iscsi; LIO's saved config is the state."""
