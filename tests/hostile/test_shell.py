"""Hostile values in every generated script (issue 24, item 3): the acceptance script and its NCCL
environment, the connectx / bnxt / linux-dcb host NIC scripts.

Each value (a newline, quotes, ``$()``, backticks, ``;``, ``&``, Unicode line separators, a leading dash, a
heredoc's end marker) must stay one inert shell word: the script passes ``bash -n``, has the same lines,
commands and expansions as the script generated with a plain placeholder, and bash reads each hostile word as
exactly the value (tests/hostile/shellwords.py). Intent validation refuses such names first; these tests go
round it (states and plans built directly) to hold the second line of defence, and once through the CLI with
the one value the intent grammar does not check: the intent's own file name.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roceconf.acceptance import script
from roceconf.acceptance.plan import AcceptancePlan, build_plan
from roceconf.compile import load_valid
from roceconf.desired import desired_states
from roceconf.render import render_state
from roceconf.state import DeviceState
from tests.hostile.harness import LAB, check, run
from tests.hostile.shellwords import check_inert

CANARY = "PWNED"
PIECES = [
    "\n", "\r\n", "'", '"', f"$(touch {CANARY})", f"`touch {CANARY}`", f"; touch {CANARY}", f"& touch {CANARY} &",
    "\u2028", "\u2029", "\u0085", "\x1b[2J", "\t", " ", "-rf", "--", "\\", "$'", "${IFS}", "#", "*", "?",
    "[a]", "{a,b}", "<x", ">y", "|", "!", "~", "=", "é", "\nROCECONF_NCCL_ENV\n", "$HOME", "%s", "\v",
]
ALPHABET = "".join(sorted(set("".join(PIECES)) - {"\x00"}))
hostile = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join),
    st.text(alphabet=ALPHABET, min_size=1, max_size=12),
)
SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _bash_n(text: str, tmp: Path) -> None:
    path = tmp / "script.sh"
    path.write_text(text, encoding="utf-8")
    res = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _swap(obj: Any, swaps: dict[str, str]) -> Any:
    """Every string (and dict key) with each marker replaced (the markers are unique in the data)."""
    if isinstance(obj, str):
        for a, b in swaps.items():
            obj = obj.replace(a, b)
        return obj
    if isinstance(obj, dict):
        return {_swap(k, swaps): _swap(v, swaps) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_swap(v, swaps) for v in obj]
    return obj


@cache
def _lab() -> tuple[dict[str, Any], dict[str, DeviceState]]:
    fab = load_valid(str(LAB))
    return build_plan(fab).to_dict(), desired_states(fab)


# every value of the plan a script carries: a host, an RDMA device, a netdev, a collective, a tool
PLAN_MARKERS = {"gpu1": "gpu1Q0", "mlx5_0": "mlx5_0Q1", "eth0": "eth0Q2", "all_reduce": "all_reduceQ3",
                "ib_write_bw": "ib_write_bwQ4"}


def _plan(base: dict[str, Any], suffixes: list[str], fabric: str, intent: str) -> AcceptancePlan:
    d = _swap(base, PLAN_MARKERS)
    d = _swap(d, {m: m + s for m, s in zip(PLAN_MARKERS.values(), suffixes, strict=True)})
    return AcceptancePlan.from_dict({**d, "fabric": fabric, "intent": intent})


@SETTINGS
@given(st.lists(hostile, min_size=len(PLAN_MARKERS) + 2, max_size=len(PLAN_MARKERS) + 2))
def test_acceptance_scripts_keep_every_value_one_inert_word(tmp_path: Path, values: list[str]) -> None:
    base, _ = _lab()
    n = len(PLAN_MARKERS)
    plain = _plan(base, [""] * n, "fabricQ5", "intentQ6.yml")
    bad = _plan(base, values[:n], values[n], values[n + 1])
    swaps = {m: m + s for m, s in zip(PLAN_MARKERS.values(), values[:n], strict=True)}
    swaps.update({"fabricQ5": values[n], "intentQ6.yml": values[n + 1]})
    for gen in (script.shell, script.nccl_env_script):
        text = gen(bad)
        _bash_n(text, tmp_path)
        assert check_inert(text, gen(plain), swaps, tmp_path) > 0
    assert not (tmp_path / CANARY).exists()


HOSTS = {"gpu2": "connectx", "gpu3": "bnxt", "gpu4": "linux-dcb"}


@pytest.mark.parametrize("host", sorted(HOSTS))
@SETTINGS
@given(values=st.lists(hostile, min_size=4, max_size=4))
def test_host_scripts_keep_every_value_one_inert_word(tmp_path: Path, host: str, values: list[str]) -> None:
    _, states = _lab()
    state = states[host]
    assert state.platform == HOSTS[host]
    rdma = {n: i.rdma.device for n, i in state.interfaces.items() if i.rdma is not None and i.rdma.device}
    dev0 = rdma["eth0"]
    markers = {host: f"{host}Q0", "eth0": "eth0Q1", "eth1": "eth1Q2", dev0: f"{dev0}Q3"}
    plain_data = _swap(state.model_dump(), markers)
    swaps = {m: m + s for m, s in zip(markers.values(), values, strict=True)}
    plain = DeviceState.model_validate(plain_data)
    bad = DeviceState.model_validate(_swap(plain_data, swaps))
    text = render_state(bad)
    _bash_n(text, tmp_path)
    assert check_inert(text, render_state(plain), swaps, tmp_path) > 0
    assert not (tmp_path / CANARY).exists()


NAMES = [
    "x\ntouch PWNED\n.yml",
    "x';touch PWNED;'.yml",
    "x$(touch PWNED).yml",
    "x`touch PWNED`.yml",
    "x\u2028touch PWNED.yml",
    "-x & touch PWNED.yml",
    "x\nROCECONF_NCCL_ENV\ntouch PWNED\n.yml",
]


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_intent_file_name_cannot_inject_into_the_acceptance_script(tmp_path: Path, name: str) -> None:
    shutil.copy(LAB, tmp_path / name)
    shutil.copy(LAB, tmp_path / "plain.yml")
    o = run("acceptance", "plan", "--format", "shell", "--", name, cwd=tmp_path)
    check(o, bad_input=False, rc=0)
    ref = run("acceptance", "plan", "plain.yml", "--format", "shell", cwd=tmp_path)
    _bash_n(o.stdout, tmp_path)
    check_inert(o.stdout, ref.stdout, {"plain.yml": name}, tmp_path)  # the name is in a comment only
    assert o.stdout.count("\n") == ref.stdout.count("\n")
    # and the script really runs without running the name: everything up to the first remote command
    head = o.stdout.split("# --- perftest")[0]
    res = subprocess.run(["bash", "-c", head], cwd=tmp_path, capture_output=True, text=True, timeout=10)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / CANARY).exists(), "the intent's file name ran as a command"
