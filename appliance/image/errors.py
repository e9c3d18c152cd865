"""The image build's own error: a step whose result is wrong (a tool that fails raises process.ProcessError)."""

from __future__ import annotations


class BuildError(RuntimeError):
    """A build step failed; the message says which and where to look."""
