"""Validate the realistic pod (issue: intent model and validation). Target: under 1 s on a 2-core machine.

Correctness: the pod validates without an error. The exit status follows it (1: wrong); the target is printed
(OK / MISSED), the machine may be shared. `--quick`: the lab intent, one run (the correctness check, as the
test suite runs it: tests/test_bench_quick.py).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from roceconf.intent import validate

    quick = "--quick" in sys.argv[1:]
    path = ROOT / "inventories" / ("lab" if quick else "pod") / "intent.yml"
    samples = []
    for _ in range(1 if quick else 7):
        t = time.perf_counter()
        fab, diags = validate(path)
        samples.append(time.perf_counter() - t)
    errors = [d.format() for d in diags if d.severity == "error"]
    if fab is None or errors or not fab.devices:
        print(f"WRONG: {path.relative_to(ROOT)} does not validate: {errors[:3]}")
        return 1
    med = statistics.median(samples)
    print(
        f"validate {path.relative_to(ROOT)}: {len(fab.devices)} devices, {len(fab.links)} links, "
        f"{sum(len(d.ports) for d in fab.devices.values())} interfaces"
    )
    target = "quick: no target" if quick else f"target < 1000 ms: {'OK' if med < 1 else 'MISSED'} ({1 / med:.1f}x headroom)"
    print(
        f"median {med * 1000:.0f} ms (min {min(samples) * 1000:.0f} ms, first {samples[0] * 1000:.0f} ms); {target}"
    )
    print("correct: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
