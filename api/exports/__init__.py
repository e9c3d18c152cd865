"""NFS exports of datastores: the desired set in SQLite, reconciled to the appliance's one NFS backend."""
