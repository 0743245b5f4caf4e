"""ConnectX: every ``mlnx_qos`` command of the rendered scripts is accepted by NVIDIA's own script.

The real ``mlnx_qos`` (``../shared/vendor-models/mlnx-tools``) runs in-process with its netlink controller
replaced by an in-memory DCB port (``mlnx_qos_oracle.py``), so all of its option and value checks run
unchanged. Run in order, a script's commands must leave the port with exactly the state roceconf meant
(DSCP map, PFC bits, priority -> TC, TSA, bandwidth). roceconf's own restatement of those checks
(``roceconf.platforms.connectx.grammar``, which the loopback lab uses) must give the same verdict on the
rendered commands and on the broken ones below.
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings

from roceconf.platforms.connectx import grammar
from roceconf.render import render_state
from roceconf.state import DeviceState
from tests.conformance.mlnx_qos_oracle import MlnxQos
from tests.conformance.sources import intent_states
from tests.conformance.vendor import require
from tests.platforms.test_linux_dcb import host_state

pytestmark = pytest.mark.xdist_group("conformance-mlnx-qos")
COUNT = {"commands": 0, "scripts": 0, "negatives": 0}

#: Broken mlnx_qos commands: each is refused by the real script (and so must be by the lab).
NEGATIVES = [
    "mlnx_qos -i eth0 --pfcx 1",  # no such option
    "mlnx_qos -i eth0 --p 0,0,0,1,0,0,0,0",  # ambiguous prefix (--pfc, --prio_tc, --prio2buffer)
    "mlnx_qos -i eth0 --pfc 0,0,0,2,0,0,0,0",  # PFC bit 2
    "mlnx_qos -i eth0 --pfc 0,0,0,1",  # 4 items
    "mlnx_qos -i eth0 --dscp2prio set,64,3",  # DSCP 64
    "mlnx_qos -i eth0 --dscp2prio set,26,8",  # priority 8
    "mlnx_qos -i eth0 --trust dscp --dscp2prio set,26,3",  # not in one call
    "mlnx_qos -i eth0 --trust ip",  # trust pcp|dscp only
    "mlnx_qos -i eth0 --tsa ets,fair,strict,ets,strict,strict,strict,strict",  # no TSA 'fair'
    "mlnx_qos -i eth0 --tsa ets,strict,strict,ets,strict,strict,strict,strict --tcbw 50,10,0,40,0,0,0,0",
    "mlnx_qos -i eth0 --prio_tc 0,0,0,8,0,0,6,0",  # TC 8
    "mlnx_qos --pfc 0,0,0,1,0,0,0,0",  # no interface
]


@pytest.fixture(scope="module")
def oracle() -> MlnxQos:
    return MlnxQos(require("mlnx-tools"))


def _expected(state: DeviceState, name: str) -> dict:
    itf = state.interfaces[name]
    m = itf.dscp_to_tc if itf.dscp_to_tc is not None else state.dscp_to_tc
    return {
        "dscp": {int(d): {p} for d, p in m.items()} if itf.trust == "dscp" else None,
        "pfc": sum(1 << p for p in itf.pfc.no_drop) if itf.pfc.no_drop is not None else None,
    }


def _run_script(oracle: MlnxQos, state: DeviceState, label: str) -> None:
    text = render_state(state)
    oracle.devices.clear()
    cmds = grammar.commands_in_script(text)
    for n, argv in cmds:
        res = oracle.run(argv)
        assert res.accepted, (
            f"{label} line {n}: mlnx_qos refuses {' '.join(argv)!r}: {res.stdout}{res.stderr}"
        )
        grammar.check(argv)  # roceconf's restatement agrees
        COUNT["commands"] += 1
    COUNT["scripts"] += 1
    for name, itf in state.interfaces.items():
        dev = oracle.devices.get(name)
        if dev is None:
            continue
        want = _expected(state, name)
        if want["dscp"] is not None and itf.trust is not None:
            assert dev.dscp_map() == want["dscp"], f"{label} {name}: DSCP table after the script"
        if want["pfc"] is not None and any("--pfc" in a for _, a in cmds):
            assert dev.pfc_en == want["pfc"], f"{label} {name}: PFC bits after the script"
        if itf.scheduling and any("--prio_tc" in a for _, a in cmds):
            for key, sch in itf.scheduling.items():
                tc = dev.prio_tc[int(key)]
                assert dev.tsa[tc] == (2 if sch.mode == "dwrr" else 0), f"{label} {name}: TSA of TC {tc}"
                if sch.mode == "dwrr" and sch.bandwidth_percent is not None:
                    assert dev.tc_bw[tc] == sch.bandwidth_percent, f"{label} {name}: bandwidth of TC {tc}"


def test_intent_scripts_are_accepted_by_mlnx_qos(oracle: MlnxQos, capsys) -> None:
    seen: set[tuple[str, ...]] = set()
    for label, state in intent_states("connectx"):
        # pod hosts differ only by name: check each distinct set of commands once
        key = tuple(" ".join(a) for _, a in grammar.commands_in_script(render_state(state)))
        if key in seen:
            continue
        seen.add(key)
        before = COUNT["commands"]
        _run_script(oracle, state, label)
        COUNT["intent_commands"] = COUNT.get("intent_commands", 0) + COUNT["commands"] - before
    assert len(seen) >= 2
    with capsys.disabled():
        print(
            f"\nmlnx_qos: {COUNT['intent_commands']} commands of {len(seen)} distinct rendered scripts "
            "(lab, pod, test intents) accepted by NVIDIA's mlnx_qos, leaving the intended DCB state"
        )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=host_state("connectx"))
def test_generated_scripts_are_accepted_by_mlnx_qos(state: DeviceState) -> None:
    _run_script(_ORACLE(), state, "generated")


@pytest.mark.parametrize("line", NEGATIVES)
def test_broken_commands_are_refused_by_mlnx_qos_and_by_roceconf(oracle: MlnxQos, line: str) -> None:
    oracle.devices.clear()
    res = oracle.run(shlex.split(line))
    assert not res.accepted, f"mlnx_qos accepts {line!r}"
    with pytest.raises(grammar.Refused) as exc:
        grammar.check(shlex.split(line))
    assert exc.value.code == res.rc, (line, exc.value.code, res.rc)
    first = (res.stdout + res.stderr).strip().splitlines()
    first = [ln for ln in first if not ln.startswith("Buffers commands")]
    if first:  # same first line as the real tool (when it prints one)
        assert str(exc.value).splitlines()[0] == first[0], (str(exc.value), first)
    COUNT["negatives"] += 1


_CACHE: list[MlnxQos] = []


def _ORACLE() -> MlnxQos:  # noqa: N802 - hypothesis tests cannot take a module fixture
    if not _CACHE:
        _CACHE.append(MlnxQos(require("mlnx-tools")))
    return _CACHE[0]
