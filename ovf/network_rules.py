"""What makes an address from the network properties unusable on its NIC: the rules first boot applies
(appliance.firstboot.network, which falls back and warns) and the deployment plan refuses up front
(provisioning.plan), so that a plan the manager accepts is one first boot can apply."""

from __future__ import annotations

import ipaddress


def subnet_edge(address: ipaddress.IPv4Interface) -> str | None:
    """Why ``address`` is its subnet's network or broadcast address (a /31 or /32 has neither); None when
    it is neither."""
    net = address.network
    if net.prefixlen < 31 and address.ip in (net.network_address, net.broadcast_address):
        what = "network" if address.ip == net.network_address else "broadcast"
        return f"{address.ip} is the {what} address of {net}"
    return None


def storage_problems(
    storage: ipaddress.IPv4Interface, management: ipaddress.IPv4Interface | None
) -> list[str]:
    """Why the storage NIC cannot take ``storage`` beside the management NIC's static ``management``
    (None: DHCP, nothing to compare); empty when it can."""
    ip = storage.ip
    if ip.is_unspecified or ip.is_loopback or ip.is_multicast or ip.is_reserved or ip.is_link_local:
        return [f"{ip} is not a host address"]
    problems = [edge] if (edge := subnet_edge(storage)) else []
    if management is not None and storage.network.overlaps(management.network):
        problems.append(
            f"the storage network {storage.network} overlaps the management network {management.network}"
            " (one subnet on two NICs answers from either)"
        )
    return problems
