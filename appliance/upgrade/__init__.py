"""In-place upgrades: a signed bundle of the project's payload, installed beside the running release and
switched to atomically, with the database kept and a rollback when the new release does not come up."""
