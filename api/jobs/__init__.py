"""Jobs: every apply and destroy runs as a job, persisted with its progress events, cancellable, resumed
after an api restart."""
