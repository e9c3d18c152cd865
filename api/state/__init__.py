"""The published state snapshot: actual state as the poller last observed it, which every read answers from."""
