"""Time `roceconf plan` between two versions of the pod intent (328 devices: 72 switches + 256 GPU hosts, ~2900 interfaces).

NEW lowers the ECN max of class roce (1500KB -> 1200KB) and the switch-port MTU (9214 -> 9100), which
changes every switch (72 rendered diffs). Target: under 5 s on a 2-core machine, loading both intents included.

Correctness: the plan has those two changes (and the network-qos class MTU where a switch's platform states one,
NX-OS: the lab intent) and a rendered diff for every switch and no host. The exit status
follows it (1: wrong); the target is printed (OK / MISSED), the machine may be shared. `--quick`: the pod
and lab intents, one run each (the correctness check, as the test suite runs it: tests/test_bench_quick.py);
both intents are checked in either mode.

Run: .venv/bin/python bench/bench_plan.py [--repeat N] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roceconf import platforms  # noqa: E402
from roceconf.intent import load  # noqa: E402
from roceconf.plan import plan_specs, to_json, to_markdown, to_text  # noqa: E402

TARGET_S = 5.0
POD = ROOT / "inventories" / "pod" / "intent.yml"
LAB = ROOT / "inventories" / "lab" / "intent.yml"


def new_version(text: str) -> str:
    for old, new in (("max: 1500KB", "max: 1200KB"), ("switch_port: 9214", "switch_port: 9100")):
        assert old in text, f"pod intent no longer contains {old!r}"
        text = text.replace(old, new, 1)
    return text


def run(old: Path, repeat: int, timed: bool) -> list[str]:
    """Plan OLD -> its new version REPEAT times; print the plan and the time; return what is wrong."""
    with tempfile.TemporaryDirectory() as d:
        new = Path(d) / "intent.yml"
        new.write_text(new_version(old.read_text(encoding="utf-8")), encoding="utf-8")
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            plan = plan_specs(str(old), str(new))
            for fmt in (to_text, to_markdown, to_json):
                fmt(plan)
            times.append(time.perf_counter() - t0)
    best = min(times)
    print(
        f"plan {old.parent.name} intent (ECN max + MTU): {len(plan.changes)} change(s), {plan.counts.devices} "
        f"device(s), {plan.counts.interfaces} interface(s), {len(plan.devices)} rendered diff(s)"
    )
    for c in plan.changes:
        print(f"  ~ {c.summary} [{c.disruption}, {c.risk}]")
    target = (
        f"target {TARGET_S:.1f} s: {'OK' if best < TARGET_S else 'MISSED'} (ratio {best / TARGET_S:.2f})"
        if timed
        else "no target"
    )
    print(f"plan time: best {best:.2f} s of {repeat} (all: {', '.join(f'{t:.2f}' for t in times)}); {target}")
    fabric = load(old)
    switches = sorted(n for n, dev in fabric.devices.items() if not dev.is_host)
    # the MTU change is also the network-qos class MTU where a switch's platform states one (NX-OS: a fact of
    # its own in the device state); the pod has no such switch, the lab's spine is one
    class_mtu = any(platforms.get(fabric.devices[n].platform).capabilities.class_mtu for n in switches)
    summaries = sorted(c.summary for c in plan.changes)
    wrong = []
    if len(summaries) != 2 + class_mtu or not (
        summaries[0].startswith("ECN max of class roce 1500 KB -> 1200 KB")
        and summaries[1].startswith("MTU of ")
        and " 9214 -> 9100 " in summaries[1]
        and (not class_mtu or summaries[2].startswith("network-qos class MTU 9214 -> 9100 "))
    ):
        wrong.append(f"{old.parent.name}: changes {summaries}")
    if sorted(x.device for x in plan.devices) != switches:
        wrong.append(
            f"{old.parent.name}: rendered diffs {sorted(x.device for x in plan.devices)} != the switches"
        )
    return wrong


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one run of each intent: the correctness check only")
    args = ap.parse_args()
    # both intents in both modes, so the check CI runs (--quick) is the check `make bench` runs
    wrong = run(POD, 1 if args.quick else args.repeat, timed=not args.quick) + run(LAB, 1, timed=False)
    print(f"correct: {'yes' if not wrong else 'WRONG: ' + '; '.join(wrong)}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
