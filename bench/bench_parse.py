"""Parse 1,000 EOS running configs of about 1,500 lines on one core (issue: parsers). Target: under 10 s.

The configs are realistic running-configs: the RoCE QoS that roceconf renders for a 64-port leaf plus the
usual non-RoCE bulk (descriptions, IP addressing, BGP, management, AAA), each one slightly different.

Correctness: every config parses to its 64 ports with PFC no-drop on priority 3. The exit status follows it
(1: wrong); the target is printed (OK / MISSED). `--quick`: 20 configs (the correctness check, as the test
suite runs it: tests/test_bench_quick.py).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def make_config(i: int, base: str) -> str:
    lines = base.rstrip("\n").removesuffix("end").splitlines()
    extra = [
        f"hostname leaf{i:04d}",
        "!",
        "username admin privilege 15 role network-admin secret sha512 $6$x",
        "!",
        "aaa authorization exec default local",
        "!",
        "management api http-commands",
        "   no shutdown",
        "!",
    ]
    for n in range(1, 65):
        extra += [
            f"interface Ethernet{n}",
            f"   description host-{i}-{n} rail {n % 8}",
            "   no switchport",
            f"   ip address 10.{i % 250}.{n}.1/31",
            "   ip ospf network point-to-point",
            "   load-interval 5",
            "   logging event link-status",
            "   spanning-tree portfast",
            "   no lldp transmit",
            "!",
        ]
    extra += [f"router bgp {65000 + i}", f"   router-id 10.255.{i % 250}.1", "   maximum-paths 64 ecmp 64"]
    for n in range(1, 400):
        extra += [
            f"   neighbor 10.{i % 250}.{n % 64}.0 peer group SPINES",
            f"   neighbor 10.{i % 250}.{n % 64}.0 description peer-{n}",
        ]
    extra += ["!", "ip routing", "!", "ntp server 192.0.2.1", "!", "end"]
    return "\n".join(lines + extra) + "\n"


def main() -> int:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    from bench_render import eos_state_64

    from roceconf import platforms
    from roceconf.render import render_state

    quick = "--quick" in sys.argv[1:]
    base = render_state(eos_state_64())
    configs = [make_config(i, base) for i in range(20 if quick else 1000)]
    avg_lines = sum(c.count("\n") for c in configs) / len(configs)
    parse = platforms.get("eos").parse
    t, c0 = time.perf_counter(), time.process_time()
    states = [parse(c) for c in configs]
    wall, cpu = time.perf_counter() - t, time.process_time() - c0
    dt = cpu  # CPU time on the one pinned core: what the parser costs, independent of other load on the box
    ok = all(len(s.interfaces) == 64 and s.interfaces["Ethernet1"].pfc.no_drop == [3] for s in states)
    print(f"wall {wall:.2f} s, CPU {cpu:.2f} s (load average {os.getloadavg()[0]:.1f})")
    print(
        f"parsed {len(configs)} EOS running-configs of {avg_lines:.0f} lines on 1 core in {dt:.2f} s CPU "
        f"({dt / len(configs) * 1000:.2f} ms each, {avg_lines * len(configs) / dt / 1e6:.2f} M lines/s); "
        + ("quick: no target" if quick else f"target < 10 s: {'OK' if dt < 10 else 'MISSED'} ({10 / dt:.1f}x headroom)")
    )
    print(f"correct: {'yes' if ok else 'WRONG: a config does not parse to 64 ports with no-drop 3'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
