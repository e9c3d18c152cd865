"""The security suite's table: `python -m security.report [--dir var/security] [--lab required|optional]`.

Reads what the runs measured (unit.json from tests/security, lab.json from tests/lab/security), prints
one table, writes security.json beside them, and exits non-zero when a figure is wrong or a part did not
run. Every figure is copied from those files; none is a constant here.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Row:
    what: str
    value: str
    ok: bool


def _load(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def load_unit(folder: Path) -> dict[str, Any] | None:
    """tests/security's figures: unit.json, or one unit-<worker>.json per pytest-xdist worker merged
    (counts added, examples listed once each, failed tests added); None when there is none."""
    parts = [d for p in sorted(folder.glob("unit*.json")) if (d := _load(p)) is not None]
    if not parts:
        return None
    merged: dict[str, Any] = {"tests_failed": 0, "sections": {}}
    for part in parts:
        failed = part.get("tests_failed")
        merged["tests_failed"] = (
            None if failed is None or merged["tests_failed"] is None else merged["tests_failed"] + failed
        )
        for name, figures in part.get("sections", {}).items():
            into = merged["sections"].setdefault(name, {})
            for key, value in figures.items():
                if isinstance(value, list):
                    into[key] = into.get(key, []) + [v for v in value if v not in into.get(key, [])]
                else:
                    into[key] = int(into.get(key, 0)) + int(value)
    return merged


def _int(section: dict[str, Any], key: str) -> int:
    return int(section.get(key, 0))


def rows(unit: dict[str, Any] | None, lab: dict[str, Any] | None, lab_required: bool) -> list[Row]:
    """The table's rows; a missing part is a failing row of its own."""
    out: list[Row] = []
    if unit is None:
        return [Row("unit-level security run (tests/security)", "did not run", False)]
    s = unit.get("sections", {})
    fuzz, authz, inj = s.get("fuzz", {}), s.get("authz", {}), s.get("injection", {})
    secrets, throttle, pw = s.get("secrets", {}), s.get("throttle", {}), s.get("passwords", {})
    cases = _int(fuzz, "cases")
    out.append(
        Row(
            "fuzz cases run (schemathesis, logged in)",
            f"{cases} on {_int(fuzz, 'operations')} operations",
            cases > 0,
        )
    )
    out.append(
        Row(
            "5xx (faults of the api itself)",
            str(_int(fuzz, "server_errors")),
            cases > 0 and _int(fuzz, "server_errors") == 0,
        )
    )
    out.append(
        Row(
            "schema violations (status, body, headers, type)",
            str(_int(fuzz, "schema_violations")),
            cases > 0 and _int(fuzz, "schema_violations") == 0,
        )
    )
    faults = f"{_int(fuzz, 'tool_faults')} ({_int(fuzz, 'tool_faults_unrecorded')} for commands no recording answers)"
    out.append(Row("  typed 502/503/504 reporting a tool's fault (not counted as 5xx)", faults, True))
    tries = _int(authz, "attempts")
    out.append(
        Row(
            "wrongly-authorised calls (routes x ways)",
            f"{tries} on {_int(authz, 'routes')} routes",
            tries > 0,
        )
    )
    out.append(
        Row(
            "unauthorised accesses",
            str(_int(authz, "unauthorised_accesses")),
            tries > 0 and _int(authz, "unauthorised_accesses") == 0,
        )
    )
    attempts, refused = _int(inj, "attempts"), _int(inj, "refused_no_command")
    out.append(
        Row(
            "injection attempts → 422 with no command run",
            f"{refused} / {attempts} ({_int(inj, 'fields')} fields, {_int(inj, 'operations')} operations)",
            attempts > 0 and refused == attempts,
        )
    )
    limits = {k: v for k, v in throttle.items() if k.endswith("_429_after")}
    out.append(
        Row(
            "login rate limit (wrong passwords before 429)",
            ", ".join(f"{k[:-10]} {v}" for k, v in sorted(limits.items())) or "not run",
            bool(limits) and all(int(v) > 0 for v in limits.values()),
        )
    )
    out.append(
        Row(
            "password hashes argon2id",
            f"{_int(pw, 'argon2id')} / {_int(pw, 'users')}",
            _int(pw, "users") > 0 and _int(pw, "argon2id") == _int(pw, "users"),
        )
    )
    searched = _int(secrets, "searched")
    out.append(
        Row(
            "secrets found in logs/DB",
            f"{_int(secrets, 'found')} ({searched} secrets, {_int(secrets, 'stores')} stores, {_int(secrets, 'log_lines')} log lines)",
            searched > 0 and _int(secrets, "found") == 0,
        )
    )
    tls = s.get("tls", {})
    issues = "; ".join(tls.get("issues", []))
    out.append(
        Row(
            "TLS against Mozilla intermediate (sslyze)",
            f"{_int(tls, 'compliant')} / {_int(tls, 'scans')} compliant, {_int(tls, 'suites')} suites"
            + (f": {issues}" if issues else ""),
            _int(tls, "scans") > 0 and _int(tls, "compliant") == _int(tls, "scans"),
        )
    )
    out.append(
        Row("unit-level tests failed", str(unit.get("tests_failed", "?")), unit.get("tests_failed") == 0)
    )
    if lab is None:
        out.append(
            Row(
                "lab checks passed (TLS, firewall, NFS host list, iSCSI CHAP, guest journal, kernel)",
                "not run",
                not lab_required,
            )
        )
    else:
        checks = lab.get("checks", {})
        passed = [name for name, c in checks.items() if c.get("passed")]
        out.append(
            Row(
                "lab checks passed (TLS, firewall, NFS host list, iSCSI CHAP, guest journal, kernel)",
                f"{len(passed)} / {len(checks)}",
                bool(checks) and len(passed) == len(checks) and len(checks) >= LAB_CHECKS,
            )
        )
        out.extend(
            Row(
                f"  {name}",
                "passed" if c.get("passed") else f"FAILED: {c.get('seen')}",
                bool(c.get("passed")),
            )
            for name, c in sorted(checks.items())
        )
    return out


LAB_CHECKS = 26  # tests/lab/security records twenty-six checks when every test ran


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m security.report")
    parser.add_argument("--dir", type=Path, default=Path("var/security"))
    parser.add_argument("--lab", choices=("required", "optional"), default="required")
    args = parser.parse_args(argv)
    unit, lab = load_unit(args.dir), _load(args.dir / "lab.json")
    table = rows(unit, lab, args.lab == "required")
    width = max(len(r.what) for r in table)
    print(f"{'security (issue 8)':<{width}}  figure")
    for r in table:
        print(f"{r.what:<{width}}  {r.value}{'' if r.ok else '   <-- FAIL'}")
    ok = all(r.ok for r in table)
    print("security: green" if ok else "security: FAILED")
    doc = {
        "ok": ok,
        "rows": [{"what": r.what.strip(), "value": r.value, "ok": r.ok} for r in table],
        "unit": unit,
        "lab": lab,
    }
    args.dir.mkdir(parents=True, exist_ok=True)
    (args.dir / "security.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
