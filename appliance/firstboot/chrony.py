"""chrony's NTP sources from the ntp_servers property.

Debian's chrony.conf reads /etc/chrony/sources.d/*.sources, so first boot adds its own file there
instead of rewriting chrony.conf (a package upgrade keeps working).
"""

from __future__ import annotations

from pathlib import PurePosixPath

SOURCES_FILE = PurePosixPath("/etc/chrony/sources.d/arcvsa.sources")


def render_sources(servers: list[str]) -> str:
    """One `server NAME iburst` line per server; a comment only when there is none."""
    lines = ["# Written once by arcvsa first boot from the ntp_servers OVF property."]
    if not servers:
        lines.append("# ntp_servers was empty: chrony keeps the sources of chrony.conf.")
    lines.extend(f"server {server} iburst" for server in servers)
    return "\n".join(lines) + "\n"
