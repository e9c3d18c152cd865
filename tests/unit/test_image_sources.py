"""The image build reads its Debian mirror from the build machine's apt sources (both formats)."""

from __future__ import annotations

from pathlib import Path

import pytest

from appliance.image import sources

DEB822 = """\
Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
"""


def test_deb822_and_one_line(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text("# nothing here\n", encoding="utf-8")
    (tmp_path / "sources.list.d" / "debian.sources").write_text(DEB822, encoding="utf-8")
    (tmp_path / "sources.list.d" / "vendor.list").write_text(
        "deb [arch=amd64 signed-by=/k.gpg] https://vendor.example/apt cloud-sdk-bookworm main\n",
        encoding="utf-8",
    )
    (tmp_path / "sources.list.d" / "other.sources.disabled").write_text(DEB822, encoding="utf-8")
    found = sources.read_sources(tmp_path)
    assert [s.uri for s in found] == [
        "http://mirror.example/debian",
        "http://mirror.example/debian-security",
        "https://vendor.example/apt",
    ]
    assert found[2].options == {"arch": "amd64", "signed-by": "/k.gpg"}
    assert sources.debian_mirror(found, "bookworm") == "http://mirror.example/debian"


def test_one_line_skips_deb_src_and_third_party() -> None:
    text = (
        "deb-src http://mirror.example/debian bookworm main\n"
        "deb https://vendor.example/node nodistro main\n"
        "deb http://mirror.example/debian/ bookworm main contrib # trailing comment\n"
    )
    found = sources.parse_one_line(text)
    assert sources.debian_mirror(found, "bookworm") == "http://mirror.example/debian"


def test_disabled_stanza_is_ignored() -> None:
    found = sources.parse_deb822(DEB822.replace("Types: deb\n# a comment", "Types: deb\nEnabled: no", 1))
    with pytest.raises(sources.NoMirrorError):
        sources.debian_mirror(found, "bookworm")


def test_source_line_adds_trixie_and_contrib() -> None:
    line = sources.mmdebstrap_source("http://mirror.example/debian")
    assert line == "deb http://mirror.example/debian trixie main contrib"
