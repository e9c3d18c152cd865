"""One file of the built web app: its gzip twin when the build made one and the browser takes gzip,
and hashed assets cached for good (their names change with their content)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

from fastapi.responses import FileResponse

IMMUTABLE = "public, max-age=31536000, immutable"


def _takes_gzip(accept_encoding: str) -> bool:
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() == "gzip":
            return params.replace(" ", "") not in {"q=0", "q=0.0", "q=0.00", "q=0.000"}
    return False


def response(target: Path, accept_encoding: str) -> FileResponse:
    """`target` is a file inside the web root (the caller checked)."""
    headers = {"Vary": "Accept-Encoding"}
    if target.parent.name == "assets":  # web/dist/assets/<name>-<hash>.<ext> (Vite)
        headers["Cache-Control"] = IMMUTABLE
    twin = target.with_name(target.name + ".gz")
    if _takes_gzip(accept_encoding) and twin.is_file():
        media_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return FileResponse(twin, media_type=media_type, headers={**headers, "Content-Encoding": "gzip"})
    return FileResponse(target, headers=headers)
