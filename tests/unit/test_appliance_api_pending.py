"""The appliance client (provisioning.appliance_api) waits out a started appliance's 503 state_pending on
its reads, as the answer asks, and only there: a change is never sent twice, and a wait is bounded.

The appliance is the real api served over TLS (support.appliance_server) on a strict replay of the
``fleet`` recording; its published state is taken away and put back, as a start that has not yet
published one answers.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from fixtures.appliance import fleet_flows
from support.appliance_server import ApplianceServer, replayed_appliances

from provisioning import appliance_api
from provisioning.appliance_api import ApplianceApi
from provisioning.appliance_errors import ApplianceRequestRefused


def _unpublished(server: ApplianceServer) -> Path:
    """The published state moved aside (where it was, to put back)."""
    state: Path = server.app.state.settings.state_file
    state.rename(state.with_name("aside.json"))
    return state


def _client(server: ApplianceServer) -> ApplianceApi:
    api = ApplianceApi(server.endpoint, server.thumbprint, name="vsa-0")
    api.login(fleet_flows.PASSWORD)
    return api


def test_a_read_waits_until_the_state_is_published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(appliance_api, "PENDING_RETRY", 0.2)
    with replayed_appliances(tmp_path, 1, "fleet", fleet_flows.PASSWORD) as [(server, _)]:
        api = _client(server)
        state = _unpublished(server)
        publish = threading.Timer(1.0, state.with_name("aside.json").rename, (state,))
        started = time.monotonic()
        publish.start()
        try:
            status, _ = api.exchange("GET", "/api/storage/pools")
        finally:
            publish.join()
        assert status == 200 and time.monotonic() - started >= 1.0


def test_the_wait_is_bounded_and_a_change_is_not_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(appliance_api, "PENDING_RETRY", 0.2)
    monkeypatch.setattr(appliance_api, "PENDING_WAIT", 0.5)
    with replayed_appliances(tmp_path, 1, "fleet", fleet_flows.PASSWORD) as [(server, _)]:
        api = _client(server)
        _unpublished(server)
        started = time.monotonic()
        with pytest.raises(ApplianceRequestRefused, match="state_pending") as caught:
            api.call("GET", "/api/storage/pools")
        assert caught.value.status == 503 and 0.5 <= time.monotonic() - started < 5
        sent = []
        real = api._exchange

        def counted(method: str, path: str, body: object) -> tuple[int, object]:
            sent.append((method, path))
            return real(method, path, body)

        monkeypatch.setattr(api, "_exchange", counted)
        status, _ = api.exchange("POST", "/api/storage/pools/tank/scrub")
        assert sent == [("POST", "/api/storage/pools/tank/scrub")] and status != 200
