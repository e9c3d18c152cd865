"""Login rate limiting: failed attempts per (client, user) in a sliding window."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque


class LoginThrottle:
    def __init__(self, attempts: int, window_seconds: float) -> None:
        self._attempts = attempts
        self._window = window_seconds
        self._failures: dict[tuple[str, str], deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def retry_after(self, client: str, username: str) -> float:
        """Seconds until the next attempt is allowed; 0 when it is allowed now."""
        now = time.monotonic()
        with self._lock:
            q = self._failures.get((client, username))
            if not q:
                return 0.0
            while q and now - q[0] > self._window:
                q.popleft()
            if len(q) < self._attempts:
                return 0.0
            return self._window - (now - q[0])

    def failed(self, client: str, username: str) -> None:
        with self._lock:
            self._failures[(client, username)].append(time.monotonic())

    def succeeded(self, client: str, username: str) -> None:
        with self._lock:
            self._failures.pop((client, username), None)
