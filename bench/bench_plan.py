"""Time `roceconf plan` between two versions of the pod intent (328 devices: 72 switches + 256 GPU hosts, ~2900 interfaces).

NEW lowers the ECN max of class roce (1500KB -> 1200KB) and the switch-port MTU (9214 -> 9100), which
changes every switch (72 rendered diffs). Target: under 5 s on a 2-core machine, loading both intents included.

Run: .venv/bin/python bench/bench_plan.py [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from roceconf.plan import plan_specs, to_json, to_markdown, to_text  # noqa: E402

TARGET_S = 5.0
POD = ROOT / "inventories" / "pod" / "intent.yml"


def new_version(text: str) -> str:
    for old, new in (("max: 1500KB", "max: 1200KB"), ("switch_port: 9214", "switch_port: 9100")):
        assert old in text, f"pod intent no longer contains {old!r}"
        text = text.replace(old, new, 1)
    return text


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        new = Path(d) / "intent.yml"
        new.write_text(new_version(POD.read_text(encoding="utf-8")), encoding="utf-8")
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            plan = plan_specs(str(POD), str(new))
            for fmt in (to_text, to_markdown, to_json):
                fmt(plan)
            times.append(time.perf_counter() - t0)
    best = min(times)
    print(
        f"plan pod intent (ECN max + MTU): {len(plan.changes)} change(s), {plan.counts.devices} device(s), "
        f"{plan.counts.interfaces} interface(s), {len(plan.devices)} rendered diff(s)"
    )
    for c in plan.changes:
        print(f"  ~ {c.summary} [{c.disruption}, {c.risk}]")
    print(
        f"plan time: best {best:.2f} s of {args.repeat} (all: {', '.join(f'{t:.2f}' for t in times)}); "
        f"target {TARGET_S:.1f} s; ratio {best / TARGET_S:.2f}"
    )
    return 0 if best < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
