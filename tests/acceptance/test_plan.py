"""The acceptance plan is derived from the intent: RDMA devices, traffic class and pass marks come from it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roceconf.acceptance import script
from roceconf.acceptance.plan import AcceptancePlan, build_plan, traffic_class
from roceconf.compile import load_valid
from roceconf.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[2]
INTENTS = {"lab": ROOT / "inventories/lab/intent.yml", "pod": ROOT / "inventories/pod/intent.yml"}


@pytest.fixture(scope="module", params=sorted(INTENTS))
def fab_plan(request: pytest.FixtureRequest):
    fab = load_valid(INTENTS[request.param])
    return fab, build_plan(fab)


def _intent_nics(fab) -> dict[str, list[tuple[str, str, int]]]:
    out = {}
    for name, dev in fab.devices.items():
        if not dev.is_host:
            continue
        nics = [(p.name, p.rdma_device, p.speed_gbps) for p in dev.ports.values() if p.qos and p.rdma_device]
        if nics:
            out[name] = sorted(nics)
    return out


def test_plan_names_every_host_and_rdma_device_of_the_intent(fab_plan) -> None:
    fab, plan = fab_plan
    want = _intent_nics(fab)
    assert set(plan.hosts) == set(want)
    for host, nics in plan.hosts.items():
        assert sorted((n.netdev, n.rdma_device, n.speed_gbps) for n in nics) == want[host]
        # NCCL_IB_HCA names exactly the host's RDMA devices (exact-match form, port 1)
        hcas = plan.hca_list(host)
        assert hcas.startswith("=")
        assert sorted(h.split(":")[0] for h in hcas[1:].split(",")) == sorted(d for _, d, _ in want[host])


def test_traffic_class_is_the_roce_dscp_shifted_with_ecn_bits(fab_plan) -> None:
    fab, plan = fab_plan
    roce = next(c for c in fab.base_settings.classes if c.role == "roce")
    assert plan.roce_dscp == roce.dscp[0]
    assert plan.traffic_class >> 2 == roce.dscp[0]
    assert plan.traffic_class & 0b11 == (0b10 if roce.ecn is not None else 0)
    assert traffic_class(26, True) == 106 and traffic_class(26, False) == 104
    with pytest.raises(ValueError):
        traffic_class(64, False)


def test_pass_marks_follow_the_nic_speeds(fab_plan) -> None:
    fab, plan = fab_plan
    th = plan.thresholds
    for c in plan.perftest:
        speed = min(c.server.speed_gbps, c.client.speed_gbps)
        if c.tool == "ib_send_lat":
            assert c.expected_gbps is None and c.latency_bound_us in (th.latency_us_same_leaf, th.latency_us_cross_spine)
        else:
            assert c.expected_gbps == pytest.approx(speed * th.perftest_share)
    for n in plan.nccl:
        node = min(sum(s for _, _, s in nics) for nics in _intent_nics(fab).values()) / 8
        assert n.expected_busbw_gbs == pytest.approx(node / n.gpus_per_node, abs=0.01)
        assert n.threshold_busbw_gbs == pytest.approx(n.expected_busbw_gbs * th.nccl_share[n.collective], abs=0.01)


def test_pairs_cover_every_nic_on_shared_leaves_and_cross_the_spine(fab_plan) -> None:
    fab, plan = fab_plan
    nics = [n for ns in plan.hosts.values() for n in ns]
    leaves: dict[str, set[str]] = {}
    for n in nics:
        leaves.setdefault(n.leaf, set()).add(f"{n.host}:{n.netdev}")
    same = {(c.server.host, c.server.netdev) for c in plan.perftest if c.scope == "same-leaf"}
    same |= {(c.client.host, c.client.netdev) for c in plan.perftest if c.scope == "same-leaf"}
    for n in nics:
        if len(leaves[n.leaf]) > 1:
            assert (n.host, n.netdev) in same, f"{n.host}:{n.netdev} on {n.leaf} is in no same-leaf pair"
    for c in plan.perftest:
        if c.scope == "same-leaf":
            assert c.server.leaf == c.client.leaf and c.server.host != c.client.host
        else:
            assert c.server.leaf != c.client.leaf and c.server.rail == c.client.rail
    if len(leaves) > 1:
        assert any(c.scope == "cross-spine" for c in plan.perftest)


def test_json_round_trip(fab_plan) -> None:
    _, plan = fab_plan
    again = AcceptancePlan.from_dict(json.loads(json.dumps(plan.to_dict())))
    assert again.to_dict() == plan.to_dict()


#: a line the script repeats for each perftest case and size; a shell word as shell_quote writes it
_REPEATED = re.compile(r"run_perftest ")
_WORD = re.compile(r"'[^']*'|[\w@%+=:,./-]+")


def one_line_of_each_form(text: str) -> str:
    """The script with its per-case lines (``run_perftest ...``) kept once per form: a line that differs from
    a kept one only in its plain or single-quoted words (other ids, hosts, devices, interfaces, sizes) is
    left out; every other line (the functions, the loops, the NCCL part) is kept as it is."""
    seen: set[str] = set()
    out = []
    for line in text.splitlines():
        if _REPEATED.match(line):
            form = _WORD.sub("W", line)
            if form in seen:
                continue
            seen.add(form)
        out.append(line)
    return "\n".join(out) + "\n"


def test_one_line_of_each_form_keeps_each_form_once() -> None:
    text = "f() { :; }\nrun_perftest a b 1\nrun_perftest c d 2\nrun_perftest 'x y' d 3\nrun_perftest a \"$b\" 1\ndone\ndone\n"
    assert one_line_of_each_form(text) == (
        "f() { :; }\nrun_perftest a b 1\nrun_perftest a \"$b\" 1\ndone\ndone\n"
    )


def test_shell_form_is_valid_bash_and_shellcheck_clean(fab_plan, tmp_path: Path) -> None:
    fab, plan = fab_plan
    path = tmp_path / "plan.sh"
    path.write_text(script.shell(plan))
    assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0
    sc = shutil.which("shellcheck")
    assert sc, "shellcheck is missing: `make setup` installs it (debian-packages.txt)"
    # the pod's script is 4.4 MB: 27,000 perftest runs of a few forms. shellcheck reads the whole script
    # with each form of run line once (minutes less); the lab's script is checked whole
    checked = tmp_path / "checked.sh"
    checked.write_text(path.read_text() if plan.fabric == "lab" else one_line_of_each_form(path.read_text()))
    res = subprocess.run([sc, "-s", "bash", str(checked)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    env = tmp_path / "env.sh"
    env.write_text(script.nccl_env_script(plan))
    res = subprocess.run([sc, "-s", "bash", str(env)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout
    text = path.read_text()
    # the traffic class and every RDMA device of the intent reach the commands
    assert f"-T {plan.traffic_class}" in text
    for nics in plan.hosts.values():
        for n in nics:
            assert f" {n.rdma_device} " in text


def test_hosts_filter_and_errors(tmp_path: Path) -> None:
    fab = load_valid(INTENTS["lab"])
    plan = build_plan(fab, hosts="gpu[12]")
    assert set(plan.hosts) == {"gpu1", "gpu2"}
    one = build_plan(fab, hosts="gpu1")
    assert not one.nccl and any("one host" in n for n in one.notes)
    with pytest.raises(DiagnosticError) as e:
        build_plan(fab, hosts="nothing*")
    assert "no host with RDMA devices matches" in str(e.value.diagnostics[0].message)


def test_cli_formats_and_bad_input(tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "roceconf.cli"]
    for fmt in ("text", "json", "yaml", "markdown", "shell"):
        res = subprocess.run(exe + ["acceptance", "plan", str(INTENTS["lab"]), "--format", fmt],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        assert "106" in res.stdout
    res = subprocess.run(exe + ["acceptance", "plan", str(INTENTS["lab"]), "--hosts", "zzz*"],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "RC409" in res.stderr
