"""Encryption of stored secrets (vCenter passwords) with a key file that never enters the database."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from appliance.control.files import owned_like_folder


class SecretBox:
    def __init__(self, key_file: Path) -> None:
        self._fernet = Fernet(self._load_or_create(key_file))

    @staticmethod
    def _load_or_create(path: Path) -> bytes:
        try:
            key = path.read_bytes().strip()
            if key:
                return key
            # Empty: written without an fsync, then a power cut. Nothing can have been sealed with a key
            # that never reached the disk: make one.
            path.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
        path.parent.mkdir(parents=True, exist_ok=True)
        key = Fernet.generate_key()
        # Written whole and fsynced under a temporary name, then linked into place: a power cut leaves
        # no key file or the complete one (never an empty file the api cannot start with), and link()
        # fails like O_EXCL when another process starting at once put its key there first.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                owned_like_folder(f.fileno(), path.parent)  # made by the control service (root): the api's
                f.write(key)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)
            except FileExistsError:
                return path.read_bytes().strip()
        finally:
            tmp.unlink(missing_ok=True)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return key

    def seal(self, plain: str) -> bytes:
        return self._fernet.encrypt(plain.encode())

    def open(self, sealed: bytes) -> str:
        try:
            return self._fernet.decrypt(sealed).decode()
        except InvalidToken as exc:
            raise RuntimeError("stored secret cannot be decrypted: the key file changed") from exc
