"""The one way the project runs external tools (see process.runner); every other package may use it,
and it imports none of them."""

from process.errors import ProcessAborted, ProcessError, ProcessFailed, ProcessTimeout, ToolNotFound
from process.runner import Completed, Line, check_argv, mask, run, stream

__all__ = [
    "Completed",
    "Line",
    "ProcessAborted",
    "ProcessError",
    "ProcessFailed",
    "ProcessTimeout",
    "ToolNotFound",
    "check_argv",
    "mask",
    "run",
    "stream",
]
