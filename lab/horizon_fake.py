"""A fake Horizon Connection Server: HTTPS on 127.0.0.1, stateful, and strict about the published schema.

Every request is matched to an operation of the Horizon Server API OpenAPI document; a path or method the
document does not have is 404, a body that does not conform to the operation's request schema is 400
with the schema errors, and each refusal is kept in `refused` so a test can prove what was caught.
Beyond the schema it keeps what a real server would: logins and bearer tokens, the vCenters it knows,
desktop pools with unique names (409 on a duplicate), the machines of manual pools (add-machines,
remove-machines).
"""

from __future__ import annotations

import gzip
import json
import secrets
import threading
import uuid
from email.message import Message
from pathlib import Path
from typing import Any

from lab.json_https import JsonHttpsServer
from lab.openapi_check import OpenApiChecker

# The published schema, vendored (CC BY 4.0, see lab/specs/README.md) so a fresh machine has it.
SPEC = Path(__file__).resolve().parent / "specs" / "horizon-server-2512.openapi.json.gz"
PREFIX = "/rest"
OPEN = {("POST", "/login"), ("POST", "/refresh"), ("POST", "/logout")}


class FakeConnectionServer(JsonHttpsServer):
    def __init__(
        self,
        folder: Path,
        *,
        spec: Path = SPEC,
        username: str = "admin",
        password: str = "",
        domain: str = "lab",
    ) -> None:
        self.checker = OpenApiChecker(json.loads(gzip.decompress(spec.read_bytes())))
        self.credentials = (username, password or secrets.token_hex(8), domain)
        self.vcenters: list[dict[str, Any]] = []
        self.pools: dict[str, dict[str, Any]] = {}
        self.tokens: set[str] = set()
        self.requests: list[tuple[str, str]] = []
        self.refused: list[tuple[str, str, list[str]]] = []
        self._lock = threading.Lock()
        super().__init__(folder, self._route)

    def _route(self, method: str, target: str, headers: Message, raw: bytes) -> tuple[int, Any]:
        auth = headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return 400, {"error": "body is not JSON"}
        return self.handle(method, target.partition("?")[0], token, body)

    @property
    def password(self) -> str:
        return self.credentials[1]

    def add_vcenter(self, server_name: str) -> str:
        vc_id = str(uuid.uuid4())
        self.vcenters.append({"id": vc_id, "server_name": server_name, "port": 443, "enabled": True})
        return vc_id

    def handle(self, method: str, path: str, token: str | None, body: Any) -> tuple[int, Any]:
        """(status, JSON answer) for one request; the whole server logic, apart from HTTP."""
        with self._lock:
            self.requests.append((method, path))
            if not path.startswith(PREFIX + "/"):
                return 404, {"error": "not under /rest"}
            api_path = path[len(PREFIX) :]
            found = self.checker.operation(method, api_path)
            if found is None:
                return 404, {"error": f"{method} {api_path} is not in the Horizon API"}
            template, op = found
            problems = self._check_body(op, body)
            if problems:
                self.refused.append((method, api_path, problems))
                return 400, {"error_messages": problems}
            if (method, api_path) not in OPEN and token not in self.tokens:
                return 401, {"error": "User is not authenticated"}
            return self._answer(method, template, api_path, body)

    def _check_body(self, op: dict[str, Any], body: Any) -> list[str]:
        request = op.get("requestBody")
        if request is None:
            return [] if body is None else ["this operation takes no body"]
        if body is None:
            return ["a body is required"] if request.get("required") else []
        schema = request["content"]["application/json"]["schema"]
        return self.checker.errors(schema, body)

    def _answer(self, method: str, template: str, path: str, body: Any) -> tuple[int, Any]:
        if template == "/login":
            user, password, domain = self.credentials
            if (body["username"], "".join(body["password"]), body["domain"]) != (user, password, domain):
                return 401, {"error": "invalid credentials"}
            token = secrets.token_hex(16)
            self.tokens.add(token)
            return 200, {"access_token": token, "refresh_token": "r-" + token}
        if template == "/logout":
            self.tokens.discard(body["refresh_token"].removeprefix("r-"))
            return 200, None
        if template == "/config/v2/virtual-centers":
            return 200, self.vcenters
        if template.endswith("/desktop-pools") and method == "GET":
            return 200, list(self.pools.values())
        if template.endswith("/desktop-pools") and method == "POST":
            if any(p["name"] == body["name"] for p in self.pools.values()):
                return 409, {"error": f"desktop pool {body['name']} exists"}
            if body.get("vcenter_id") not in {v["id"] for v in self.vcenters}:
                return 400, {"error": "unknown vcenter_id"}
            pool_id = str(uuid.uuid4())
            self.pools[pool_id] = {"id": pool_id, **body}
            return 201, None
        if template.endswith("/desktop-pools/{id}/action/add-machines"):
            pool = self.pools.get(path.split("/")[-3])
            if pool is None:
                return 404, {"error": "no such desktop pool"}
            if pool.get("type") != "MANUAL":
                return 400, {"error": "machines are added by hand to manual pools only"}
            known = set(pool.setdefault("machines", []))
            pool["machines"] += [m for m in body if m not in known]
            return 200, [{"id": m, "status_code": 200} for m in body]
        if template.endswith("/desktop-pools/{id}/action/remove-machines"):
            pool = self.pools.get(path.split("/")[-3])
            if pool is None:
                return 404, {"error": "no such desktop pool"}
            if pool.get("type") != "MANUAL":
                return 400, {"error": "machines are removed by hand from manual pools only"}
            there = set(pool.setdefault("machines", []))
            pool["machines"] = [m for m in pool["machines"] if m not in set(body)]
            return 200, [
                {"id": m, "status_code": 200}
                if m in there
                else {"id": m, "status_code": 404, "error_messages": ["machine is not in the pool"]}
                for m in body
            ]
        if template.endswith("/desktop-pools/{id}") and method == "DELETE":
            return (204, None) if self.pools.pop(path.rsplit("/", 1)[-1], None) else (404, None)
        return 501, {"error": f"the fake does not implement {method} {template}"}
