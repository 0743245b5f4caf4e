"""Live drift audit of 100 loopback-lab devices with 16 workers (issue: drift audit). Target: under 20 s.

Real napalm (eAPI, SSH) and netmiko (SSH) clients against simulated devices on 127.0.0.1; every device is read,
parsed and compared. A few devices carry injected drift so the comparison does real work.

Correctness: exactly the one device with injected drift is drifted, every other device is in sync (roceconf's
own render audited against its intent), none unknown. The exit status follows it (1: wrong); the target is
printed (OK / MISSED), the machine may be shared. `--quick`: one or two devices of each platform, 4 workers
(the correctness check, as the test suite runs it: tests/test_bench_quick.py).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIX = [
    ("eos", 30, "Ethernet1-32"),
    ("nxos", 20, "Ethernet1/1-32"),
    ("junos", 10, "et-0/0/[0-31]"),
    ("sonic", 10, "Ethernet[0-31]"),
    ("nvue", 10, "swp1-32"),
    ("connectx", 10, "eth[0-7]"),
    ("bnxt", 5, "eth[0-1]"),
    ("linux-dcb", 5, "eth[0-1]"),
]
#: `--quick`: every platform, EOS twice (eos001 carries the drift)
QUICK = [(plat, 2 if plat == "eos" else 1, ports) for plat, _, ports in MIX]


def intent_text(mix: list[tuple[str, int, str]] = MIX) -> str:
    lines = [
        "version: 1",
        "fabric: bench100",
        "mtu: {switch_port: 9214, host_nic: 9000}",
        "ecmp: {fields: [src_ip, dst_ip, src_port, dst_port]}",
        "devices:",
    ]
    for plat, n, ports in mix:
        host = plat in ("connectx", "bnxt", "linux-dcb")
        rdma = {"connectx": "mlx5_[0-7]", "bnxt": "bnxt_re[0-1]", "linux-dcb": "rocep[1-2]s0"}.get(plat)
        extra = f", rdma_device: '{rdma}'" if rdma else ""
        lines.append(
            f"  - {{name: '{plat.replace('-', '')}[{1:03d}-{n:03d}]', platform: {plat}, "
            f"role: {'host' if host else 'leaf'}, interfaces: [{{name: '{ports}', speed: 400G{extra}}}]}}"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    from roceconf.compile import load_valid, output_name, render_fabric, write_outputs
    from roceconf.drift.audit import audit

    quick = "--quick" in sys.argv[1:]
    workers = 4 if quick else 16
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "intent.yml"
        p.write_text(intent_text(QUICK if quick else MIX))
        fab = load_valid(p)
        files = render_fabric(fab)
        files["eos001.cfg"] = files["eos001.cfg"].replace(
            "qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 0"
        )
        for (
            name,
            dev,
        ) in fab.devices.items():  # DIR/<platform>/<device>.<ext>: the lab takes the platform from the folder
            write_outputs(
                {output_name(name, dev.platform): files[output_name(name, dev.platform)]},
                Path(d) / "configs" / dev.platform,
            )
        creds = ("bench", secrets.token_urlsafe(12))
        inv = Path(d) / "inv.yml"
        env = {**os.environ, "ROCECONF_USERNAME": creds[0], "ROCECONF_PASSWORD": creds[1]}
        # the lab runs in its own process, as devices would: the auditor does not share its interpreter
        lab = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "roceconf.lab",
                "--configs",
                str(Path(d) / "configs"),
                "--inventory-out",
                str(inv),
                "--ttl",
                "300",
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert lab.stdout is not None
            print(lab.stdout.readline().strip())
            t = time.perf_counter()
            report = audit(fab, inventory=inv, workers=workers, timeout=15, credentials=creds)
            dt = time.perf_counter() - t
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    c = report.counts
    target = "quick: no target" if quick else f"target < 20 s: {'OK' if dt < 20 else 'MISSED'} ({20 / dt:.1f}x headroom)"
    print(
        f"audited {c['devices']} devices ({c['in_sync']} in sync, {c['drift']} drifted, {c['unknown']} unknown) "
        f"with {workers} workers in {dt:.1f} s; {target}; load average {os.getloadavg()[0]:.1f}"
    )
    per: dict[str, list[float]] = {}
    for dres in report.devices:
        per.setdefault(dres.platform, []).append(dres.seconds)
    print(
        "  mean seconds per device: "
        + ", ".join(f"{k} {sum(v) / len(v):.2f}" for k, v in sorted(per.items()))
    )
    for dres in report.devices:
        if dres.status == "unknown":
            print(f"  unknown: {dres.device}: {dres.reason}")
        elif dres.status == "drift" and dres.device != "eos001":
            print(f"  drifted (roceconf's own render): {dres.device}: {[i.field for i in dres.items][:3]}")
    drifted = [dres.device for dres in report.devices if dres.status == "drift"]
    ok = c["unknown"] == 0 and drifted == ["eos001"] and c["in_sync"] == len(fab.devices) - 1
    print(f"correct: {'yes' if ok else 'WRONG: only eos001 carries drift'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
