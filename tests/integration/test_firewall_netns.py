"""The firewall's rule set as the kernel applies it: nft in a network namespace, probed from another.

One address per role on the client's network: the administrator's workstation, an NFSv3 host, an
NFSv4.1 host, and a stranger listed nowhere. Each probe is a real TCP connect (or UDP datagram) to a
listener on the port in the server namespace: ``open`` means the rule set let it through.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import netns

from appliance.control import firewall
from appliance.control.errors import CommandFailed
from appliance.control.files import LocalFiles
from appliance.control.gateway import Gateway

ADMIN, NFS3_HOST, NFS4_HOST, STRANGER = "10.99.0.2", "10.99.0.3", "10.99.0.4", "10.99.0.5"
SOURCES = (ADMIN, NFS3_HOST, NFS4_HOST, STRANGER)
CLOSED = "reset"  # TCP to a port not let in: refused at once, not left to time out


@pytest.fixture(scope="module")
def link() -> Iterator[netns.Pair]:
    try:
        with netns.pair(SOURCES) as made:
            yield made
    except netns.Unavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def fresh(link: netns.Pair) -> netns.Pair:
    """No rule set in the server namespace (each test loads its own)."""
    netns.ip("netns", "exec", link.server, netns.NFT, "flush", "ruleset")
    return link


def gateway(link: netns.Pair) -> tuple[Gateway, netns.NftRunner]:
    runner = netns.NftRunner(link.server)
    return Gateway(runner), runner


def rules(**changes: object) -> firewall.Rules:
    base = firewall.Rules(
        management=[ipaddress.ip_network(f"{ADMIN}/32")],
        ssh=False,
        nfs3=[ipaddress.ip_address(NFS3_HOST)],
        nfs4=[ipaddress.ip_address(NFS4_HOST)],
        iscsi=[ipaddress.ip_network("10.99.0.0/31")],  # .0 and .1: no client of ours
    )
    return base.model_copy(update=changes)


def opened(matrix: dict[str, dict[str, str]], source: str) -> list[str]:
    return sorted(k for k, v in matrix[source].items() if v == "open")


def test_without_a_rule_set_everything_answers(fresh: netns.Pair) -> None:
    # The probe itself: every port open from every source before anything is loaded.
    matrix = fresh.matrix()
    assert all(v == "open" for by in matrix.values() for v in by.values()), matrix


def test_each_source_reaches_only_what_it_is_listed_for(fresh: netns.Pair, tmp_path: Path) -> None:
    gw, _ = gateway(fresh)
    assert firewall.apply(gw, LocalFiles(tmp_path), rules())
    matrix = fresh.matrix()
    assert opened(matrix, ADMIN) == ["tcp/443"]
    assert opened(matrix, NFS3_HOST) == ["tcp/111", "tcp/20048", "tcp/2049"]
    assert opened(matrix, NFS4_HOST) == ["tcp/2049"]
    assert opened(matrix, STRANGER) == []
    # Refused at once, and rpcbind over UDP answers nobody, an NFSv3 host included.
    assert matrix[STRANGER]["tcp/443"] == CLOSED
    assert matrix[ADMIN]["tcp/22"] == CLOSED
    assert matrix[NFS3_HOST]["udp/111"] == "dropped"


def test_ssh_on_opens_22_to_the_management_networks_alone(fresh: netns.Pair, tmp_path: Path) -> None:
    gw, _ = gateway(fresh)
    firewall.apply(gw, LocalFiles(tmp_path), rules(ssh=True))
    matrix = fresh.matrix()
    assert opened(matrix, ADMIN) == ["tcp/22", "tcp/443"]
    assert matrix[NFS3_HOST]["tcp/22"] == CLOSED
    assert matrix[STRANGER]["tcp/22"] == CLOSED


def test_iscsi_networks_reach_3260_at_their_edge(fresh: netns.Pair, tmp_path: Path) -> None:
    gw, _ = gateway(fresh)
    # 10.99.0.2/31 holds .2 and .3: the admin and the NFSv3 host, not .4.
    firewall.apply(gw, LocalFiles(tmp_path), rules(iscsi=[ipaddress.ip_network("10.99.0.2/31")]))
    found = fresh.probe([(s, "tcp", firewall.ISCSI) for s in SOURCES])
    assert {s for (s, _, _), v in found.items() if v == "open"} == {ADMIN, NFS3_HOST}


def test_a_storage_nic_takes_nfs_and_iscsi_and_never_the_web_interface(
    fresh: netns.Pair, tmp_path: Path
) -> None:
    # The clients' link is the storage network: every listed host gets its storage ports and the
    # administrator, listed for the web interface, is refused it here.
    gw, _ = gateway(fresh)
    wide = ipaddress.ip_network("10.99.0.0/24")
    storage = rules(ssh=True, iscsi=[wide], storage_interface=fresh.link)
    firewall.apply(gw, LocalFiles(tmp_path), storage)
    matrix = fresh.matrix()
    assert opened(matrix, ADMIN) == ["tcp/3260"]
    assert opened(matrix, NFS3_HOST) == ["tcp/111", "tcp/20048", "tcp/2049", "tcp/3260"]
    assert opened(matrix, NFS4_HOST) == ["tcp/2049", "tcp/3260"]
    assert matrix[ADMIN]["tcp/443"] == matrix[ADMIN]["tcp/22"] == CLOSED


def test_with_the_storage_nic_elsewhere_this_link_serves_management_alone(
    fresh: netns.Pair, tmp_path: Path
) -> None:
    # The same hosts, seen on a NIC that is not the storage one: NFS and iSCSI are not answered here.
    gw, _ = gateway(fresh)
    wide = ipaddress.ip_network("10.99.0.0/24")
    firewall.apply(gw, LocalFiles(tmp_path), rules(ssh=True, iscsi=[wide], storage_interface="ens224"))
    matrix = fresh.matrix()
    assert opened(matrix, ADMIN) == ["tcp/22", "tcp/443"]
    assert opened(matrix, NFS3_HOST) == opened(matrix, NFS4_HOST) == []
    assert matrix[NFS3_HOST]["tcp/2049"] == CLOSED


def test_the_image_rules_let_the_web_interface_and_ssh_in_from_anywhere(
    fresh: netns.Pair, tmp_path: Path
) -> None:
    gw, _ = gateway(fresh)
    firewall.apply(gw, LocalFiles(tmp_path), firewall.default_rules())
    matrix = fresh.matrix()
    assert all(opened(matrix, s) == ["tcp/22", "tcp/443"] for s in SOURCES), matrix


def test_apply_is_idempotent_and_converges_a_flushed_kernel(fresh: netns.Pair, tmp_path: Path) -> None:
    gw, runner = gateway(fresh)
    files = LocalFiles(tmp_path)
    assert firewall.apply(gw, files, rules())
    assert files.read(firewall.RULES_FILE) == firewall.render(rules())
    runner.calls.clear()
    assert not firewall.apply(gw, files, rules())
    assert runner.calls == [["nft", "list", "table", "inet", "arcvsa"]]  # looked, loaded nothing
    netns.ip("netns", "exec", fresh.server, netns.NFT, "flush", "ruleset")  # by hand: drift
    assert firewall.apply(gw, files, rules())
    assert opened(fresh.matrix(), STRANGER) == []


def test_a_script_nft_refuses_changes_nothing(fresh: netns.Pair, tmp_path: Path) -> None:
    gw, _ = gateway(fresh)
    files = LocalFiles(tmp_path)
    firewall.apply(gw, files, rules())
    broken = firewall.render(rules()).replace("policy drop;", "policy maybe;")
    with pytest.raises(CommandFailed, match="nft failed"):
        firewall.check(gw, broken)
    assert files.read(firewall.RULES_FILE) == firewall.render(rules())
    assert opened(fresh.matrix(), STRANGER) == []


def test_loading_replaces_the_table_in_one_step(fresh: netns.Pair, tmp_path: Path) -> None:
    # A changed rule set takes the old one's place whole: the stranger, let in by the first, is out.
    gw, _ = gateway(fresh)
    files = LocalFiles(tmp_path)
    firewall.apply(gw, files, rules(nfs4=[ipaddress.ip_address(STRANGER)]))
    assert opened(fresh.matrix(), STRANGER) == ["tcp/2049"]
    firewall.apply(gw, files, rules())
    assert opened(fresh.matrix(), STRANGER) == []
    listed = netns.subprocess.run(
        [netns.IP, "netns", "exec", fresh.server, netns.NFT, "list", "tables"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert listed.split() == ["table", "inet", "arcvsa"]
