"""systemctl and systemd-run for the firewall's commands, on a host without systemd (CI, this tier).

It answers the few argv the firewall and the SSH switches send, as systemd 257 in the appliance answers
them (exit codes and words as the lab VM gave them), keeps what they change (sshd running, the rollback
timer armed), and fails the test on any other argv. Like ssh.service, a start does nothing while
Debian's switch file (appliance.control.sshd.OFF_FILE) is there. :meth:`fire` is the timer going off: it
runs the command systemd-run was given, through the same runner the firewall uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from appliance.control import firewall, sshd
from appliance.control.files import Files
from appliance.control.gateway import Result, Runner

ROLLBACK = [f"{firewall.ROLLBACK_UNIT}.timer", f"{firewall.ROLLBACK_UNIT}.service"]


class SystemdStandIn:
    def __init__(self, files: Files, ssh_on: bool = False) -> None:
        self.files = files
        self.sshd_running = False
        self.sshd_reloads = 0  # reloads while running: sshd read its settings again
        self.ssh_on = ssh_on  # as the sealed image (off) or first boot given a key (on) left it
        self.armed: list[str] | None = None  # the command the armed timer runs
        self.calls: list[list[str]] = []
        self.runner: Runner | None = None  # set by the test: who runs the fired command (nft)

    def execute(self, argv: Sequence[str], *, timeout: float, input_text: str | None = None) -> Result:
        wanted = list(argv)
        self.calls.append(wanted)
        if wanted == ["systemctl", "start", sshd.UNIT]:  # skipped, still exit 0, with the file there
            self.sshd_running = self.files.read(sshd.OFF_FILE) is None
            return self._answer(wanted, 0)
        if wanted == ["systemctl", "stop", sshd.UNIT]:
            self.sshd_running = False
            return self._answer(wanted, 0)
        if wanted == ["systemctl", "try-reload-or-restart", sshd.UNIT]:  # exit 0 and silent, running or not
            self.sshd_reloads += self.sshd_running
            return self._answer(wanted, 0)
        if wanted == ["systemctl", "stop", *ROLLBACK]:
            if self.armed is None:
                said = "".join(f"Failed to stop {unit}: Unit {unit} not loaded.\n" for unit in ROLLBACK)
                return self._answer(wanted, 5, stderr=said)
            self.armed = None  # the timer stops; its service, never started, is not loaded
            said = f"Failed to stop {ROLLBACK[1]}: Unit {ROLLBACK[1]} not loaded.\n"
            return self._answer(wanted, 5, stderr=said)
        if wanted == ["systemctl", "reset-failed", *ROLLBACK]:
            return self._answer(
                wanted,
                1,
                stderr="".join(
                    f"Failed to reset failed state of unit {u}: Unit {u} not loaded.\n" for u in ROLLBACK
                ),
            )
        if wanted[:2] == ["systemd-run", f"--unit={firewall.ROLLBACK_UNIT}"] and wanted[-3:] == [
            "nft",
            "-f",
            firewall.RULES_FILE,
        ]:
            if self.armed is not None:
                return self._answer(
                    wanted,
                    1,
                    stderr=f"Failed to start transient timer unit: Unit {ROLLBACK[0]} was already loaded or has a fragment file.\n",
                )
            self.armed = wanted[-3:]
            said = f"Running timer as unit: {ROLLBACK[0]}\nWill run service as unit: {ROLLBACK[1]}\n"
            return self._answer(wanted, 0, stderr=said)
        raise AssertionError(f"unexpected command {wanted}")

    @property
    def ssh_on(self) -> bool:
        """No switch file and sshd running."""
        return self.files.read(sshd.OFF_FILE) is None and self.sshd_running

    @ssh_on.setter
    def ssh_on(self, on: bool) -> None:
        if on:
            self.files.remove(sshd.OFF_FILE)
        else:
            self.files.write(sshd.OFF_FILE, sshd.OFF_TEXT)
        self.sshd_running = on

    def fire(self) -> None:
        """The rollback timer goes off: nft loads the boot file (nothing happens when none is armed)."""
        if self.armed is None:
            return
        text = self.files.read(firewall.RULES_FILE)
        assert text is not None, "the rollback loads a boot file that is not there"
        assert self.runner is not None
        self.runner.execute(["nft", "-f", "/dev/stdin"], timeout=30, input_text=text)
        self.armed = None

    @staticmethod
    def _answer(argv: list[str], code: int, stdout: str = "", stderr: str = "") -> Result:
        return Result(tuple(argv), code, stdout, stderr)
