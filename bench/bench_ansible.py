"""Nightly drift audit through Ansible: playbooks/drift_audit.yml with --forks 10 against 20 loopback-lab
devices (all five switch platforms and two NIC families). Target: under 60 s.

The lab runs in its own process (`python -m roceconf.lab`), ansible-playbook as a subprocess, exactly as an
operator would run them; the time is the wall-clock time of ansible-playbook (reports included).

Correctness: the playbook succeeds and its report has every device in sync (the lab serves roceconf's own
render). The exit status follows it (1: wrong); the target is printed (OK / MISSED), the machine may be
shared. `--quick`: an EOS switch (napalm), a SONiC switch (netmiko) and a ConnectX NIC (the correctness check, as the test suite runs it:
tests/test_bench_quick.py).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 60.0
FORKS = 10
MIX = [
    ("eos", 4, "Ethernet1-32"),
    ("nxos", 4, "Ethernet1/1-32"),
    ("junos", 3, "et-0/0/[0-31]"),
    ("sonic", 3, "Ethernet[0-31]"),
    ("nvue", 3, "swp1-32"),
    ("connectx", 2, "eth[0-7]"),
    ("bnxt", 1, "eth[0-1]"),
]
#: `--quick`: a switch read by napalm, one by netmiko and a NIC (ansible-playbook's start dominates the rest)
QUICK = [(plat, 1, ports) for plat, _, ports in MIX if plat in ("eos", "sonic", "connectx")]


def intent_text(mix: list[tuple[str, int, str]] = MIX) -> str:
    """The lab intent's QoS with 20 devices instead of the lab's ten."""
    lab = (ROOT / "inventories" / "lab" / "intent.yml").read_text()
    head = lab[: lab.index("\ndevices:")].replace("fabric: lab", "fabric: bench-ansible")
    lines = [head, "devices:"]
    for plat, n, ports in mix:
        host = plat in ("connectx", "bnxt")
        rdma = {"connectx": "mlx5_[0-7]", "bnxt": "bnxt_re[0-1]"}.get(plat)
        extra = f", rdma_device: '{rdma}'" if rdma else ""
        prefix = plat.replace("-", "")
        lines.append(
            f"  - {{name: '{prefix}[1-{n}]', platform: {plat}, role: {'host' if host else 'leaf'}, "
            f"interfaces: [{{name: '{ports}', speed: 400G, role: {'host' if host else 'fabric'}{extra}}}]}}"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    from roceconf import platforms
    from roceconf.compile import load_valid, output_name, render_fabric, write_outputs
    from roceconf.intent.desired import desired_state

    quick = "--quick" in sys.argv[1:]
    mix = QUICK if quick else MIX
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        intent = tmp / "intent.yml"
        intent.write_text(intent_text(mix))
        fab = load_valid(intent)
        assert len(fab.devices) == sum(n for _, n, _ in mix), len(fab.devices)
        files = render_fabric(fab)
        for name, dev in fab.devices.items():
            if platforms.get(dev.platform).kind == "nic":  # hosts: the state their script sets
                (tmp / "configs").mkdir(exist_ok=True)
                (tmp / "configs" / f"{name}.json").write_text(desired_state(dev).model_dump_json())
            else:  # switches: DIR/<platform>/<device>.<ext>
                fname = output_name(name, dev.platform)
                write_outputs({fname: files[fname]}, tmp / "configs" / dev.platform)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
        env.update(
            ROCECONF_USERNAME="bench",
            ROCECONF_PASSWORD=secrets.token_urlsafe(12),
            ROCECONF_LAB_INVENTORY=str(tmp / "lab-hosts.yml"),
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-tmp"),
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        lab = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "roceconf.lab",
                "--configs",
                str(tmp / "configs"),
                "--inventory-out",
                str(tmp / "lab-hosts.yml"),
                "--ttl",
                "600",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 30
            while not (tmp / "lab-hosts.yml").exists():
                if lab.poll() is not None or time.monotonic() > deadline:
                    print("lab did not start:", lab.communicate(timeout=5), file=sys.stderr)
                    return 1
                time.sleep(0.05)
            extra = {"roceconf_intent": str(intent), "roceconf_report_dir": str(tmp / "reports")}
            t0 = time.perf_counter()
            res = subprocess.run(
                [
                    str(Path(sys.executable).parent / "ansible-playbook"),
                    "-i",
                    str(ROOT / "inventories" / "lab" / "lab.roceconf_lab.yml"),
                    str(ROOT / "playbooks" / "drift_audit.yml"),
                    "--forks",
                    str(FORKS),
                    "-e",
                    json.dumps(extra),
                ],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            elapsed = time.perf_counter() - t0
        finally:
            lab.terminate()
            lab.communicate(timeout=30)
        reports = sorted((tmp / "reports").glob("*/drift.json"))
        summary = json.loads(reports[0].read_text())["summary"] if reports else {}
    target = (
        "quick: no target"
        if quick
        else f"target {TARGET_S:.0f} s: {'OK' if elapsed < TARGET_S else 'MISSED'}, ratio {elapsed / TARGET_S:.2f}"
    )
    print(
        f"ansible drift_audit.yml: {len(fab.devices)} lab devices, forks {FORKS}: {elapsed:.1f} s ({target}); "
        f"exit {res.returncode}, {summary.get('in_sync', 0)} in sync, {summary.get('drift', 0)} drifted, "
        f"{summary.get('unknown', 0)} unknown"
    )
    ok = res.returncode == 0 and summary.get("in_sync") == summary.get("devices") == len(fab.devices)
    print(f"correct: {'yes' if ok else 'WRONG: the playbook must succeed with every device in sync'}")
    if not ok:
        print(res.stdout[-3000:], res.stderr[-2000:], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
