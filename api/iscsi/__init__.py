"""iSCSI targets (LIO) on zvols: thin over appliance.control.lio, which reads and writes configfs."""
