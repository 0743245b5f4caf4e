"""Render benchmarks (issue: render configs for five switch platforms and three NIC families).

1. The realistic pod (inventories/pod/intent.yml): all switches and hosts; prints devices/s. Target: < 10 s.
2. EOS render per device vs pyavd's get_device_config for equal content (64 interfaces with trust, PFC no-drop,
   ECN, scheduling, MTU, DSCP map, watchdog and timers, hash fields): both texts are parsed with roceconf's
   EOS parser and must give the same state. Target: roceconf >= 5x faster. Needs pyavd (test/bench extra).
3. A generated 32,768-GPU fabric (4,096 hosts x 8 NICs, 1,024 leaves, 512 spines): validate and render into a
   directory, in a child process, with its peak memory. Target: < 60 s and < 2 GiB.

Correctness: every device is rendered, and pyavd's text and roceconf's parse to the same state. A wrong result
fails (exit 1); the targets are printed (OK / MISSED), the machine may be shared. `--quick`: the lab intent,
the pyavd comparison with a few rounds, no 32k fabric (the correctness checks, as the test suite runs them:
tests/test_bench_quick.py).

Run: .venv/bin/python bench/bench_render.py [--no-big] [--quick]
"""

from __future__ import annotations

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
sys.path.insert(0, str(ROOT / "bench"))


def bench_pod(which: str = "pod") -> float:
    from roceconf.compile import load_valid, output_name, render_fabric, write_outputs

    t0 = time.perf_counter()
    fab = load_valid(ROOT / "inventories" / which / "intent.yml")
    files = render_fabric(fab)
    with tempfile.TemporaryDirectory() as d:
        write_outputs(files, d)
        written = sorted(p.name for p in Path(d).iterdir())
    dt = time.perf_counter() - t0
    target = "" if which != "pod" else f" (target < 10 s: {'OK' if dt < 10 else 'MISSED'}, {10 / dt:.1f}x headroom)"
    print(f"{which}: {len(files)} devices validated+rendered+written in {dt:.2f} s = {len(files) / dt:.0f} devices/s{target}")
    want = sorted(output_name(n, dev.platform) for n, dev in fab.devices.items())
    assert written == want and all(files.values()), f"rendered {len(written)} files for {len(want)} devices"
    return dt


def eos_state_64():
    from roceconf.intent import load_text
    from roceconf.intent.desired import desired_state

    intent = (ROOT / "inventories" / "lab" / "intent.yml").read_text()
    intent = intent.replace(
        "{name: Ethernet1-2, speed: 400G, role: host}", "{name: Ethernet1-62, speed: 400G, role: host}", 1
    )
    intent = intent.replace(
        "{name: Ethernet49-50, speed: 400G, role: fabric}",
        "{name: Ethernet63-64, speed: 400G, role: fabric}",
        1,
    )
    intent = intent.replace('"leaf1:Ethernet49"', '"leaf1:Ethernet63"').replace(
        '"leaf1:Ethernet50"', '"leaf1:Ethernet64"'
    )
    fab = load_text(intent, "bench-intent.yml")
    st = desired_state(fab.devices["leaf1"])
    assert len(st.interfaces) == 64, len(st.interfaces)
    return st


def avd_structured_config(st) -> dict:
    """The same content as an AVD structured config (eos_cli_config_gen input): the converter the pyavd
    conformance test uses (roceconf/platforms/eos/avd.py), plus AVD's `eos_cli` raw passthrough for what its
    schema has no key for (the ECMP hash fields line), so both sides carry the whole state."""
    from roceconf.platforms.eos.avd import structured_config

    return structured_config(st, passthrough=True)


def same_content(ours: str, theirs: str) -> dict:
    """Both texts parsed with roceconf's EOS parser must give the same state (every semantic field: DSCP map,
    trust, PFC and no-drop, watchdog and its timers, ECN, scheduling, MTU per port, hash fields); returns it."""
    from roceconf.platforms.eos.parser import parse

    a, b = parse(ours), parse(theirs)
    sa, sb = a.semantic(), b.semantic()
    assert sa == sb, f"pyavd's text parses to another state than roceconf's: {_first_difference(sa, sb)}"
    assert not [w.message for w in b.warnings if w.code != "UNUSED"], b.warnings
    return sa


def _first_difference(a: object, b: object, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}")
    return f"{path or '(root)'}: {a!r} vs {b!r}"


def _timeit(fn, n: int) -> float:
    fn()  # warm
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def bench_vs_pyavd(rounds: int = 50) -> float | None:
    from roceconf.render import render_state

    st = eos_state_64()
    ours = _timeit(lambda: render_state(st), rounds)
    print(f"roceconf EOS render, 64 interfaces: {ours * 1000:.2f} ms per device")
    try:
        import pyavd
    except ImportError:
        print("pyavd not installed: `pip install -e '.[bench]'` to compare (optional bench extra)")
        return None
    sc = avd_structured_config(st)
    text = pyavd.get_device_config(sc)
    state = same_content(render_state(st), text)
    itfs = state["interfaces"]
    assert len(itfs) == 64 and state["pfc_watchdog"]["detection_ms"] and state["ecmp"]["fields"], state
    print(
        f"same content: both texts parse to one state ({len(itfs)} interfaces, {len(state['dscp_to_tc'])} DSCPs, "
        f"watchdog {state['pfc_watchdog']['detection_ms']}/{state['pfc_watchdog']['restoration_ms']}/"
        f"{state['pfc_watchdog']['polling_ms']} ms, hash fields {', '.join(state['ecmp']['fields'])})"
    )
    theirs = _timeit(lambda: pyavd.get_device_config(sc), max(1, rounds // 5))
    ratio = theirs / ours
    print(
        f"pyavd {getattr(pyavd, '__version__', '?')} get_device_config, same content: {theirs * 1000:.2f} ms per device"
    )
    print(f"ratio pyavd/roceconf = {ratio:.1f}x (target >= 5x: {'OK' if ratio >= 5 else 'MISSED'})")
    return ratio


CHILD = r"""
import json, resource, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from fabricgen import big_fabric
from roceconf.compile import load_valid, render_fabric, write_outputs
with tempfile.TemporaryDirectory() as d:
    p = d + "/intent.yml"
    open(p, "w").write(big_fabric())
    t0 = time.perf_counter(); fab = load_valid(p); t1 = time.perf_counter()
    files = render_fabric(fab); write_outputs(files, d + "/out"); t2 = time.perf_counter()
print(json.dumps({"devices": len(fab.devices), "links": len(fab.links), "gpus": sum(len(x.ports) for x in fab.devices.values() if x.is_host),
                  "validate_s": t1 - t0, "render_s": t2 - t1,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bench_big() -> dict:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT / "bench")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    m = json.loads(r.stdout.strip().splitlines()[-1])
    total = m["validate_s"] + m["render_s"]
    print(
        f"32k-GPU fabric: {m['gpus']} GPUs, {m['devices']} devices, {m['links']} links: validate {m['validate_s']:.1f} s, "
        f"render+write {m['render_s']:.1f} s, total {total:.1f} s (target < 60 s: {'OK' if total < 60 else 'MISSED'}); "
        f"peak RSS {m['peak_rss_mib']:.0f} MiB (target < 2048 MiB: {'OK' if m['peak_rss_mib'] < 2048 else 'MISSED'})"
    )
    return m


if __name__ == "__main__":
    quick = "--quick" in sys.argv[1:]
    print(f"cpus: {os.cpu_count()}, python {sys.version.split()[0]}")
    bench_pod("lab" if quick else "pod")
    bench_vs_pyavd(5 if quick else 50)
    if "--no-big" not in sys.argv and not quick:
        bench_big()
    print("correct: yes")  # every check above is an assertion
    _ = resource
