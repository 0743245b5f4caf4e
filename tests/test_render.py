"""Rendering the lab example: golden files, determinism, --check, atomic writes, render->parse round trip."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from roceconf import compile as comp
from roceconf import platforms
from roceconf.cli import main
from roceconf.intent import load
from roceconf.intent.desired import desired_states, expressible
from roceconf.intent.unexpressed import device_losses, differences
from roceconf.outdir import read_manifest
from roceconf.render import render_state

ROOT = Path(__file__).parent.parent
LAB = ROOT / "inventories" / "lab" / "intent.yml"
GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def lab_files() -> dict[str, str]:
    return comp.render_fabric(comp.load_valid(LAB))


def test_lab_covers_every_platform(lab_files: dict[str, str]) -> None:
    fab = load(LAB)
    assert {d.platform for d in fab.devices.values()} == set(platforms.NAMES)
    assert len(lab_files) == len(fab.devices)


def test_golden_files_match(lab_files: dict[str, str]) -> None:
    """Regenerate with `make golden` (roceconf render inventories/lab/intent.yml -o tests/golden)."""
    on_disk = {p.name: p.read_text() for p in GOLDEN.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert set(on_disk) == set(lab_files)
    for name, text in lab_files.items():
        assert on_disk[name] == text, (
            f"{name} differs from the golden file; run `make golden` and review the diff"
        )


def test_render_is_deterministic() -> None:
    a = comp.render_fabric(comp.load_valid(LAB))
    b = comp.render_fabric(comp.load_valid(LAB))
    assert a == b


def test_every_lab_device_round_trips() -> None:
    """parse(render(desired)) == desired for each lab device as far as its platform's syntax carries it.

    What a platform cannot carry (DCQCN/CNP on the generic `dcb` host, a watchdog restoration time on
    NVUE, which restores after one polling interval) is not audited there, and it is reported by
    validation (RC150, roceconf.intent.unexpressed) - never lost silently."""
    fab = load(LAB)
    for name, state in desired_states(fab).items():
        plat = platforms.get(state.platform)
        parsed = plat.parse(render_state(state))
        assert not parsed.warnings, (name, parsed.warnings)
        exp = expressible(state)
        assert parsed.semantic() == exp.semantic(), name
        reported = {x.field for x in device_losses(fab.devices[name])}
        for path, want, got in differences(state, exp):
            parts = path.split(".")
            if parts[0] == "interfaces":
                parts[1] = "*"
            assert ".".join(parts) in reported, f"{name}: {path} {want!r} -> {got!r} lost silently"
        if state.platform == "linux-dcb":
            for itf in exp.interfaces.values():
                assert itf.rdma is not None and itf.rdma.roce_tos == 104 and itf.rdma.cnp_dscp is None


def test_desired_state_carries_the_intent() -> None:
    states = desired_states(load(LAB))
    leaf = states["leaf1"]
    # every DSCP has a home on EOS: the intent names 0, 26 and 48, the default class (0) takes the rest
    assert leaf.dscp_to_tc == {str(d): {26: 3, 48: 6}.get(d, 0) for d in range(64)}
    # ... and every queue the intent does not use below the strict CNP queue is round robin, not EOS's
    # strict-priority default; queue 7 is not stated (round robin there would demote CNP queue 6)
    sched = leaf.interfaces["Ethernet1"].scheduling
    assert {tc: s.mode for tc, s in sched.items()} == {
        "0": "dwrr", "1": "dwrr", "2": "dwrr", "3": "dwrr", "4": "dwrr", "5": "dwrr", "6": "strict"
    }  # fmt: skip
    # ... on every platform (NX-OS: explicit matches instead of the implicit class-default)
    for name in ("spine1", "spine2", "leaf2", "leaf3", "gpu1", "gpu3", "gpu4"):
        assert states[name].dscp_to_tc == leaf.dscp_to_tc, name
    nq = states["spine1"].interfaces["Ethernet1/1"].scheduling
    # NX-OS states queue 7 round robin too (no demotion rule there)
    assert {tc: s.mode for tc, s in nq.items()} == {**{tc: s.mode for tc, s in sched.items()}, "7": "dwrr"}
    port = leaf.interfaces["Ethernet1"]
    assert port.pfc.enabled and port.pfc.no_drop == [3]
    assert port.ecn["3"].min_bytes == 150_000 and port.ecn["3"].max_bytes == 1_500_000
    assert port.scheduling["6"].mode == "strict"
    assert port.mtu == 9214
    assert leaf.ecmp.fields is not None and "src_port" in leaf.ecmp.fields
    host = states["gpu1"].interfaces["eth0"]
    assert host.rdma is not None and host.rdma.roce_tos == 26 << 2 and host.rdma.cnp_dscp == 48
    assert host.rdma.device == "mlx5_0" and host.rdma.dcqcn_rp == [3]
    assert host.mtu == 9000 and host.link_pause is False


def _write_intent(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "intent.yml"
    p.write_text(text)
    return p


def test_render_check_detects_changes(tmp_path: Path) -> None:
    intent = _write_intent(tmp_path, LAB.read_text())
    out = tmp_path / "out"
    r = CliRunner()
    assert r.invoke(main, ["render", str(intent), "-o", str(out)]).exit_code == 0
    res = r.invoke(main, ["render", str(intent), "-o", str(out), "--check"])
    assert res.exit_code == 0, res.output
    # an intent change that alters output -> stale
    intent.write_text(LAB.read_text().replace("max: 1500KB", "max: 1200KB"))
    res = r.invoke(main, ["render", str(intent), "-o", str(out), "--check"])
    assert res.exit_code == 1
    assert "stale:" in res.output and "leaf1.cfg" in res.output
    # a pure comment change does not
    intent.write_text(LAB.read_text() + "\n# a comment\n")
    assert r.invoke(main, ["render", str(intent), "-o", str(out), "--check"]).exit_code == 0
    # missing and unexpected files
    (out / "leaf1.cfg").unlink()
    (out / "old-switch.cfg").write_text("x")
    res = r.invoke(main, ["render", str(intent), "-o", str(out), "--check"])
    assert res.exit_code == 1
    assert "missing:" in res.output and "unexpected:" in res.output and "old-switch.cfg" in res.output
    assert not (out / "leaf1.cfg").exists(), "--check must write nothing"


def test_interrupted_render_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = comp.render_fabric(comp.load_valid(LAB))
    out = tmp_path / "out"
    out.mkdir()
    (out / "leaf1.cfg").write_text("previous content\n")
    real_replace = os.replace
    calls = {"n": 0}

    def flaky_replace(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(KeyboardInterrupt):
        comp.write_outputs(files, out)
    monkeypatch.setattr(os, "replace", real_replace)
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]
    assert leftovers == []
    for p in out.iterdir():
        assert p.read_text() in (files.get(p.name), "previous content\n"), f"{p.name} is partial"


def test_invalid_intent_renders_nothing(tmp_path: Path) -> None:
    intent = _write_intent(tmp_path, LAB.read_text().replace("lossless: true", "lossless: false", 1))
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["render", str(intent), "-o", str(out)])
    assert res.exit_code == 2
    assert "RC101" in res.output
    assert not out.exists()


def test_single_device_render(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["render", str(LAB), "-o", str(tmp_path), "--device", "spine2"])
    assert res.exit_code == 0
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["spine2.set"]
    assert sorted(read_manifest(tmp_path)) == ["spine2.set"]
    res = CliRunner().invoke(main, ["render", str(LAB), "-o", str(tmp_path), "--device", "nope"])
    assert res.exit_code == 2 and "no device named 'nope'" in res.output


def test_golden_dir_is_regenerable(tmp_path: Path) -> None:
    shutil.copytree(GOLDEN, tmp_path / "g")
    res = CliRunner().invoke(main, ["render", str(LAB), "-o", str(tmp_path / "g"), "--check"])
    assert res.exit_code == 0, res.output


def test_eos_queue_keyword_follows_the_switch_family() -> None:
    """Trident/Tomahawk EOS switches take `uc-tx-queue`, Sand (Jericho) ones `tx-queue`; both parse the same."""
    text = LAB.read_text()
    assert "  - name: leaf4\n    platform: eos\n    role: leaf\n    asic: tomahawk4\n" in text
    text = text.replace(
        "  - name: leaf4\n    platform: eos\n    role: leaf\n    asic: tomahawk4\n",
        "  - name: leaf4\n    platform: eos\n    role: leaf\n    asic: jericho2\n",
        1,
    )
    from roceconf.intent import load_text

    states = desired_states(load_text(text, "jericho.yml"))
    trident, sand = render_state(states["leaf1"]), render_state(states["leaf4"])
    assert "\n   uc-tx-queue 3\n" in trident and "\n   tx-queue 3\n" not in trident
    assert "\n   tx-queue 3\n" in sand and "\n   uc-tx-queue" not in sand
    assert "\nip load-sharing trident" in trident and "\nip load-sharing trident" not in sand
    eos = platforms.get("eos")
    assert eos.parse(trident).semantic() == states["leaf1"].semantic()
    # a Sand switch's hash profile is not rendered: everything else survives, the hash fields are not audited
    assert eos.parse(sand).semantic() == expressible(states["leaf4"]).semantic()
    assert expressible(states["leaf4"]).ecmp.fields is None
