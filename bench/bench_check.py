"""`roceconf check` on the realistic pod (328 devices, 2560 links). Target: under 5 s on a 2-core machine.

Measures the whole command as a user runs it (a fresh process: start-up, load and validate, desired states,
every fabric check, headroom) and, in-process, where the time goes.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 5.0


def main() -> int:
    path = ROOT / "inventories" / "pod" / "intent.yml"
    exe = [sys.executable, "-m", "roceconf.cli", "check", str(path.relative_to(ROOT))]
    wall = []
    rc = None
    for _ in range(3):
        t = time.perf_counter()
        proc = subprocess.run(exe, cwd=ROOT, capture_output=True, text=True, check=False)
        wall.append(time.perf_counter() - t)
        rc = proc.returncode
    from roceconf.fabric import desired, run_checks
    from roceconf.intent import load

    t0 = time.perf_counter()
    fab = load(path)
    t1 = time.perf_counter()
    ss = desired(fab)
    t2 = time.perf_counter()
    res = run_checks(fab, ss)
    t3 = time.perf_counter()
    med = statistics.median(wall)
    print(
        f"roceconf check {path.relative_to(ROOT)}: {len(fab.devices)} devices, {len(fab.links)} links, "
        f"exit {rc}, {len(res.diagnostics)} diagnostic(s)"
    )
    print(
        f"in-process: load+validate {t1 - t0:.2f} s, desired states {t2 - t1:.2f} s, checks+headroom {t3 - t2:.2f} s"
    )
    print(
        f"command median {med:.2f} s (min {min(wall):.2f} s) over {len(wall)} runs; target < {TARGET_S:.0f} s: "
        f"{'OK' if med < TARGET_S else 'MISSED'} ({med / TARGET_S:.2f} of target, {TARGET_S / med:.1f}x headroom)"
    )
    return 0 if med < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
