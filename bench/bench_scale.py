"""Scale benchmark: every phase a user runs, on the pod and on the 32,768-GPU three-tier fabric.

Phases (each one a fresh `roceconf` process, timed from the outside, so start-up, loading and validation are
included and the peak memory is that process's own):
  validate               roceconf validate INTENT
  render (fresh)         roceconf render INTENT -o DIR       into an empty directory (atomic writes)
  render (unchanged)     roceconf render INTENT -o DIR       again: nothing to rewrite
  check                  roceconf check INTENT
  plan (one knob)        roceconf plan INTENT NEW            NEW lowers the ECN max of class roce
  drift --configs        roceconf drift INTENT --configs DIR  saved configs with 5 injected faults
                                                             (bench/drift_faults.py); must find exactly them
                                                             (--distinct: every switch config also carries
                                                             per-port descriptions and addresses)
  health --counters      roceconf health INTENT --counters DIR  two saved samples of every port of every
                                                             device (bench/health_counters.py: the platforms'
                                                             own answers, a drop fault on one device per
                                                             platform); must find exactly the faults, and equal
                                                             the reference path (every snapshot read first,
                                                             rates in dicts, one process) on a sample of devices

`--scale 1k|4k|16k|32k|64k` (repeatable): bench/fabricgen.py's three-tier fabric at that many GPUs;
`--distinct`: also the same fabric with every device different (fabricgen `distinct`: per-switch hash
seed, partial rail groups, per-link cables, mixed releases), judged against issue 31's budgets at 32k
(validate < 3 s). With more than one fabric a growth table (wall / CPU / peak) is printed (docs/performance.md).

Budgets at 32k: validate < 1 s, render fresh < 10 s, check < 5 s, plan < 5 s, drift < 30 s, health < 10 s
(distinct: < 15 s), every command < 1 GiB. `--only PHASE` (repeatable): just those phases (the saved configs or
counters are made only for the phases that read them).
The pod keeps its own budgets (validate < 1 s, render < 10 s, check < 5 s, plan < 5 s). Each phase is run
`--repeat` times and the median judged (the machine is shared: the load average is printed). Both the wall
time and the CPU time of the process and its workers (what the command costs whatever else runs on the
machine; for `drift` the sum over its workers) are compared with the budget, and a last line lists the
budgets the wall time missed. Peak memory: the command's own high-water mark (VmHWM; `ru_maxrss` would also
count the benchmark's own pages, which Linux keeps across the exec); for `drift` and `health`, which fork
workers, the larger of that and the proportional set size of the command and its workers sampled every
0.1 s (their RSS added up, printed beside it, counts the pages they share with the parent again).

Correctness: every phase exits as it must (0; drift 1) and drift finds exactly the injected faults. A wrong
result fails (exit 1); the budgets are printed (OK / MISSED), the machine may be shared. `--quick`: every phase
once on the lab intent and the 1k distinct fabric, no budget (the correctness checks, as the test suite runs them:
tests/test_bench_quick.py).

Run: .venv/bin/python bench/bench_scale.py [--fabric pod|32k|both] [--repeat N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POD = ROOT / "inventories" / "pod" / "intent.yml"
LAB = ROOT / "inventories" / "lab" / "intent.yml"
#: the exit status each phase must have (drift: the injected faults are drift)
EXIT = {"drift --configs": 1}
BUDGETS = {
    "lab": {},
    "pod": {"validate": 1.0, "render (fresh)": 10.0, "check": 5.0, "plan (one knob)": 5.0},
    "32k": {
        "validate": 1.0,
        "render (fresh)": 10.0,
        "check": 5.0,
        "plan (one knob)": 5.0,
        "drift --configs": 30.0,
        "health --counters": 10.0,
    },
}
_PHASES = (
    "validate",
    "render (fresh)",
    "render (unchanged)",
    "check",
    "plan (one knob)",
    "drift --configs",
    "health --counters",
)
#: the exit status of health: the injected faults are findings
EXIT["health --counters"] = 1
#: every command at 32k (and 64k: the same budgets are not promised there, the figures are printed)
MEM_BUDGET = {"32k": dict.fromkeys(_PHASES, 1024.0), "32k-distinct": dict.fromkeys(_PHASES, 1024.0)}
#: the fabric whose devices all differ (bench/fabricgen.py `distinct`): issue 31's budgets
BUDGETS["32k-distinct"] = {**BUDGETS["32k"], "validate": 3.0, "health --counters": 15.0}


def child(argv: list[str]) -> int:
    """Run one roceconf command in this process; print wall, CPU and peak RSS (self, largest child) as JSON."""
    from roceconf.cli import main

    t0 = time.perf_counter()
    rc = 0
    try:
        main.main(argv, prog_name="roceconf", standalone_mode=False)
    except SystemExit as e:
        rc = int(e.code or 0)
    wall = time.perf_counter() - t0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = {
        "rc": rc,
        "wall": wall,
        "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        # VmHWM: this process's own peak. ru_maxrss would also count the pages of the benchmark that spawned
        # it (Linux keeps the larger high-water mark of the memory image replaced at exec)
        "rss_mib": _own_peak_mib() or me.ru_maxrss / 1024,
        "child_rss_mib": kids.ru_maxrss / 1024,
    }
    os.write(int(os.environ["ROCECONF_BENCH_FD"]), (json.dumps(res) + "\n").encode())
    return 0


def _own_peak_mib() -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _tree_pss_mib(pid: int) -> float | None:
    """The proportional set size of a process and its descendants (shared pages counted once in all), or None
    where /proc does not tell it."""
    total, todo, seen = 0, [pid], 0
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/smaps_rollup", encoding="ascii") as fh:
                total += next(int(x.split()[1]) for x in fh if x.startswith("Pss:"))
            seen += 1
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except (OSError, StopIteration, ValueError):
            continue
    return total / 1024 if seen else None


def run_phase(argv: list[str], procs: int = 1) -> dict:
    r, w = os.pipe()
    env = dict(os.environ, ROCECONF_BENCH_FD=str(w))
    err = tempfile.TemporaryFile(mode="w+")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=err,
        pass_fds=(w,),
    )
    # the memory of the command and its workers together, sampled while it runs
    pss = 0.0
    while proc.poll() is None:
        pss = max(pss, _tree_pss_mib(proc.pid) or 0.0)
        time.sleep(0.1)
    outer = time.perf_counter() - t0
    err.seek(0)
    stderr = err.read()
    err.close()
    os.close(w)
    with os.fdopen(r) as fh:
        data = fh.read().strip()
    if proc.returncode or not data:
        raise SystemExit(f"{' '.join(argv)} failed: {stderr[-2000:]}")
    res = json.loads(data)
    res["outer"] = outer
    res["pss_mib"] = pss
    # forked workers: their RSS counts the pages they share with the parent again (parent + workers is an
    # upper bound); the sampled PSS of the whole tree counts shared pages once (a peak between two samples
    # 0.1 s apart is missed): the peak judged is the larger of that and the parent's own exact peak
    res["upper_mib"] = res["rss_mib"] + procs * res["child_rss_mib"]
    res["peak_mib"] = max(res["rss_mib"], pss) if procs > 1 else res["rss_mib"]
    return res


def fabric_files(which: str, tmp: Path) -> tuple[Path, Path]:
    """The intent and its one-knob change (ECN max of class roce lowered)."""
    if which in ("pod", "lab"):
        text = (POD if which == "pod" else LAB).read_text(encoding="utf-8")
    else:  # "32k", "4k-distinct", ...: bench/fabricgen.py at that scale
        from bench.fabricgen import scaled

        scale, _, kind = which.partition("-")
        text = scaled(scale, distinct_devices=kind == "distinct")
    old = tmp / f"{which}.yml"
    new = tmp / f"{which}-new.yml"
    old.write_text(text, encoding="utf-8")
    assert "max: 1500KB" in text
    new.write_text(text.replace("max: 1500KB", "max: 1200KB", 1), encoding="utf-8")
    return old, new


def health_findings(text: str) -> set[tuple[str, str, str, int]]:
    """(device, port, rule, priority) of every finding row of a health text report."""
    import re

    found, device = set(), ""
    for line in text.splitlines():
        if line.startswith("FINDINGS  "):
            device = line.split()[1]
        m = re.match(r"(critical|warning|info)\s+(RC\d+)\s+(\S+)\s+(\S+)\s", line)
        if m and device:
            found.add((device, m.group(3), m.group(2), int(m.group(4)) if m.group(4).isdigit() else -1))
    return found


def bench_fabric(which: str, repeat: int, only: set[str] | None = None) -> dict[str, dict]:
    from bench.drift_faults import EXPECTED_32K, decorated, drifted_items, faulted_configs, write_configs
    from bench.health_counters import (
        compare_with_reference,
        expected_findings,
        sample_devices,
        write_saved_counters,
    )
    from roceconf.intent import load

    def wanted(label: str) -> bool:
        return only is None or label in only

    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix=f"roceconf-scale-{which}-") as d:
        tmp = Path(d)
        old, new = fabric_files(which, tmp)
        fab = load(old)
        faults: list = []
        if wanted("drift --configs"):
            files, faults = faulted_configs(fab)
            if which.endswith("-distinct"):  # running configs that differ by descriptions and addresses too
                files = decorated(fab, files)
            write_configs(files, tmp / "faulted")
            del files
        health_expected: set = set()
        if wanted("health --counters"):
            t0 = time.perf_counter()
            size = write_saved_counters(fab, tmp / "counters")
            health_expected = expected_findings(fab)
            print(f"saved counters: {size / 1e6:.0f} MB written in {time.perf_counter() - t0:.1f} s")
        ndev, nlinks = len(fab.devices), len(fab.links)
        nitf = sum(len(x.ports) for x in fab.devices.values())
        del fab
        procs = min(8, os.cpu_count() or 1)
        print(f"\n== {which}: {ndev} devices, {nlinks} links, {nitf} interfaces; faults: {faults}")
        if which == "32k" and (ndev, nlinks) != (5696, 51200):
            raise SystemExit(f"the 32k fabric is {ndev} devices, {nlinks} links: not 5,696 and 51,200")

        def phase(label: str, argv: list[str], fresh_dir: Path | None = None, n: int = repeat, p: int = 1):
            if not wanted(label):
                return
            runs = []
            for _ in range(n):
                if fresh_dir is not None:
                    subprocess.run(["rm", "-rf", str(fresh_dir)], check=True)
                runs.append(run_phase(argv, p))
            wall = statistics.median(r["outer"] for r in runs)
            res = {
                "wall": wall,
                "all": [round(r["outer"], 2) for r in runs],
                "cpu": statistics.median(r["cpu"] for r in runs),
                "peak_mib": max(r["peak_mib"] for r in runs),
                "rc": runs[-1]["rc"],
                "devices": ndev,
                "pss_mib": max(r["pss_mib"] for r in runs),
                "parent_mib": max(r["rss_mib"] for r in runs),
                "worker_mib": max(r["child_rss_mib"] for r in runs),
            }
            out[label] = res
            budget = BUDGETS.get(which, {}).get(label)
            mem = MEM_BUDGET.get(which, {}).get(label)
            verdict = ""
            if budget is not None:
                verdict = (
                    f"; budget < {budget:g} s: wall {'OK' if wall < budget else 'MISSED'} ({wall / budget:.2f}), "
                    f"CPU {'OK' if res['cpu'] < budget else 'MISSED'} ({res['cpu'] / budget:.2f})"
                )
            if mem is not None:
                verdict += f"; memory < {mem:g} MiB: {'OK' if res['peak_mib'] < mem else 'MISSED'}"
            if p > 1:  # forked workers share the parent's pages at first: their RSS counts those again
                verdict += (f" (sampled PSS of the command and its workers {res['pss_mib']:.0f} MiB; RSS: parent "
                            f"{res['parent_mib']:.0f} MiB + {p} x largest worker {res['worker_mib']:.0f} MiB)")
            print(
                f"  {label:20s} median {wall:6.2f} s (runs {', '.join(map(str, res['all']))}), CPU {res['cpu']:6.2f} s, "
                f"peak {res['peak_mib']:6.0f} MiB, {ndev / wall:7.0f} devices/s, exit {res['rc']}{verdict}",
                flush=True,
            )

        phase("validate", ["validate", str(old)])
        rdir = tmp / "rendered"
        phase("render (fresh)", ["render", str(old), "-o", str(rdir)], fresh_dir=rdir)
        phase("render (unchanged)", ["render", str(old), "-o", str(rdir)])
        phase("check", ["check", str(old)])
        phase(
            "plan (one knob)",
            ["plan", str(old), str(new), "--format", "json", "--output", str(tmp / "p.json")],
        )
        report = tmp / "drift.json"
        argv = [
            "drift",
            str(old),
            "--configs",
            str(tmp / "faulted"),
            "--format",
            "json",
            "--output",
            str(report),
        ]
        big = which.split("-")[0] in ("16k", "32k", "64k")
        phase("drift --configs", argv, n=1 if big else repeat, p=procs)
        if wanted("drift --configs"):
            # no report (the audit failed, e.g. the intent did not validate): nothing found, which is wrong
            items = drifted_items(json.loads(report.read_text())) if report.is_file() else {}
            found = set(items)
            print(
                f"  drift found {sorted(found)}: {'the 5 injected faults' if found == set(faults) else 'WRONG'}"
            )
            ok = found == set(faults)
            if which == "32k":
                # correctness: the fields and severities the reference audit (one DeepDiff per device) found
                same = items == EXPECTED_32K
                print(f"  drift items at 32k: {'as the reference audit found' if same else f'WRONG: {items}'}")
                ok &= same
            out["drift --configs"]["ok"] = ok
        health = tmp / "health.txt"
        phase("health --counters", ["health", str(old), "--counters", str(tmp / "counters"), "--output", str(health)],
              n=1 if big else repeat, p=procs)
        if wanted("health --counters"):
            found = health_findings(health.read_text(encoding="utf-8"))
            ok = found == health_expected
            print(f"  health found {len(found)} finding(s): "
                  f"{'the injected faults' if ok else f'WRONG: {sorted(found ^ health_expected)[:6]}'}")
            # correctness: the command's path (one device at a time, packed, forked workers) against the
            # reference path on a sample of devices, both reports byte for byte
            fab = load(old)
            names = sample_devices(fab, 120)
            t0 = time.perf_counter()
            problems = compare_with_reference(fab, tmp / "counters", names, workers=procs)
            print(f"  health on {len(names)} sampled devices: "
                  f"{'equal to the reference path' if not problems else 'WRONG: ' + '; '.join(problems)} "
                  f"({time.perf_counter() - t0:.1f} s)")
            out["health --counters"]["ok"] = ok and not problems
            del fab
    return out


def growth_table(res: dict[str, dict[str, dict]]) -> str:
    """The phases by fabric (Markdown): wall / CPU seconds and peak MiB, with the device count."""
    cols = list(res)
    head = "| phase | " + " | ".join(f"{c} ({next(iter(res[c].values()))['devices']} devices)" for c in cols)
    lines = ["", "growth (wall s / CPU s / peak MiB):", head + " |", "|---" * (len(cols) + 1) + "|"]
    for label in res[cols[0]]:
        cells = [
            f"{r['wall']:.2f} / {r['cpu']:.2f} / {r['peak_mib']:.0f}" if (r := res[c].get(label)) else "-"
            for c in cols
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabric", choices=["pod", "32k", "both"], default="both")
    ap.add_argument(
        "--scale",
        action="append",
        choices=["1k", "4k", "16k", "32k", "64k"],
        help="the three-tier fabric with this many GPUs instead of --fabric (repeatable: a growth table)",
    )
    ap.add_argument(
        "--distinct",
        action="store_true",
        help="also the fabric of the same size whose devices all differ (bench/fabricgen.py `distinct`)",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", action="append", choices=list(_PHASES), help="just this phase (repeatable)")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="every phase once on the lab intent and the 1k distinct fabric, no budget",
    )
    args = ap.parse_args()
    # an installed roceconf has its bytecode compiled at install time; a checkout run with
    # PYTHONDONTWRITEBYTECODE would compile every module again in each phase and time that instead
    import compileall

    compileall.compile_dir(str(ROOT / "roceconf"), quiet=2)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    res = {}
    if args.quick:  # the lab, and the smallest fabric whose devices differ (its releases, seeds, populations)
        fabrics: tuple[str, ...] = ("lab", "1k-distinct")
    elif args.scale:
        fabrics = tuple(f"{s}{k}" for s in args.scale for k in ("", "-distinct")[: 1 + args.distinct])
    else:
        fabrics = ("pod", "32k") if args.fabric == "both" else (args.fabric,)
        fabrics += tuple(f"{f}-distinct" for f in fabrics if args.distinct and f == "32k")
    for which in fabrics:
        res[which] = bench_fabric(which, 1 if args.quick else args.repeat, set(args.only) if args.only else None)
    wrong = [
        f"{which} {label}: " + ("exit " + str(r["rc"]) if r["rc"] != EXIT.get(label, 0) else "wrong devices")
        for which, phases in res.items()
        for label, r in phases.items()
        if r["rc"] != EXIT.get(label, 0) or not r.get("ok", True)
    ]
    missed = [
        f"{which} {label}"
        for which, phases in res.items()
        for label, r in phases.items()
        if r["wall"] >= BUDGETS.get(which, {}).get(label, float("inf"))
        or r["peak_mib"] >= MEM_BUDGET.get(which, {}).get(label, float("inf"))
    ]
    if "pod" in res and "32k" in res:
        ratio = res["32k"]["validate"]["devices"] / res["pod"]["validate"]["devices"]
        print(f"\ngrowth pod -> 32k ({ratio:.1f}x devices):")
        for label in res["pod"]:
            if label not in res["32k"]:
                continue
            t = res["32k"][label]["wall"] / res["pod"][label]["wall"]
            m = res["32k"][label]["peak_mib"] / res["pod"][label]["peak_mib"]
            print(f"  {label:20s} time x{t:5.1f}, peak memory x{m:4.1f} (linear would be x{ratio:.1f})")
    if len(res) > 1:
        print(growth_table(res))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.quick:
        print(f"budgets: {'OK' if not missed else 'MISSED: ' + ', '.join(missed)}")
    print(f"correct: {'yes' if not wrong else 'WRONG: ' + '; '.join(wrong)}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
