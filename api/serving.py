"""How the api is served: uvicorn over TLS with the api's own server context (api.tls)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import uvicorn

from api.tls import server_context


def config(app: Any, host: str, port: int, cert: Path, key: Path, **options: Any) -> uvicorn.Config:
    """uvicorn's settings for ``app`` on ``host:port``; ``options`` adds to them (log level, lifespan)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        ssl_certfile=cert,
        ssl_context_factory=lambda _config, _default: server_context(cert, key),
        # Health says what an anonymous caller may know; a banner naming the server would say more.
        server_header=False,
        **options,
    )
