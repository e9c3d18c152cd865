"""Schemathesis against the api's own OpenAPI, logged in, on the recorded appliance answers.

Every operation the app documents gets generated requests, valid (positive) and invalid (negative), with
a real bearer token. A 5xx fails the run, except the api's typed gateway error for a storage command no
recording answers (what the api says on a machine without that tool) or for a recorded tool failure the
replay gave back out of order, which is counted apart: the api reporting its tools, typed and documented. Every answer
is checked against the schema: its status code is documented, its body and headers conform, its content
type is the documented one. ARCVSA_FUZZ_EXAMPLES sets the examples per operation and mode.
"""

from __future__ import annotations

import os
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.result import Err
from support.security_kit import Api, Tally

from api.openapi import document

EXAMPLES = int(os.environ.get("ARCVSA_FUZZ_EXAMPLES", "25"))
SCHEMA = schemathesis.openapi.from_dict(document())


def _operations() -> list[schemathesis.APIOperation]:
    """Every operation; one the loader cannot read fails the run instead of being skipped."""
    out = []
    for result in SCHEMA.get_all_operations():
        if isinstance(result, Err):
            raise result.err()
        out.append(result.ok())
    return out


OPERATIONS = _operations()
CONFORMANCE = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# The api's typed answers for what a storage tool said: failed, missing (a command no recording answers),
# its service down, or timed out. Replayed out of their recorded order, failures come back too.
TOOL_FAULTS = {502: "system_fault", 503: "service_down", 504: "command_timeout"}


def _send(api: Api, case: schemathesis.Case) -> httpx.Response:
    """The generated request, sent through the app's test client with the session's token."""
    kw = case.as_transport_kwargs(base_url="https://testserver", headers=api.auth)
    headers = {k: v for k, v in kw["headers"].items() if k.lower() not in ("connection", "accept-encoding")}
    body: dict[str, Any] = {}
    if "json" in kw:
        body["json"] = kw["json"]
    elif kw.get("data") is not None:
        data = kw["data"]
        body["content"] = data.encode() if isinstance(data, str) else data
    return api.client.request(
        kw["method"], kw["url"], params=kw.get("params") or None, headers=headers, **body
    )


def _tool_fault(response: httpx.Response, calls_before: int, api: Api) -> bool:
    """A typed answer for a tool's fault, and a tool did run (or was missing) for this request."""
    try:
        code = response.json().get("code")
    except ValueError:
        return False
    return TOOL_FAULTS.get(response.status_code) == code and len(api.runner.calls) > calls_before


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_every_operation_answers_within_its_schema(
    operation: schemathesis.APIOperation, api: Api, tally: Tally
) -> None:
    failures: list[str] = []
    label = f"{operation.method.upper()} {operation.path}"
    strategy = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def one(case: schemathesis.Case) -> None:
        calls, misses = len(api.runner.calls), len(api.runner.misses)
        response = _send(api, case)
        tally.add("fuzz", cases=1)
        checks = list(CONFORMANCE)
        if response.status_code >= 500 and _tool_fault(response, calls, api):
            missed = len(api.runner.misses) > misses
            tally.add("fuzz", tool_faults=1, tool_faults_unrecorded=int(missed))
        else:
            checks.append(not_a_server_error)
            if response.status_code >= 500:
                tally.add("fuzz", server_errors=1)
                tally.note("fuzz", "server_error_examples", f"{label} → {response.status_code}")
        try:
            case.validate_response(response, checks=checks)
        except AssertionError as exc:  # a check failed (schemathesis's Failure / FailureGroup)
            if response.status_code < 500:
                tally.add("fuzz", schema_violations=1)
                tally.note(
                    "fuzz", "violation_examples", f"{label} → {response.status_code}: {str(exc)[:300]}"
                )
            failures.append(f"{response.status_code}: {exc}")

    tally.add("fuzz", operations=1)
    one()
    assert not failures, f"{label}: {len(failures)} failing cases; first: {failures[0]}"
