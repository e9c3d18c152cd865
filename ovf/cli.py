"""Command line for the build, the lab and the docs:
`python -m ovf pack|verify|validate|env-iso|deploy-docs`.

make calls this (mk/ova.mk, mk/docs.mk); it prints one line per result and exits non-zero with the typed
error's message, so a failed build says exactly which rule or tool failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ovf.build_manifest import BuildManifest, read_build_manifest
from ovf.deploy_docs import REGENERATE, is_stale, render_block, splice
from ovf.environment import make_environment_iso, render_environment
from ovf.errors import OvfError
from ovf.hardware import APPLIANCE_HARDWARE
from ovf.ova import pack_ova, verify_ova
from ovf.properties import load_catalogue
from ovf.signer import OvaSigner, load_signer, make_lab_signer, read_passphrase
from ovf.validator import validate_descriptor
from process import ProcessError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ovf", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    pack = sub.add_parser("pack", help="convert a disk image and pack the OVA")
    pack.add_argument("--disk", type=Path, required=True, help="built image (qcow2 or any qemu-img format)")
    pack.add_argument("--out", type=Path, required=True, help="OVA to write")
    pack.add_argument(
        "--image-manifest",
        type=Path,
        help="the image build's record (arcvsa-<version>.json) or the build-manifest.json packer"
        " downloaded; the flags below override its fields",
    )
    pack.add_argument("--version", help="release version")
    pack.add_argument("--git-version", help="git describe of the source tree")
    pack.add_argument("--kernel", help="kernel release in the image")
    pack.add_argument("--openzfs", help="OpenZFS version in the image")
    pack.add_argument("--ganesha", help="nfs-ganesha version in the image")
    pack.add_argument("--source-date-epoch", type=int, help="timestamp for the archive members")
    pack.add_argument("--timeout", type=float, default=1800.0, help="qemu-img convert timeout, seconds")
    pack.add_argument(
        "--signing-key",
        default="",
        help="PEM RSA key that signs the manifest (the .cert); kept out of the tree",
    )
    pack.add_argument(
        "--signing-cert",
        default="",
        help="PEM certificate of --signing-key, then its chain (may be the key's own file)",
    )
    pack.add_argument(
        "--signing-passphrase-file",
        default="",
        help="file holding the key's passphrase (never the passphrase)",
    )
    pack.add_argument(
        "--lab-signing-dir",
        default="",
        help="without --signing-key: make a throwaway self-signed lab key here and sign with it",
    )

    verify = sub.add_parser(
        "verify", help="check an OVA: member order, .cert signature, SHA-256 manifest, descriptor"
    )
    verify.add_argument("ova", type=Path)

    env_iso = sub.add_parser("env-iso", help="write an ovf-env.xml ISO (iso transport) for the lab")
    env_iso.add_argument("--values", type=Path, required=True, help="JSON object of property key -> value")
    env_iso.add_argument("--out", type=Path, required=True, help="ISO to write")

    validate = sub.add_parser("validate", help="check an .ovf descriptor against the DMTF rules we use")
    validate.add_argument("descriptor", type=Path)

    docs = sub.add_parser(
        "deploy-docs", help="render the ovftool, govc and PowerCLI deploys into the deploy guide"
    )
    docs.add_argument(
        "--doc",
        type=Path,
        default=Path("docs/deploy.md"),
        help="Markdown file with the block (default: docs/deploy.md in the working directory)",
    )
    docs.add_argument("--check", action="store_true", help="change nothing; fail when the block is stale")
    return parser


def _deploy_docs(doc: Path, *, check: bool) -> int:
    text = doc.read_text(encoding="utf-8")
    catalogue = load_catalogue()
    if check:
        if is_stale(text, catalogue, APPLIANCE_HARDWARE):
            print(f"{doc}: the generated deploy commands are stale: run `{REGENERATE}`", file=sys.stderr)
            return 1
        print(f"{doc}: deploy commands up to date")
        return 0
    rendered = splice(text, render_block(catalogue, APPLIANCE_HARDWARE))
    if rendered != text:
        doc.write_text(rendered, encoding="utf-8")
    print(f"{doc}: deploy commands {'rewritten' if rendered != text else 'up to date'}")
    return 0


def _build_manifest(args: argparse.Namespace) -> BuildManifest:
    fields: dict[str, object] = {}
    if args.image_manifest is not None:
        fields.update(read_build_manifest(args.image_manifest))
    overrides = {
        "version": args.version,
        "git_version": args.git_version,
        "kernel": args.kernel,
        "openzfs": args.openzfs,
        "nfs_ganesha": args.ganesha,
        "source_date_epoch": args.source_date_epoch,
    }
    fields.update({k: v for k, v in overrides.items() if v is not None})
    missing = [k for k in ("version", "git_version", "kernel", "openzfs", "nfs_ganesha") if not fields.get(k)]
    if missing:
        raise SystemExit(
            f"missing build inputs {missing}: pass --image-manifest (from the packer build) or the flags"
        )
    return BuildManifest.model_validate(fields)


def _signer(args: argparse.Namespace) -> OvaSigner | None:
    """The checked signer the flags name: before packing, so a wrong key costs no conversion."""
    if bool(args.signing_key) != bool(args.signing_cert):
        raise SystemExit("--signing-key and --signing-cert go together (one PEM file may hold both)")
    if args.signing_key and args.lab_signing_dir:
        raise SystemExit("--lab-signing-dir is for builds without --signing-key")
    if args.signing_key:
        passphrase = None
        if args.signing_passphrase_file:
            passphrase = read_passphrase(Path(args.signing_passphrase_file))
        return load_signer(Path(args.signing_key), Path(args.signing_cert), passphrase=passphrase)
    if args.lab_signing_dir:
        signer = make_lab_signer(Path(args.lab_signing_dir))
        print(
            f"ova: no signing key given (make ova OVA_SIGNING_KEY=...): signing with a throwaway self-signed"
            f" lab key made in {args.lab_signing_dir}; vSphere will show the publisher as not trusted."
            " Never ship this OVA."
        )
        return signer
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "pack":
            started = time.monotonic()
            signer = _signer(args)
            packed = pack_ova(
                disk_image=args.disk,
                out=args.out,
                build=_build_manifest(args),
                convert_timeout=args.timeout,
                signer=signer,
            )
            verify_ova(packed.path)
            size_mib = packed.path.stat().st_size / 1024**2
            virtual_gib = packed.disk_capacity / 1024**3
            print(
                f"wrote {packed.path} ({size_mib:.1f} MiB, disk {virtual_gib:.1f} GiB virtual)"
                f" in {time.monotonic() - started:.1f}s: {', '.join(packed.members)}"
            )
            print(f"{packed.path}: {_signed(packed.signed_by, lab=signer is not None and signer.lab)}")
        elif args.command == "env-iso":
            values = json.loads(args.values.read_text(encoding="utf-8"))
            if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
                raise SystemExit(f"{args.values}: expected a JSON object of strings")
            make_environment_iso(render_environment(values), args.out)
            print(f"wrote {args.out} ({len(values)} properties)")
        elif args.command == "deploy-docs":
            return _deploy_docs(args.doc, check=args.check)
        elif args.command == "verify":
            verified = verify_ova(args.ova)
            print(f"{args.ova}: ok ({', '.join(verified.members)}), {_signed(verified.signed_by, lab=False)}")
        else:
            validate_descriptor(args.descriptor.read_bytes())
            print(f"{args.descriptor}: ok")
    except (OvfError, ProcessError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _signed(subject: str | None, *, lab: bool) -> str:
    if subject is None:
        return "unsigned"
    return f"signed by {subject}" + (" (throwaway lab key)" if lab else "")
