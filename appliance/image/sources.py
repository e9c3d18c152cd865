"""The Debian mirror of the build machine, read from its apt sources at build time.

No mirror host name is written into the repository: the image is bootstrapped from whatever Debian
archive the build machine already uses, with the ``trixie`` suite and the ``contrib`` component
(``zfs-dkms`` lives there) added.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from pathlib import Path

APT_DIR = Path("/etc/apt")
TARGET_SUITE = "trixie"
TARGET_COMPONENTS = ("main", "contrib")


class NoMirrorError(RuntimeError):
    """The build machine's apt sources name no Debian archive usable as a mirror."""


@dataclass(frozen=True)
class Source:
    """One ``deb`` entry of an apt sources file."""

    uri: str
    suites: tuple[str, ...]
    components: tuple[str, ...]
    options: dict[str, str] = field(default_factory=dict)


def parse_one_line(text: str) -> list[Source]:
    """Parse the one-line format (``sources.list``, ``*.list``); only ``deb`` lines are kept."""
    sources: list[Source] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        options: dict[str, str] = {}
        match = re.match(r"^(deb|deb-src)\s+\[([^\]]*)\]\s+(.*)$", line)
        if match:
            kind, opts, rest = match.groups()
            for opt in opts.split():
                key, _, value = opt.partition("=")
                options[key] = value
        else:
            kind, _, rest = line.partition(" ")
        words = rest.split()
        if kind != "deb" or len(words) < 2:
            continue
        sources.append(Source(words[0], (words[1],), tuple(words[2:]), options))
    return sources


def parse_deb822(text: str) -> list[Source]:
    """Parse the deb822 format (``*.sources``); stanzas with ``Enabled: no`` are skipped."""
    sources: list[Source] = []
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        key = ""
        for raw in stanza.splitlines():
            if raw.startswith("#") or not raw.strip():
                continue
            if raw[0].isspace() and key:
                fields[key] += " " + raw.strip()
                continue
            key, _, value = raw.partition(":")
            key = key.strip().lower()
            fields[key] = value.strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        options = {k: v for k, v in fields.items() if k not in {"types", "uris", "suites", "components"}}
        for uri in fields.get("uris", "").split():
            sources.append(
                Source(
                    uri,
                    tuple(fields.get("suites", "").split()),
                    tuple(fields.get("components", "").split()),
                    options,
                )
            )
    return sources


def read_sources(apt_dir: Path = APT_DIR) -> list[Source]:
    """All ``deb`` entries of ``sources.list`` and ``sources.list.d/*.list`` / ``*.sources``."""
    sources: list[Source] = []
    main = apt_dir / "sources.list"
    if main.is_file():
        sources += parse_one_line(main.read_text(encoding="utf-8"))
    parts = apt_dir / "sources.list.d"
    if parts.is_dir():
        for path in sorted(parts.iterdir()):
            if path.suffix == ".list":
                sources += parse_one_line(path.read_text(encoding="utf-8"))
            elif path.suffix == ".sources":
                sources += parse_deb822(path.read_text(encoding="utf-8"))
    return sources


def host_codename(os_release: Path = Path("/etc/os-release")) -> str:
    """The build machine's Debian codename (``bookworm`` on Debian 12)."""
    for line in os_release.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key == "VERSION_CODENAME":
            return value.strip().strip('"')
    raise NoMirrorError(f"no VERSION_CODENAME in {os_release}")


def debian_mirror(sources: list[Source], codename: str) -> str:
    """The URI of the first entry that carries the Debian release itself (suite == codename, main).

    Security and updates suites (``bookworm-security``) and third-party repositories (their own
    suite names) are not the archive and are skipped.
    """
    for source in sources:
        if codename in source.suites and "main" in source.components and "://" in source.uri:
            return source.uri.rstrip("/")
    raise NoMirrorError(f"no apt source carries the {codename!r} suite with the main component")


def mmdebstrap_source(uri: str) -> str:
    """The one-line source mmdebstrap bootstraps from (and writes into the image's apt sources)."""
    return f"deb {uri} {TARGET_SUITE} {' '.join(TARGET_COMPONENTS)}"


def main() -> None:
    """Print the mmdebstrap source line for this build machine."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--apt-dir", type=Path, default=APT_DIR)
    parser.add_argument("--uri-only", action="store_true", help="print the mirror URI only")
    args = parser.parse_args()
    uri = debian_mirror(read_sources(args.apt_dir), host_codename())
    print(uri if args.uri_only else mmdebstrap_source(uri))


if __name__ == "__main__":
    main()
