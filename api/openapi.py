"""Write the api's OpenAPI document: `python -m api.openapi [FILE]` (the committed api/openapi.json)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from api.app import create_app
from api.settings import Settings


def document() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        return create_app(Settings(data_dir=Path(tmp))).openapi()


def main() -> None:
    text = json.dumps(document(), indent=2, sort_keys=True) + "\n"
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
