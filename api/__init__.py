"""arcvsa's HTTP api: FastAPI routes over services; the only layer the web talks to."""

from importlib.metadata import version

# Read once: the installed version does not change while the process runs (a lookup scans sys.path).
VERSION = version("arcvsa")
