"""sslyze (from PyPI, in its own venv: build/tools/sslyze) judging a TLS endpoint against Mozilla's
"intermediate" profile: what it accepted, and each way the endpoint falls short, in sslyze's words."""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SSLYZE = REPO / "build" / "tools" / "sslyze" / "bin" / "sslyze"
PROFILE = "intermediate"


@dataclass(frozen=True)
class Scan:
    """One sslyze run against one endpoint."""

    compliant: bool
    issues: list[str]  # "* check: reason" lines of the compliance section, empty when compliant
    versions: list[str]  # protocol versions with at least one accepted suite
    suites: list[str]  # accepted suites, every version
    curves: list[str]  # key exchange groups the endpoint accepted
    output: str


def scan(endpoint: str, ca_file: Path) -> Scan:
    """Scan ``host:port`` (``host:port{ip}`` connects to ip and validates for host); ``ca_file`` is the
    anchor its certificate should chain to (a self-signed one is its own)."""
    if not SSLYZE.exists():
        raise RuntimeError(f"{SSLYZE} is missing: `make {SSLYZE.relative_to(REPO)}` installs it")
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "scan.json"
        run = subprocess.run(
            [
                str(SSLYZE),
                f"--mozilla_config={PROFILE}",
                f"--certinfo_ca_file={ca_file}",
                f"--json_out={report}",
                endpoint,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if not report.exists():
            raise RuntimeError(f"sslyze wrote no report (exit {run.returncode}): {run.stderr[-2000:]}")
        result = json.loads(report.read_text(encoding="utf-8"))["server_scan_results"][0]
    if result["scan_status"] != "COMPLETED":
        raise RuntimeError(f"sslyze could not scan {endpoint}: {result.get('connectivity_error_trace')}")
    found = result["scan_result"]
    versions, suites = [], []
    for key, label in (
        ("ssl_2_0_cipher_suites", "SSLv2"),
        ("ssl_3_0_cipher_suites", "SSLv3"),
        ("tls_1_0_cipher_suites", "TLSv1.0"),
        ("tls_1_1_cipher_suites", "TLSv1.1"),
        ("tls_1_2_cipher_suites", "TLSv1.2"),
        ("tls_1_3_cipher_suites", "TLSv1.3"),
    ):
        accepted = [s["cipher_suite"]["name"] for s in found[key]["result"]["accepted_cipher_suites"]]
        if accepted:
            versions.append(label)
            suites.extend(accepted)
    curves = [c["name"] for c in found["elliptic_curves"]["result"]["supported_curves"] or []]
    section = run.stdout[run.stdout.find("COMPLIANCE AGAINST") :]
    issues = [line.strip() for line in section.splitlines() if line.strip().startswith("* ")]
    compliant = run.returncode == 0 and "OK - Compliant" in section
    return Scan(compliant, issues, versions, suites, curves, run.stdout)
