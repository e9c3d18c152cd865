"""arcvsa's HTTP api: FastAPI routes over services; the only layer the web talks to."""

from importlib.metadata import version
from pathlib import Path

from appliance.upgrade import release

# Read once: the installed version does not change while the process runs (a lookup scans sys.path).
# On the appliance the code runs from /opt/arcvsa/releases/<version>/lib: the release's own record
# names the build (what an upgrade waits for); elsewhere it is the package's version.
_RELEASE = release.read(Path(__file__).resolve().parent.parent.parent)
VERSION = _RELEASE.version if _RELEASE is not None else version("arcvsa")
