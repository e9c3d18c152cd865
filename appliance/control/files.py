"""Config files the control package owns: written only when changed, atomically (temp file + rename).

``root`` lets tests (and the image build) write under another directory than /.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Protocol


class Files(Protocol):
    """What the control package needs of a file system."""

    def read(self, path: str) -> str | None: ...

    def write(self, path: str, text: str, mode: int = 0o644) -> bool: ...

    def poke(self, path: str, text: str) -> None: ...

    def remove(self, path: str) -> bool: ...

    def listdir(self, path: str) -> list[str]: ...


class LocalFiles:
    """Files on this machine (below ``root``)."""

    def __init__(self, root: Path | str = "/") -> None:
        self.root = Path(root)

    def _at(self, path: str) -> Path:
        if not path.startswith("/") or ".." in Path(path).parts:
            raise ValueError(f"need an absolute path without '..': {path!r}")
        return self.root / path.lstrip("/")

    def read(self, path: str) -> str | None:
        """The file's text, or None when it does not exist."""
        try:
            return self._at(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def write(self, path: str, text: str, mode: int = 0o644) -> bool:
        """Write atomically unless the content is already there; True when it changed."""
        if self.read(path) == text:
            return False
        target = self._at(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return True

    def poke(self, path: str, text: str) -> None:
        """Write in place, no temp file: sysfs and procfs take a value only by a write to the file itself."""
        with self._at(path).open("w", encoding="utf-8") as handle:
            handle.write(text)

    def remove(self, path: str) -> bool:
        """Delete the file; True when it existed."""
        try:
            self._at(path).unlink()
        except FileNotFoundError:
            return False
        return True

    def listdir(self, path: str) -> list[str]:
        """File names in a folder (empty when it does not exist)."""
        folder = self._at(path)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
