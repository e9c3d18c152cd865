"""Encryption of stored secrets (vCenter passwords) with a key file that never enters the database."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken


class SecretBox:
    def __init__(self, key_file: Path) -> None:
        self._fernet = Fernet(self._load_or_create(key_file))

    @staticmethod
    def _load_or_create(path: Path) -> bytes:
        try:
            return path.read_bytes().strip()
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        key = Fernet.generate_key()
        # O_EXCL: two processes starting at once must not each write their own key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_bytes().strip()
        with os.fdopen(fd, "wb") as f:
            f.write(key)
        return key

    def seal(self, plain: str) -> bytes:
        return self._fernet.encrypt(plain.encode())

    def open(self, sealed: bytes) -> str:
        try:
            return self._fernet.decrypt(sealed).decode()
        except InvalidToken as exc:
            raise RuntimeError("stored secret cannot be decrypted: the key file changed") from exc
