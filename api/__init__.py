"""arcvsa's HTTP api: FastAPI routes over services; the only layer the web talks to."""
