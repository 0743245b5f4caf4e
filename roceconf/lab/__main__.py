"""Run the loopback lab as a process.

    ROCECONF_USERNAME=u ROCECONF_PASSWORD=p \\
    python -m roceconf.lab --configs DIR --inventory-out FILE --ttl SECONDS [--cabling CSV]
        [--scenario NAME[@DEVICE[:PORT]]]

One device per file in DIR (name = file stem). The platform comes from a subdirectory named
after it (``DIR/nxos/leaf1.cfg``), from ``--platform NAME=PLATFORM``, or from the file:
``.set`` junos, ``.json`` sonic (or a host's DeviceState JSON with a ``platform`` key),
``.yaml``/``.yml`` nvue, ``.cfg`` eos or nxos (by indentation: 3 spaces eos, 2 spaces nxos).
The process writes the inventory once every device listens, and stops by itself after the
TTL or on SIGTERM / SIGINT. On exit it removes the inventory file if it created it.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import sys
import threading
from pathlib import Path

from roceconf import jsontext, limits, outdir
from roceconf.lab.device import FAULTS, HOST_PLATFORMS, PLATFORMS
from roceconf.lab.server import Lab

_EXT = {".set": "junos", ".json": "sonic", ".yaml": "nvue", ".yml": "nvue"}


def sniff_platform(path: Path, text: str) -> str | None:
    """Platform of a config file from its extension and content (None: unknown)."""
    ext = path.suffix.lower()
    if ext == ".json":
        try:
            data = jsontext.loads(text) if text.strip() else {}
        except ValueError:
            return None
        if isinstance(data, dict) and data.get("platform") in HOST_PLATFORMS:
            return str(data["platform"])
        return "sonic"
    if ext in _EXT:
        return _EXT[ext]
    if ext == ".cfg":
        two = len(re.findall(r"^  \S", text, re.M))
        three = len(re.findall(r"^   \S", text, re.M))
        if re.search(r"^(feature |system qos|policy-map type (network-qos|queuing))", text, re.M):
            return "nxos"
        if re.search(r"^(qos map |qos profile |policy-map type quality-of-service)", text, re.M):
            return "eos"
        return "eos" if three >= two and three else "nxos"
    if ext in (".sh", ".txt", ".bundle"):
        low = text[:2000].lower()
        for name, hint in (
            ("linux-dcb", "linux-dcb"),
            ("bnxt", "bnxt"),
            ("connectx", "connectx"),
            ("connectx", "mlx5"),
        ):
            if hint in low:
                return name
    return None


def _hidden(path: Path, top: Path) -> bool:
    """Dot files and anything in a dot directory (a render's staging area) are not configs."""
    return any(part.startswith(".") for part in path.relative_to(top).parts)


def collect(configs: Path, overrides: dict[str, str]) -> list[tuple[str, str, str]]:
    """[(name, platform, text)] for every config file under ``configs``."""
    found: list[tuple[str, str, str]] = []
    with outdir.reading(configs):  # never a half-applied render set
        paths = sorted(configs.rglob("*"))
        texts = {p: p.read_text() for p in paths if p.is_file() and not _hidden(p, configs)}
    for path, text in texts.items():
        name = path.stem
        parent = path.parent.name if path.parent != configs else ""
        platform = (
            overrides.get(name) or (parent if parent in PLATFORMS else None) or sniff_platform(path, text)
        )
        if platform is None:
            print(f"lab: skipping {path}: unknown platform (use --platform {name}=PLATFORM)", file=sys.stderr)
            continue
        found.append((name, platform, text))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m roceconf.lab", description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=Path, required=True, help="directory of running configs")
    ap.add_argument("--inventory-out", type=Path, required=True, help="YAML inventory to write")
    ap.add_argument("--ttl", type=float, default=600.0, help="stop after this many seconds (default 600)")
    ap.add_argument("--platform", action="append", default=[], metavar="NAME=PLATFORM")
    ap.add_argument("--fault", action="append", default=[], metavar="NAME=FAULT")
    ap.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME[@DEVICE[:PORT]]",
        help="counter scenario (healthy, pfc-storm, watchdog, lossless-drops, ecn-no-cnp, misclassified-pause, "
        "counter-reset; link counters: crc, fec, flap, ecmp-imbalance, speed-mismatch, fec-mismatch, optics) or cabling scenario (miswire, crossed-rail; "
        "needs --cabling); repeatable",
    )
    ap.add_argument(
        "--cabling",
        type=Path,
        help="cables as the intent's CSV table (a_device,a_port,b_device,b_port[,cable_m]): LLDP answers them",
    )
    ap.add_argument(
        "--link-speed",
        type=int,
        metavar="GBPS",
        help="the speed every cabled port runs at, answered in its link counters (the intent's port speed; "
        "without it no speed is answered and roceconf cabling's speed check is unknown)",
    )
    ap.add_argument("--keep-inventory", action="store_true", help="leave the inventory file on exit")
    args = ap.parse_args(argv)

    username = os.environ.get("ROCECONF_USERNAME", "")
    password = os.environ.get("ROCECONF_PASSWORD", "")
    if not username or not password:
        print("lab: set ROCECONF_USERNAME and ROCECONF_PASSWORD", file=sys.stderr)
        return 2
    if not args.configs.is_dir():
        print(f"lab: {args.configs}: not a directory", file=sys.stderr)
        return 2
    if not args.inventory_out.parent.is_dir():
        print(f"lab: {args.inventory_out.parent}: no such directory for the inventory", file=sys.stderr)
        return 2
    bad = [item for item in args.platform + args.fault if "=" not in item]
    if bad:
        print(f"lab: expected NAME=VALUE, got {bad[0]!r}", file=sys.stderr)
        return 2
    overrides = dict(item.split("=", 1) for item in args.platform)
    faults = dict(item.split("=", 1) for item in args.fault)
    if not math.isfinite(args.ttl) or args.ttl < 0:
        print(f"lab: --ttl {args.ttl}: a number of seconds (0 or more) is expected", file=sys.stderr)
        return 2
    for name, fault in faults.items():
        if fault not in FAULTS:
            print(f"lab: --fault {name}={fault}: unknown fault; known: {', '.join(FAULTS)}", file=sys.stderr)
            return 2
    for name, platform in overrides.items():
        if platform not in PLATFORMS:
            print(f"lab: --platform {name}={platform}: unknown platform; known: {', '.join(PLATFORMS)}", file=sys.stderr)
            return 2

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    lab = Lab(username, password)
    try:
        found = collect(args.configs, overrides)
        for name, platform, text in found:
            lab.add(name, platform, text, fault=faults.get(name))
        if args.cabling is not None:
            from roceconf.inputfile import read_text
            from roceconf.lab.wiring import read_cabling

            links = read_cabling(read_text(args.cabling, limits.MAX_SIDE_FILE_BYTES, encoding="utf-8"), str(args.cabling))
            stray = sorted({d for a, _p, b, _q in links for d in (a, b)} - set(lab.devices))
            if stray:
                raise ValueError(f"{args.cabling}: no config for device {stray[0]!r} in {args.configs}")
            speeds = {(d, p): args.link_speed for ln in links for d, p in (ln[:2], ln[2:4])} if args.link_speed else None
            lab.set_links(links, speeds)
        lab.set_scenarios(args.scenario)
    except (ValueError, TypeError) as exc:  # UnicodeDecodeError of a config file included
        print(f"lab: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"lab: {exc.filename or args.configs}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    unknown = sorted((set(faults) | set(overrides)) - {name for name, _p, _t in found})
    if unknown:  # a misspelt device name would leave the fault or platform silently unused
        print(f"lab: no config for device {unknown[0]!r} named by --fault / --platform in {args.configs}", file=sys.stderr)
        return 2
    created = not args.inventory_out.exists()
    with lab:
        try:  # atomic: a temp file renamed over it (roceconf.outdir.write_file)
            lab.write_inventory(args.inventory_out)
        except OSError as exc:
            print(f"lab: {exc.filename or args.inventory_out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(
            f"lab: {len(lab.devices)} devices on 127.0.0.1 in {lab.started_in:.2f} s; "
            f"inventory {args.inventory_out}; ttl {args.ttl:g} s",
            flush=True,
        )
        stop.wait(args.ttl)
    if created and not args.keep_inventory:
        args.inventory_out.unlink(missing_ok=True)
    print("lab: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
