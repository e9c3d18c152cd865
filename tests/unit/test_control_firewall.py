"""appliance.control.firewall's rule set as text: each rule at its boundary, one difference at a time.

What the kernel makes of the text (which connections it lets in) is tested in
tests/integration/test_firewall_netns.py, with nft in a network namespace.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import pytest

from appliance.control import firewall

REPO = Path(__file__).resolve().parents[2]
OVERLAY = REPO / "appliance/image/overlay/etc/nftables.conf"


def net(text: str) -> firewall.Network:
    return ipaddress.ip_network(text)


def addr(text: str) -> firewall.Address:
    return ipaddress.ip_address(text)


def rules(**changes: object) -> firewall.Rules:
    base = firewall.Rules(management=[net("10.0.2.0/24")], ssh=False)
    return base.model_copy(update=changes)


def accepts(text: str) -> dict[str, str]:
    """set name: the ports its accept rule opens."""
    return dict(re.findall(r"saddr @(\w+) tcp dport (\{[^}]*\}|\d+) accept", text))


def elements(text: str, name: str) -> list[str]:
    found = re.search(rf"set {name} {{[^}}]*?(?:elements = {{ ([^}}]*) }};)? }}", text)
    assert found is not None, f"no set {name}"
    return found.group(1).split(", ") if found.group(1) else []


def test_the_image_boots_with_the_default_rules() -> None:
    # The image's own file is what nftables.service loads until the api first writes one.
    assert OVERLAY.read_text(encoding="utf-8") == firewall.render(firewall.default_rules())


def test_defaults_open_the_web_interface_and_ssh_to_every_address_and_nothing_else() -> None:
    text = firewall.render(firewall.default_rules())
    assert elements(text, "management_v4") == ["0.0.0.0/0"]
    assert elements(text, "management_v6") == ["::/0"]
    for name in ("nfs3_v4", "nfs4_v4", "iscsi_v4", "nfs3_v6", "nfs4_v6", "iscsi_v6"):
        assert elements(text, name) == [], name
    assert accepts(text)["management_v4"] == "{ 22, 443 }"


def test_ssh_opens_22_beside_443_only_when_on() -> None:
    assert accepts(firewall.render(rules(ssh=False)))["management_v4"] == "443"
    assert accepts(firewall.render(rules(ssh=True)))["management_v4"] == "{ 22, 443 }"
    assert accepts(firewall.render(rules(ssh=True)))["management_v6"] == "{ 22, 443 }"


def test_nfs3_hosts_get_rpcbind_and_mountd_and_nfs4_hosts_2049_alone() -> None:
    text = firewall.render(rules(nfs3=[addr("10.0.2.2")], nfs4=[addr("10.0.2.3")]))
    assert accepts(text)["nfs3_v4"] == "{ 111, 2049, 20048 }"
    assert accepts(text)["nfs4_v4"] == "2049"
    assert elements(text, "nfs3_v4") == ["10.0.2.2"]
    assert elements(text, "nfs4_v4") == ["10.0.2.3"]


def test_iscsi_is_3260_from_its_networks() -> None:
    text = firewall.render(rules(iscsi=[net("192.0.2.0/24")]))
    assert accepts(text)["iscsi_v4"] == "3260"
    assert elements(text, "iscsi_v4") == ["192.0.2.0/24"]


def test_addresses_go_to_the_set_of_their_family() -> None:
    text = firewall.render(
        rules(management=[net("10.0.2.0/24"), net("fd00::/64")], nfs3=[addr("fd00::5"), addr("10.0.2.2")])
    )
    assert elements(text, "management_v4") == ["10.0.2.0/24"]
    assert elements(text, "management_v6") == ["fd00::/64"]
    assert elements(text, "nfs3_v4") == ["10.0.2.2"]
    assert elements(text, "nfs3_v6") == ["fd00::5"]


def test_a_host_of_two_exports_is_listed_once_and_the_text_is_stable() -> None:
    one = firewall.render(rules(nfs3=[addr("10.0.2.9"), addr("10.0.2.2"), addr("10.0.2.9")]))
    other = firewall.render(rules(nfs3=[addr("10.0.2.2"), addr("10.0.2.9")]))
    assert one == other
    assert elements(one, "nfs3_v4") == ["10.0.2.2", "10.0.2.9"]


def test_the_table_is_replaced_whole_and_nothing_else_is_touched() -> None:
    text = firewall.render(rules())
    assert "flush ruleset" not in text  # other tables (a site's own) stay
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines[:3] == ["table inet arcvsa", "delete table inet arcvsa", "table inet arcvsa {"]


def test_input_and_forward_drop_by_default_and_tcp_elsewhere_is_reset() -> None:
    text = firewall.render(rules())
    assert "type filter hook input priority filter; policy drop;" in text
    assert "type filter hook forward priority filter; policy drop;" in text
    last = text[: text.index("\t}\n\tchain forward")].rstrip().splitlines()[-1].strip()
    assert last == "meta l4proto tcp reject with tcp reset"
    assert "udp dport 111" not in text  # rpcbind over UDP: a reflection amplifier, never opened


@pytest.mark.parametrize(
    ("networks", "address", "allowed"),
    [
        (["10.0.2.0/24"], "10.0.2.0", True),
        (["10.0.2.0/24"], "10.0.2.255", True),
        (["10.0.2.0/24"], "10.0.3.0", False),
        (["10.0.2.0/24"], "10.0.1.255", False),
        (["10.0.2.2/32"], "10.0.2.2", True),
        (["10.0.2.2/32"], "10.0.2.3", False),
        (["10.0.2.0/24"], "::ffff:10.0.2.7", True),  # a dual-stack socket's view of an IPv4 client
        (["::/0"], "10.0.2.7", False),  # an IPv6 network says nothing of IPv4 clients
        (["0.0.0.0/0"], "fd00::1", False),
        (["fd00::/64"], "fd00::1", True),
        ([], "10.0.2.2", False),
    ],
)
def test_allows_at_the_network_edges(networks: list[str], address: str, allowed: bool) -> None:
    assert firewall.allows([net(n) for n in networks], addr(address)) is allowed


def test_without_a_storage_nic_no_rule_names_an_interface() -> None:
    assert "iifname" not in firewall.render(rules(nfs4=[addr("10.0.2.5")]))


def test_a_storage_nic_carries_nfs_and_iscsi_and_every_other_nic_the_web_interface() -> None:
    text = firewall.render(rules(ssh=True, storage_interface="ens224"))
    for v, family in ((4, "ip"), (6, "ip6")):
        where = {
            name: nic for nic, name in re.findall(rf"\t\t(.*?){family} saddr @(\w+)_v{v} tcp dport", text)
        }
        assert where == {
            "management": 'iifname != "ens224" ',
            "nfs3": 'iifname "ens224" ',
            "nfs4": 'iifname "ens224" ',
            "iscsi": 'iifname "ens224" ',
        }


@pytest.mark.parametrize("name", ['ens224" accept', "ens 224", "", "a" * 16, "ens224;"])
def test_an_interface_name_nft_could_read_as_syntax_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="storage_interface"):
        firewall.Rules(management=[], ssh=False, storage_interface=name)


def test_the_longest_interface_name_linux_allows_is_taken() -> None:
    longest = firewall.Rules(management=[], ssh=False, storage_interface="e" * 15)
    assert f'iifname "{"e" * 15}" ' in firewall.render(longest)
