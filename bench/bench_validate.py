"""Validate the realistic pod (issue: intent model and validation). Target: under 1 s on a 2-core machine."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from roceconf.intent import validate

    path = ROOT / "inventories" / "pod" / "intent.yml"
    samples = []
    for _ in range(7):
        t = time.perf_counter()
        fab, diags = validate(path)
        samples.append(time.perf_counter() - t)
    assert fab is not None and not [d for d in diags if d.severity == "error"]
    med = statistics.median(samples)
    print(
        f"validate {path.relative_to(ROOT)}: {len(fab.devices)} devices, {len(fab.links)} links, "
        f"{sum(len(d.ports) for d in fab.devices.values())} interfaces"
    )
    print(
        f"median {med * 1000:.0f} ms (min {min(samples) * 1000:.0f} ms, first {samples[0] * 1000:.0f} ms); "
        f"target < 1000 ms: {'OK' if med < 1 else 'MISSED'} ({1 / med:.1f}x headroom)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
