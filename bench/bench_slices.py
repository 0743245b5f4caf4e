"""The pod's drift audit (inventories/pod/intent.yml, 328 devices) on the loopback lab, unsliced and through 1, 2
and 4 slices (`roceconf drift --slice K/N --results-dir`, the slices in parallel as AWX runs them on its execution
nodes, then `roceconf report merge`): the merged report must equal the unsliced one (devices, items, counts, exit
code; timestamps and durations aside). Prints wall time (slices + merge) and the peak RSS of the largest slice
per slice count.

Correctness: every merged report equals the unsliced one, and the unsliced run audited every device (none
unknown). The exit status follows it (1: wrong); the last line says `correct: yes` or what is wrong. `--quick`:
every platform once (EOS twice; eos001 carries injected drift, so the merge must reproduce a drifted device and
exit 1), 2 and 3 slices, 4 workers (the correctness check, as the test suite runs it:
tests/test_bench_quick.py).

    python bench/bench_slices.py [--workers 16] [--quick]

The lab runs in its own process (`python -m roceconf.lab`); every audit is the real CLI as a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INTENT = ROOT / "inventories" / "pod" / "intent.yml"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))


def comparable(report: dict) -> dict:
    out = {k: v for k, v in report.items() if k not in ("generated_at", "source")}
    out["devices"] = [{k: v for k, v in d.items() if k not in ("seconds", "attempts")} for d in report["devices"]]
    return out


def run_parallel(commands: list[list[str]], env: dict[str, str]) -> tuple[float, list[int], list[int]]:
    """Start every command at once; wall time, exit codes, peak RSS (KiB) of each (from wait4)."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in commands]
    codes, peaks = [], []
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        codes.append(p.returncode)
        peaks.append(usage.ru_maxrss)
    return time.perf_counter() - t0, codes, peaks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=30.0, help="per-device timeout of every run (s)")
    ap.add_argument("--quick", action="store_true", help="a 9-device intent with one drifted device, 2 and 3 slices")
    args = ap.parse_args()
    from roceconf import platforms
    from roceconf.compile import load_valid, output_name, render_fabric
    from roceconf.intent.desired import desired_state
    from roceconf.outdir import write_outputs

    workers = 4 if args.quick else args.workers
    counts = (2, 3) if args.quick else (1, 2, 4)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        intent = INTENT
        if args.quick:  # every platform, eos001 drifted (bench_drift's quick fabric)
            from bench.bench_drift import QUICK, intent_text

            intent = tmp / "intent.yml"
            intent.write_text(intent_text(QUICK), encoding="utf-8")
        fab = load_valid(intent)
        files = render_fabric(fab)
        if args.quick:
            files["eos001.cfg"] = files["eos001.cfg"].replace(
                "qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 0"
            )
        for name, dev in fab.devices.items():
            if platforms.get(dev.platform).kind == "nic":
                (tmp / "configs").mkdir(exist_ok=True)
                (tmp / "configs" / f"{name}.json").write_text(desired_state(dev).model_dump_json())
            else:
                fname = output_name(name, dev.platform)
                write_outputs({fname: files[fname]}, tmp / "configs" / dev.platform)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "ROCECONF_"))}
        env.update(ROCECONF_USERNAME="bench", ROCECONF_PASSWORD=secrets.token_urlsafe(12),
                   PYTHONPATH=str(ROOT))
        inv = tmp / "lab-hosts.yml"
        lab = subprocess.Popen([sys.executable, "-m", "roceconf.lab", "--configs", str(tmp / "configs"),
                                "--inventory-out", str(inv), "--ttl", "1200"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rows = []
        wrong: list[str] = []
        try:
            deadline = time.monotonic() + 120
            while not inv.exists():
                if lab.poll() is not None or time.monotonic() > deadline:
                    print("lab did not start:", lab.communicate(timeout=5), file=sys.stderr)
                    print("correct: WRONG: the lab did not start")
                    return 1
                time.sleep(0.1)
            drift = [str(BIN / "roceconf"), "drift", str(intent), "--inventory", str(inv), "--workers",
                     str(workers), "--timeout", str(args.timeout), "--format", "json"]
            full_out = tmp / "full.json"
            wall, codes, peaks = run_parallel([[*drift, "--output", str(full_out)]], env)
            full = json.loads(full_out.read_text())
            rows.append(("unsliced", wall, codes[0], max(peaks), full["summary"]))
            unknown = [dev["device"] for dev in full["devices"] if dev["status"] == "unknown"]
            drifted = [dev["device"] for dev in full["devices"] if dev["status"] == "drift"]
            if unknown:
                wrong.append(f"unsliced run: {len(unknown)} device(s) unknown ({', '.join(unknown[:5])})")
            if args.quick and (drifted != ["eos001"] or codes[0] != 1):
                wrong.append(f"unsliced run: exit {codes[0]}, drifted {drifted}; only eos001 carries drift")
            for n in counts:
                res = tmp / f"slices-{n}"
                wall, codes, peaks = run_parallel(
                    [[*drift, "--slice", f"{k}/{n}", "--results-dir", str(res), "--output",
                      str(tmp / f"slice-{k}-of-{n}.json")] for k in range(1, n + 1)], env)
                t0 = time.perf_counter()
                merged = subprocess.run([str(BIN / "roceconf"), "report", "merge", str(res), "--format", "json"],
                                        env=env, capture_output=True, text=True, timeout=600)
                wall += time.perf_counter() - t0
                same = (merged.returncode == full["exit_code"]
                        and comparable(json.loads(merged.stdout)) == comparable(full))
                if not same:
                    wrong.append(f"{n} slices: the merged report differs from the unsliced one")
                if not same:  # name what differs (a device unknown in one run only: a timeout under load)
                    got = {d["device"]: d for d in json.loads(merged.stdout)["devices"]}
                    for dev in full["devices"]:
                        g = got.get(dev["device"], {})
                        if (g.get("status"), g.get("items")) != (dev["status"], dev["items"]):
                            print(f"  {n} slices: {dev['device']}: unsliced {dev['status']}, merged "
                                  f"{g.get('status')} ({g.get('reason')})", file=sys.stderr)
                rows.append((f"{n} slice(s)", wall, merged.returncode, max(peaks),
                             "merged == unsliced" if same else "MERGED DIFFERS"))
        finally:
            lab.terminate()
            lab.communicate(timeout=60)
    what = "quick fabric" if args.quick else "pod"
    print(f"{what} drift audit, {len(fab.devices)} lab devices, --workers {workers} per run")
    for label, wall, code, peak, note in rows:
        print(f"  {label:>12}: {wall:6.1f} s wall, exit {code}, peak RSS per run {peak / 1024:6.0f} MiB; {note}")
    print(f"correct: {'yes' if not wrong else 'WRONG: ' + '; '.join(wrong)}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
