"""`roceconf cabling --lldp`: the cabling verdict of the 32k-GPU bench fabric (bench/fabricgen.py big_fabric:
4,096 hosts x 8 NICs, 1,024 leaves, 512 spines; 49,152 links) from saved LLDP files. Target: under 10 s and
under 1 GiB on one core.

The saved files are written first (not timed): every device's LLDP output as its platform prints it (EOS eAPI
JSON, SONiC ``show lldp table``, NVUE and host ``lldpctl -f json``; roceconf/platforms/<p>/lldp.py), from the
intent's links laid as cables (roceconf.lab.wiring) with two faults. Then ``cabling_offline`` is timed: every
file read, parsed and every link judged, in this process on one core (pure Python, no threads): its CPU
time (``time.process_time``) is the time on one core, the wall time is printed beside it. The memory figure
is the process's peak resident set (``ru_maxrss``) after the run (the second run's: with the first report and
the wiring let go, as a command run holds one report).

Correctness: the findings are exactly the injected faults - crossed rails on the first host (RC503 on its
two NICs and the two leaf ports) and a miswire on the last spine's first port (RC501 on four ends) - and
every other link is confirmed. The exit status follows it (1: wrong); the targets are printed (OK / MISSED).
`--quick`: 256 hosts, 4 spines per pod (the correctness check, as the test suite runs it: tests/test_bench_quick.py).

Link health: then two samples of every intent port's link counters (snapshots built in memory, not parsed;
FCS errors rising on one leaf port) are judged with the ECMP groups and joined into every link's verdict
(``with_links``), timed the same way; the findings must add exactly that RC510 (every check of every end is
read here, so the verdicts can be ok: FEC included, which no platform reads today, and the optics).
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fabricgen import big_fabric  # noqa: E402

TARGET_S, TARGET_MIB = 10.0, 1024


def main() -> int:
    from roceconf import platforms
    from roceconf.cabling.collect import SAVED_SUFFIX, cabling_offline, with_links
    from roceconf.compile import load_valid
    from roceconf.lab.wiring import Wiring

    quick = "--quick" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "intent.yml"
        p.write_text(big_fabric(hosts=256, spines_per_pod=4) if quick else big_fabric())
        fab = load_valid(p)
        w = Wiring()
        w.set_links([(x.a.device, x.a.port, x.b.device, x.b.port) for x in fab.links])
        host = min(n for n, dev in fab.devices.items() if dev.is_host)
        spine = max(n for n, dev in fab.devices.items() if dev.role == "spine")
        w.swap(host, None, "crossed-rail")
        w.swap(spine, None, "miswire")
        plats = {n: dev.platform for n, dev in fab.devices.items()}
        saved = Path(d) / "lldp"
        saved.mkdir()
        for n, dev in fab.devices.items():
            spec = platforms.lldp(dev.platform)
            rows = w.neighbours(n, plats)
            outputs = {c: spec.simulate(c, rows, n) for c in spec.commands}
            (saved / (n + SAVED_SUFFIX)).write_text(
                json.dumps({"format_version": 1, "device": n, "platform": dev.platform, "outputs": outputs}))
        print(f"{len(fab.devices)} devices, {len(fab.links)} links, saved LLDP files in {saved}", flush=True)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        report = cabling_offline(fab, saved)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        got, counts = sorted((f.rule, f.device, f.port) for f in report.findings), report.counts
        # the run below holds what `roceconf cabling --counters` holds (the intent, one report, the samples),
        # not this first report nor the wiring the saved files were written from
        del report, w
        snaps, hot = link_samples(fab)
        cpu1, wall1 = time.process_time(), time.perf_counter()
        linked = with_links(cabling_offline(fab, saved), fab, snaps, {})
        lcpu, lwall = time.process_time() - cpu1, time.perf_counter() - wall1
    lmib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    crossed = [f for f in got if f[0] == "RC503"]
    miswired = [f for f in got if f[0] == "RC501"]
    correct = (
        len(got) == 8 and len(crossed) == 4 and len(miswired) == 4
        and {f[1] for f in crossed if fab.devices[f[1]].is_host} == {host}
        and sum(f[1] == spine for f in miswired) == 2
        and counts["ok"] == len(fab.links) - 4 and counts["fail"] == 4
        and counts["unknown_devices"] == 0
    )
    print(f"cabling of {len(fab.devices)} devices, {len(fab.links)} links: {cpu:.2f} s CPU on one core "
          f"({wall:.2f} s wall), peak {mib:.0f} MiB; findings {got}")
    if not quick:
        print(f"target {TARGET_S:g} s: {'OK' if cpu < TARGET_S else 'MISSED'}; "
              f"target {TARGET_MIB} MiB: {'OK' if mib < TARGET_MIB else 'MISSED'}")
    extra = sorted(set((f.rule, f.device, f.port) for f in linked.findings) - set(got))
    correct = correct and extra == [("RC510", *hot)]
    print(f"cabling with link health (2 samples of {sum(len(d.ports) for d in fab.devices.values())} ports, "
          f"{len(linked.link.groups)} ECMP groups; LLDP read again): {lcpu:.2f} s CPU on one core ({lwall:.2f} s wall), "
          f"peak {lmib:.0f} MiB; "
          f"findings added {extra}")
    print(f"correct: {'yes' if correct else 'no'}")
    return 0 if correct else 1


def link_samples(fab):  # noqa: ANN001, ANN201 - bench helper
    """Two samples of every intent port's link counters, 10 s apart: 1 GB/s each way, no errors, one carrier
    transition, the intent's speed, the optics of a module within its thresholds (a dict per port, as a parse
    makes it); the first switch-to-switch link end counts 5 FCS errors per second. Returns (samples, that end)."""
    from roceconf.counters.model import PortCounters, Snapshot
    from roceconf.lab.counters import OPTICS, OPTICS_THRESHOLDS

    hot = next((x.a.device, x.a.port) for x in fab.links
               if not fab.devices[x.a.device].is_host and not fab.devices[x.b.device].is_host)
    out = {}
    for n, dev in fab.devices.items():
        pair = []
        for t in (0.0, 10.0):
            ports = {}
            for p, sp in dev.ports.items():
                crc = 50 if (n, p) == hot and t else 0
                ports[p] = PortCounters(link={"fcs_errors": crc, "fec_uncorrectable": 0, "carrier_transitions": 1,
                                              "rx_octets": int(1e9 * t), "tx_octets": int(1e9 * t),
                                              "speed_bps": sp.speed_gbps * 10**9})
                for reading, v in OPTICS.items():
                    ports[p].set_optics(reading, v, OPTICS_THRESHOLDS[reading])
            pair.append(Snapshot(n, dev.platform, t, ports))
        out[n] = pair
    return out, hot


if __name__ == "__main__":
    sys.exit(main())
