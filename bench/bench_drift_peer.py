"""Drift per device: roceconf vs netutils `feature_compliance` (Nautobot Golden Config's engine) vs
ciscoconfparse2's `Diff` (hier_config), on the same intended/actual EOS config pairs.

Pairs (64-port EOS leaf, the RoCE QoS roceconf renders; actual = intended with one changed line, the MTU of
Ethernet5):
  per-interface   every port states its own QoS (trust, PFC, queues) in its interface stanza
  1,500 lines     the profile form plus the usual non-RoCE bulk (bench_parse.py's running-config)
  profile-form    a running-config of roceconf's render: one qos profile, per-port `service-profile`
                  (each port inherits ~15 profile fields; the EOS parser records their source lines as
                  one lazy group per port, `roceconf.state.LazySources`: a Source object is built only
                  when a drift item looks its line up, or when the whole state is dumped)

roceconf's cost per device is what `roceconf drift` spends on it: parse the actual config and compare it with
the desired state (built once per shape of identical devices, as an audit does: `wanted()` is not repeated
per device). The peers compare two texts per device. Every round is cold: the memos an audit shares between
devices of one shape (the EOS parse of texts equal outside their hostname line, the walk over shared values,
the rendered fix; see `roceconf.drift.audit.shared_work`) live only inside `audit()`, which this part does
not call, so each round parses and walks the whole config again. Interleaved in one process, medians of
`--repeat` rounds;
ratio = peer time / roceconf time (>= 1.0: roceconf is no slower). Then end to end: `roceconf drift INTENT
--configs DIR --workers 1` over 200 such leaves (roceconf's own renders; once one port's MTU changed on every
leaf, once no-drop lost on every port of every leaf), per device with start-up excluded (each run's CPU time is taken in a fresh process from the
end of the intent's loading on, which is the same whatever the number of devices audited; the same
command on one device is subtracted; the best of `--rounds` runs of each), vs `feature_compliance` over the same 200 intended/actual pairs. There the audit
shares what the leaves of one intent entry have in common: one parse per config equal outside its hostname
line, and one report per shape (`roceconf.drift.audit.Shape`: the items with a placeholder for the device's
name, the fix, the JSON written once and filled in with each device's name, file and duration).

Correctness: every engine finds the one changed line (roceconf: exactly the MTU of Ethernet5; the end to end
runs: drift on every leaf, exit 1). A wrong result fails (exit 1); the ratio target is printed (OK / MISSED).
`--quick`: one round of each pair, 4 leaves end to end, one run each (the correctness checks, as the test
suite runs them: tests/test_bench_quick.py).

Run: .venv/bin/python bench/bench_drift_peer.py [--repeat N] [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

FEATURE = {
    "name": "roce",
    "ordered": False,
    "section": ["qos ", "interface ", "priority-flow-control ", "ip load-sharing "],
}


def _forms() -> dict[str, str]:
    from bench_parse import make_config
    from bench_render import eos_state_64

    from roceconf.render import render_state

    base = render_state(eos_state_64())
    m = re.search(r"^interface Ethernet1-64\n((?:   .*\n)+)!\n", base, re.M)
    assert m, "the EOS render no longer groups the 64 ports in one range"
    body = m.group(1)
    profile = re.search(r"^qos profile (\S+)\n((?:   .*\n)+)!\n", base, re.M)
    assert profile
    pname, pbody = profile.group(1), profile.group(2)
    running = base.replace(m.group(0), "".join(f"interface Ethernet{n}\n{body}!\n" for n in range(1, 65)))
    inline = body.replace(f"   service-profile {pname}\n", "") + pbody
    per_itf = base.replace(profile.group(0), "").replace(
        m.group(0), "".join(f"interface Ethernet{n}\n{inline}!\n" for n in range(1, 65))
    )
    return {"per-interface": per_itf, "1,500 lines": make_config(1, base), "profile-form": running}


def _changed(text: str) -> str:
    """One changed line: Ethernet5's MTU (added where the port's stanza states none)."""
    m = re.search(r"^interface Ethernet5\n((?:   .*\n)*)", text, re.M)
    assert m
    stanza = m.group(0)
    new = (
        stanza.replace("   mtu 9214\n", "   mtu 9000\n")
        if "   mtu 9214\n" in stanza
        else stanza.replace("interface Ethernet5\n", "interface Ethernet5\n   mtu 9000\n")
    )
    return text.replace(stanza, new, 1)


def per_pair(repeat: int) -> list[tuple[str, float]]:
    from netutils.config.compliance import feature_compliance

    from roceconf import platforms
    from roceconf.drift.compare import Policy, compare, wanted

    try:
        from ciscoconfparse2 import Diff
    except ImportError:  # the optional `bench` extra
        Diff = None
    eos = platforms.get("eos")
    policy = Policy(roce_dscp=(26,), cnp_dscp=(48,), roce_priority=3, cnp_priority=6, lossless=(3,))
    out = []
    for label, intended in _forms().items():
        actual = _changed(intended)
        desired = eos.parse(intended)
        # every form carries the same RoCE state
        assert len(desired.interfaces) == 64 and desired.interfaces["Ethernet1"].pfc.no_drop == [3], label
        want = wanted(desired)

        def ours(desired=desired, actual=actual, want=want) -> object:
            return compare(desired, eos.parse(actual), policy, "leaf1", want=want)

        def ntc(actual=actual, intended=intended) -> object:
            return feature_compliance(FEATURE, actual, intended, "arista_eos")

        def ccp(actual=actual, intended=intended) -> object:
            return Diff(intended, actual, syntax="ios").get_diff()

        items = ours()
        assert [i.field for i in items] == ["interfaces.Ethernet5.mtu"], (label, [i.field for i in items])
        assert not ntc()["compliant"]
        runs: dict[str, list[float]] = {"roceconf": [], "feature_compliance": [], "ciscoconfparse2": []}
        fns = {"roceconf": ours, "feature_compliance": ntc, "ciscoconfparse2": ccp if Diff else None}
        for _ in range(repeat):
            for k, fn in fns.items():  # interleaved: the same load on every engine
                if fn is None:
                    continue
                t = time.process_time()
                fn()
                runs[k].append(time.process_time() - t)
        med = {k: statistics.median(v) for k, v in runs.items() if v}
        ratio = med["feature_compliance"] / med["roceconf"]
        line = (
            f"{label:14s} {intended.count(chr(10)):5d} lines: roceconf {med['roceconf'] * 1000:6.2f} ms, "
            f"feature_compliance {med['feature_compliance'] * 1000:6.2f} ms (ratio {ratio:4.2f})"
        )
        if "ciscoconfparse2" in med:
            line += (
                f", ciscoconfparse2 {med['ciscoconfparse2'] * 1000:7.2f} ms "
                f"(ratio {med['ciscoconfparse2'] / med['roceconf']:5.2f})"
            )
        print(line + f"; {1 / med['roceconf']:.0f} devices/s", flush=True)
        out.append((label, ratio))
    return out


LEAVES = """version: 1
fabric: peer200
qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {min: 150KB, max: 1500KB, probability: 100}, scheduling: {mode: dwrr, weight_percent: 50}}
    - {name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {mode: strict}}
    - {name: default, dscp: [0], priority: 0, scheduling: {mode: dwrr, weight_percent: 50}}
  pfc_watchdog: {enabled: true, detection: 200ms, restoration: 400ms, polling: 100ms, action: drop}
mtu: {switch_port: 9214, host_nic: 9000, roce_path: 4096}
ecmp: {fields: [src_ip, dst_ip, src_port, dst_port]}
devices:
  - {name: 'leaf[001-200]', platform: eos, role: leaf, asic: tomahawk4,
     interfaces: [{name: Ethernet1-64, speed: 400G, role: host}]}
"""


def end_to_end(rounds: int = 9, leaves: int = 200) -> list[tuple[str, float]]:
    from netutils.config.compliance import feature_compliance

    from roceconf.compile import load_valid, render_fabric
    from roceconf.intent.desired import desired_states
    from roceconf.render import render_state

    out = []
    with tempfile.TemporaryDirectory(prefix="roceconf-peer-") as d:
        tmp = Path(d)
        intent = tmp / "intent.yml"
        intent.write_text(LEAVES.replace("leaf[001-200]", f"leaf[001-{leaves:03d}]"), encoding="utf-8")
        fab = load_valid(intent)
        intended = render_fabric(fab)
        states = desired_states(fab)

        def mtu(st):
            st.interfaces["Ethernet5"].mtu = 9000

        def no_drop(st):
            for itf in st.interfaces.values():
                itf.pfc.no_drop = []

        for label, fault in (("one port's MTU changed", mtu), ("no-drop lost on every port", no_drop)):
            cfg = tmp / label.replace(" ", "-").replace("'", "")
            cfg.mkdir()
            actual = {}
            for name, st in states.items():
                bad = st.model_copy(deep=True)
                fault(bad)
                actual[f"{name}.cfg"] = render_state(bad)
                (cfg / f"{name}.cfg").write_text(actual[f"{name}.cfg"], encoding="utf-8")

            def drift(*extra: str, cfg: Path = cfg) -> float:
                """CPU seconds of the command in a fresh process, from the end of its intent's loading on:
                the interpreter's start, the imports and the intent's validation are the same for the
                command on one device as on 200 (start-up), left out rather than subtracted so that their
                noise does not swamp tens of ms."""
                argv = ["drift", str(intent), "--configs", str(cfg), "--workers", "1", "--format", "json"]
                r, w = os.pipe()
                proc = subprocess.run(
                    [sys.executable, __file__, "--child", *argv, *extra],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=False,
                    pass_fds=(w,),
                    env=dict(os.environ, ROCECONF_BENCH_FD=str(w)),
                )
                os.close(w)
                with os.fdopen(r) as fh:
                    rc, cpu = fh.read().split()
                assert rc == "1" and proc.stdout.startswith("{"), proc.stderr[-500:]
                return float(cpu)

            # best of `rounds` on both sides: noise (another process, a cold cache) only adds CPU time, and
            # the per-device difference (tens of ms over 200 leaves) is small beside the rest of a run
            all_, one, peers = [], [], []
            for _ in range(rounds):
                all_.append(drift())
                one.append(drift("--device", "leaf001"))
                t = time.process_time()
                res = [feature_compliance(FEATURE, actual[f], intended[f], "arista_eos") for f in intended]
                peers.append((time.process_time() - t) / len(intended))
                assert not any(r["compliant"] for r in res)
            ours = (min(all_) - min(one)) / (len(states) - 1)
            peer = min(peers)
            ratio = peer / ours
            print(
                f"end to end, {len(states)} leaves, {label}: roceconf drift {ours * 1000:.2f} ms/device "
                f"(CPU, start-up excluded), feature_compliance {peer * 1000:.2f} ms/device; ratio {ratio:.2f}",
                flush=True,
            )
            out.append((label, ratio))
    return out


def child(argv: list[str]) -> int:
    """`roceconf ARGV` in this process (its output as the command writes it); the exit status and the CPU
    seconds from the end of the intent's loading on go to the descriptor ROCECONF_BENCH_FD."""
    from roceconf import compile as compile_mod
    from roceconf.cli import main as cli

    load, loaded = compile_mod.load_valid, []

    def timed_load(*args: object, **kwargs: object) -> object:
        fab = load(*args, **kwargs)  # type: ignore[arg-type]
        loaded.append(time.process_time())
        return fab

    compile_mod.load_valid = timed_load  # type: ignore[assignment]
    rc = 0
    try:
        cli.main(argv, prog_name="roceconf", standalone_mode=False)
    except SystemExit as e:
        rc = int(e.code or 0)
    sys.stdout.flush()
    assert len(loaded) == 1, "the command loads the intent once"
    cpu = time.process_time() - loaded[0]
    os.write(int(os.environ["ROCECONF_BENCH_FD"]), f"{rc} {cpu}\n".encode())
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=9, help="end-to-end runs per side (the best counts)")
    ap.add_argument("--quick", action="store_true", help="one round, 4 leaves: the correctness checks only")
    args = ap.parse_args()
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; times are CPU seconds (process_time)"
    )
    if args.quick:
        per_pair(1)
        end_to_end(1, leaves=4)
        print("correct: yes (quick: no target)")
        return 0
    ratios = per_pair(args.repeat) + end_to_end(args.rounds)
    bad = [label for label, r in ratios if r < 1.0]
    print(f"target ratio >= 1.0 in each: {'OK' if not bad else 'MISSED on ' + ', '.join(bad)}")
    print("correct: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
