"""Pack and check OVAs: a ustar archive of the descriptor, the manifest, the signature, the disk and the
build manifest.

DSP0243 fixes the member order of an OVA: the .ovf first (vSphere streams the archive and must
read the descriptor before anything else), then the .mf and the .cert, then the files in References
order. The manifest and the certificate go together, both after the descriptor or both at the end;
ours come first, as ovftool writes them, so a reader checks the signature before the disk streams by.
Member metadata is normalised (owner root, mode 0644, one mtime) so the archive does not leak
the build machine's users.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from ovf.build_manifest import FILE_NAME as BUILD_MANIFEST_NAME
from ovf.build_manifest import BuildManifest
from ovf.descriptor import DescriptorInputs, DiskImage, PackageFile, Product, render_descriptor
from ovf.errors import PackageInvalid
from ovf.manifest import parse_manifest, render_manifest, sha256_file
from ovf.namespaces import OVF, q
from ovf.signature import parse_signature, render_signature, verify_signature
from ovf.signer import OvaSigner
from ovf.validator import validate_descriptor
from ovf.vmdk import convert_to_stream_vmdk

USTAR_MAX_MEMBER = 8 * 1024**3 - 1  # the ustar size field holds 11 octal digits
CONVERT_TIMEOUT = 1800.0


@dataclass(frozen=True)
class PackedOva:
    """What pack_ova() wrote."""

    path: Path
    members: tuple[str, ...]
    descriptor: bytes
    disk_capacity: int
    disk_size: int
    signed_by: str | None


def package_base_name(version: str) -> str:
    """arcvsa-<version> with anything outside [A-Za-z0-9._-] turned into '-' (OVF hrefs are plain names)."""
    return "arcvsa-" + re.sub(r"[^A-Za-z0-9._-]", "-", version)


def _add(tar: tarfile.TarFile, path: Path, name: str, mtime: int) -> None:
    size = path.stat().st_size
    if size > USTAR_MAX_MEMBER:
        raise PackageInvalid(f"{name} is {size} bytes; a ustar member holds at most {USTAR_MAX_MEMBER}")
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o644
    info.mtime = mtime
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    with path.open("rb") as fh:
        tar.addfile(info, fh)


def pack_ova(
    *,
    disk_image: Path,
    out: Path,
    build: BuildManifest,
    convert_timeout: float = CONVERT_TIMEOUT,
    signer: OvaSigner | None = None,
) -> PackedOva:
    """Convert `disk_image` (any qemu-img format) and pack it with a fresh descriptor into `out`.

    The descriptor is validated before anything is archived; `out` appears only when complete. With
    a `signer` the package carries a .cert: its signature over the manifest, and its certificates.
    """
    base = package_base_name(build.version)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".ova-", dir=out.parent))
    try:
        vmdk = work / f"{base}-disk1.vmdk"
        # Capacity and populatedSize come from the checked VMDK itself (its header and the grains it
        # carries), ovf:size from the file as the tar will hold it.
        layout = convert_to_stream_vmdk(disk_image, vmdk, timeout=convert_timeout)
        build_json = work / BUILD_MANIFEST_NAME
        build_json.write_bytes(build.to_json())
        inputs = DescriptorInputs(
            product=Product(version=build.version, full_version=build.git_version),
            disk=DiskImage(
                href=vmdk.name,
                size=vmdk.stat().st_size,
                capacity=layout.capacity,
                populated_size=layout.populated_size,
            ),
            extra_files=(PackageFile(href=BUILD_MANIFEST_NAME, size=build_json.stat().st_size),),
        )
        descriptor = render_descriptor(inputs)
        validate_descriptor(descriptor)
        ovf_path = work / f"{base}.ovf"
        ovf_path.write_bytes(descriptor)
        payload = [ovf_path, vmdk, build_json]
        mf_path = work / f"{base}.mf"
        mf_path.write_text(render_manifest((p.name, sha256_file(p)) for p in payload))
        signed = []
        if signer is not None:
            cert_path = work / f"{base}.cert"
            signature = signer.sign(mf_path.read_bytes())
            cert_path.write_bytes(render_signature(mf_path.name, signature, signer.certificates_pem()))
            signed.append(cert_path)
        mtime = build.source_date_epoch or 0
        partial = work / (out.name + ".partial")
        members = (ovf_path, mf_path, *signed, vmdk, build_json)
        with tarfile.open(partial, "w", format=tarfile.USTAR_FORMAT) as tar:
            for member in members:
                _add(tar, member, member.name, mtime)
        partial.replace(out)
        return PackedOva(
            path=out,
            members=tuple(m.name for m in members),
            descriptor=descriptor,
            disk_capacity=layout.capacity,
            disk_size=vmdk.stat().st_size,
            signed_by=None if signer is None else signer.subject,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


@dataclass(frozen=True)
class VerifiedOva:
    """An OVA that passed verify_ova()."""

    members: tuple[str, ...]
    descriptor: bytes
    root: ET.Element
    disk_member: str
    signed_by: str | None


def _layout(names: tuple[str, ...]) -> tuple[str, str | None, tuple[str, ...]]:
    """(the manifest, the .cert or None, the files after them); PackageInvalid for any other order."""
    if not names or not names[0].endswith(".ovf"):
        raise PackageInvalid(f"the first member must be the .ovf descriptor, found {names[:1]}")
    if len(names) < 2 or not names[1].endswith(".mf"):
        raise PackageInvalid(f"the second member must be the .mf manifest, found {names[1:2]}")
    if len(set(names)) != len(names):
        raise PackageInvalid(f"duplicate members in {names}")
    certificate = names[2] if len(names) > 2 and names[2].endswith(".cert") else None
    expected = names[1].removesuffix(".mf") + ".cert"
    if certificate is not None and certificate != expected:
        raise PackageInvalid(
            f"the certificate must be named after the manifest, {expected}, not {certificate}"
        )
    files = names[3:] if certificate else names[2:]
    for name in files:
        if name.endswith(".cert"):
            raise PackageInvalid(
                f"{name} is member {names.index(name) + 1}: the .cert must come right after the .mf"
            )
    return names[1], certificate, files


def verify_ova(path: Path) -> VerifiedOva:
    """Check member order, the .cert's signature, manifest digests and the descriptor.

    PackageInvalid (SignatureInvalid for the .cert) or DescriptorInvalid if not; an unsigned package
    passes with `signed_by` None.
    """
    with tarfile.open(path, "r:") as tar:
        infos = tar.getmembers()
        names = tuple(i.name for i in infos)
        manifest_name, certificate, files = _layout(names)
        digests: dict[str, str] = {}
        blobs: dict[str, bytes] = {}
        for info in infos:
            if not info.isfile():
                raise PackageInvalid(f"member {info.name!r} is not a regular file")
            fh = tar.extractfile(info)
            if fh is None:
                raise PackageInvalid(f"cannot read member {info.name!r}")
            digest = hashlib.sha256()
            data = bytearray()
            while chunk := fh.read(1024 * 1024):
                digest.update(chunk)
                if info.name.endswith((".ovf", ".mf", ".cert")):
                    data.extend(chunk)
            digests[info.name] = digest.hexdigest()
            blobs[info.name] = bytes(data)
    signed_by = None
    if certificate is not None:
        signed = parse_signature(blobs[certificate])
        verify_signature(signed, manifest_name, blobs[manifest_name])
        signed_by = signed.subject
    manifest = parse_manifest(blobs[manifest_name].decode())
    expected = set(names) - {manifest_name, certificate}
    if set(manifest) != expected:
        raise PackageInvalid(f"manifest lists {sorted(manifest)}, package has {sorted(expected)}")
    for name, (algorithm, hexdigest) in manifest.items():
        if algorithm != "SHA256":
            raise PackageInvalid(f"{name}: manifest uses {algorithm}; we require SHA256")
        if digests[name] != hexdigest:
            raise PackageInvalid(f"{name}: SHA-256 {digests[name]} does not match the manifest's {hexdigest}")
    root = validate_descriptor(blobs[names[0]])
    hrefs = [f.get(q(OVF, "href"), "") for f in root.iter(q(OVF, "File"))]
    if list(files) != hrefs:
        raise PackageInvalid(f"members after the manifest {list(files)} must follow References {hrefs}")
    # DSP0243: ovf:size is the file's byte count as archived, not the disk's capacity or image size.
    sizes = {info.name: info.size for info in infos}
    for ref in root.iter(q(OVF, "File")):
        href, declared = ref.get(q(OVF, "href"), ""), ref.get(q(OVF, "size"))
        if declared is not None and declared != str(sizes[href]):
            raise PackageInvalid(f"{href}: ovf:size is {declared}, the archive holds {sizes[href]} bytes")
    disk_ref = root.find(f"{q(OVF, 'DiskSection')}/{q(OVF, 'Disk')}")
    file_id = None if disk_ref is None else disk_ref.get(q(OVF, "fileRef"))
    disk_member = next(
        (f.get(q(OVF, "href"), "") for f in root.iter(q(OVF, "File")) if f.get(q(OVF, "id")) == file_id), ""
    )
    return VerifiedOva(
        members=names, descriptor=blobs[names[0]], root=root, disk_member=disk_member, signed_by=signed_by
    )
