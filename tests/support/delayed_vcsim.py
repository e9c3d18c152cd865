"""A lab vCenter whose tasks take as long as real ones: vcsim's -method-delay, named by task name."""

from __future__ import annotations

from pathlib import Path

from lab.vcsim import Vcsim


class DelayedVcsim(Vcsim):
    """vcsim whose tasks of the given names take the given milliseconds (e.g. {"PowerOn": 60000})."""

    def __init__(self, delays: dict[str, int], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.delays = delays

    def argv(self, binary: str, password_file: Path, tls_cert: str, tls_key: str) -> list[str]:
        # LockHandoff:0 lets the PropertyCollector read the VM while its task waits out the delay
        spec = ",".join(f"{name}:{ms}" for name, ms in {**self.delays, "LockHandoff": 0}.items())
        return [*super().argv(binary, password_file, tls_cert, tls_key), "-method-delay", spec]
