"""The Grafana dashboard (ops/grafana/arcvsa-fleet.json): importable by Grafana 10+, its data source a
variable, every query filtered by the instance variable, parsed by promtool (as recording rules), and
asking only for metrics the exposition has."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fixtures.appliance.replay import ReplayRunner
from test_prometheus_api import appliance as appliance  # the fixture, reused here
from test_prometheus_api import parse

from api.alerts.schemas import Alert
from api.metrics.schemas import Sample
from api.prometheus.collect import alert_families
from api.prometheus.exposition import render

DASHBOARD = Path(__file__).resolve().parents[2] / "ops" / "grafana" / "arcvsa-fleet.json"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
_METRIC = re.compile(r"\barcvsa_[a-z0-9_]+")


def _dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def _panels() -> list[dict[str, Any]]:
    return [p for p in _dashboard()["panels"] if p["type"] != "row"]


def _exprs() -> list[str]:
    return [t["expr"] for p in _panels() for t in p["targets"]]


def test_grafana_10_imports_it() -> None:
    board = _dashboard()
    assert board["uid"] == "arcvsa-fleet" and board["title"] and board["schemaVersion"] >= 38
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    )
    instance = variables["instance"]
    assert instance["datasource"] == DATASOURCE and instance["multi"] and instance["includeAll"]
    assert "label_values(arcvsa_build_info, instance)" in instance["query"]["query"]
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in _panels():  # no data source named by uid: whoever imports it picks theirs
        assert panel["datasource"] == DATASOURCE, panel["title"]
        assert panel["targets"] and all(t["datasource"] == DATASOURCE for t in panel["targets"]), panel[
            "title"
        ]


def test_it_shows_what_the_issue_asks_for() -> None:
    titles = {p["title"] for p in _panels()}
    wanted = {"ARC hit ratio", "Read offload", "Write offload", "LUN read latency", "LUN write latency"}
    assert wanted | {"Pool capacity used", "Pool health", "Active alerts"} <= titles


def test_every_query_is_filtered_by_the_instance_variable() -> None:
    for expr in _exprs():
        for found in _METRIC.finditer(expr):
            selector = expr[found.end() :]
            assert selector.startswith("{") and 'instance=~"$instance"' in selector.split("}", 1)[0], expr


def test_every_query_parses(tmp_path: Path) -> None:
    """promtool checks recording rules' expressions with Prometheus' own parser."""
    tool = shutil.which("promtool")
    assert tool, "promtool not installed: make setup installs Debian's prometheus package (mk/ops.mk)"
    rules = [
        {
            "record": f"arcvsa:panel_{i}",
            "expr": e.replace("$__rate_interval", "1m").replace("$instance", ".*"),
        }
        for i, e in enumerate(_exprs())
    ]
    path = tmp_path / "rules.yml"
    path.write_text(json.dumps({"groups": [{"name": "dashboard", "rules": rules}]}), encoding="utf-8")
    done = subprocess.run([tool, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(rules)} rules found" in done.stdout


def test_it_asks_only_for_metrics_the_appliance_exposes(
    appliance: tuple[TestClient, ReplayRunner, Sample],
) -> None:
    client, _, _ = appliance
    scraped = {name for name, _ in parse(client.get("/api/metrics/prometheus").text)}
    alert = Alert(key="pool/tank/degraded", severity="warning", subject="pool tank", message="m")
    scraped |= {name for name, _ in parse(render(alert_families([alert])))}  # a healthy pool raises none
    asked = {m for expr in _exprs() for m in _METRIC.findall(expr)}
    assert asked - scraped == set()
    assert {"arcvsa_arc_hits_total", "arcvsa_lun_read_time_seconds_total", "arcvsa_alert_active"} <= asked
