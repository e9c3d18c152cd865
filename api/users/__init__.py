"""Local administrators: list, add, change a password, delete (never yourself, never the last one)."""
