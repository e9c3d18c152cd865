"""vCenter connections: add (after a successful login), test, list, delete; read their inventory."""
