"""The expanded fabric is bounded before it is expanded (issue 24, item 7: RC026).

A 150-byte intent within every other limit (65,536 devices x 4,096 interfaces) is 268 M interfaces: every
command that reads an intent refuses it in one diagnostic naming the entry, the figures and the setting that
raises the limit, fast and small. The 32,768-GPU bench fabric stays well inside the default limits.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.fabricgen import big_fabric
from tests.hostile import harness

#: the settings that raise the limits (environment variables)
ITF_ENV, LINKS_ENV = "ROCECONF_MAX_INTERFACES", "ROCECONF_MAX_LINKS"

BOMB = """version: 1
fabric: b
devices:
  - name: 'a[00000-65535]'
    platform: eos
    role: leaf
    interfaces: [{name: 'Ethernet1-4096', speed: 400G}]
"""

LINK_BOMB = """version: 1
fabric: l
devices:
  - {name: 'a[0-511]', platform: eos, role: leaf, interfaces: [{name: 'Ethernet1-512', speed: 400G}]}
  - {name: 'b[0-511]', platform: eos, role: spine, interfaces: [{name: 'Ethernet1-512', speed: 400G}]}
links:
  - mesh: {lower: 'x[0-999]', lower_ports: 'Ethernet1-1000', upper: 'y[0-999]', upper_ports: 'Ethernet1-1000'}
"""


def _commands(intent: Path, tmp: Path) -> list[tuple[str, ...]]:
    """Every command that reads an intent (each stops at the intent, before its other inputs)."""
    (tmp / "configs").mkdir(exist_ok=True)
    (tmp / "counters").mkdir(exist_ok=True)
    inv = tmp / "inventory.yml"
    inv.write_text("all:\n  hosts: {}\n")
    i = str(intent)
    return [
        ("validate", i),
        ("expand", i),
        ("render", i, "-o", str(tmp / "out")),
        ("render", i, "-o", str(tmp / "out"), "--check"),
        ("check", i),
        ("headroom", i),
        ("drift", i, "--configs", str(tmp / "configs")),
        ("health", i, "--counters", str(tmp / "counters")),
        ("bom", i, "--inventory", str(inv)),
        ("acceptance", "plan", i),
        ("plan", i, str(harness.LAB)),
        ("plan", str(harness.LAB), i),
        ("demo", "--intent", i, "-o", str(tmp / "demo")),
    ]


@pytest.mark.parametrize("which", range(13))
def test_an_interface_bomb_is_refused_before_it_is_expanded(tmp_path: Path, which: int) -> None:
    intent = tmp_path / "bomb.yml"
    intent.write_text(BOMB)
    assert len(BOMB) < 200
    args = _commands(intent, tmp_path)[which]
    o = harness.run(*args)
    harness.check(o, names=("RC026", "bomb.yml", "65536", "4096", ITF_ENV))
    assert o.seconds < 10, f"{args}: {o.seconds:.1f} s"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_link_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    intent = tmp_path / "links.yml"
    intent.write_text(LINK_BOMB)
    for args in (("validate", str(intent)), ("render", str(intent), "-o", str(tmp_path / "out"))):
        o = harness.run(*args)
        harness.check(o, names=("RC026", "links.yml", "1000000 links", LINKS_ENV))
        assert o.seconds < 10


def test_a_cabling_table_is_bounded_by_the_same_setting(tmp_path: Path) -> None:
    """A csv: table counts against the link limit (here lowered by its setting to keep the file small)."""
    (tmp_path / "cables.csv").write_text("".join(f"gpu1,eth{i},leaf1,Ethernet{i}\n" for i in range(1, 40)))
    intent = tmp_path / "csv.yml"
    intent.write_text(
        "version: 1\nfabric: c\ndevices:\n"
        "  - {name: leaf1, platform: eos, role: leaf, interfaces: [{name: Ethernet1-40, speed: 400G}]}\n"
        "  - {name: gpu1, platform: connectx, role: host, interfaces: [{name: 'eth[1-40]', speed: 400G, rdma_device: 'mlx5_[1-40]'}]}\n"
        "links:\n  - csv: cables.csv\n"
    )
    o = harness.run("validate", str(intent), env={LINKS_ENV: "10"})
    harness.check(o, names=("RC026", "csv.yml", "limit of 10", LINKS_ENV))


def test_the_limit_is_a_setting(tmp_path: Path) -> None:
    """The lab intent (10 devices) fails under a limit of 20 interfaces, passes under the default and a
    raised one; a limit that is not a number is bad input, never ignored."""
    lab = str(harness.LAB)
    o = harness.run("validate", lab, env={ITF_ENV: "20"})
    harness.check(o, names=("RC026", "over the limit of 20", ITF_ENV))
    o = harness.run("validate", lab, env={ITF_ENV: "100000000"})
    harness.check(o, bad_input=False, rc=0)
    o = harness.run("validate", lab, env={LINKS_ENV: "lots"})
    harness.check(o, names=("RC026", LINKS_ENV, "lots"))


def test_the_32k_gpu_bench_fabric_is_well_inside_the_default_limits(tmp_path: Path) -> None:
    text = big_fabric()
    intent = tmp_path / "gpu32768.yml"
    intent.write_text(text)
    o = harness.run("validate", str(intent))
    harness.check(o, bad_input=False, rc=0)
    m = re.search(r"(\d+) devices, (\d+) links", o.stdout)
    assert m, o.stdout[-500:]
    devices, links = int(m.group(1)), int(m.group(2))
    # 4,096 hosts x 8 NICs + 1,024 leaves x 48 + 512 spines x 32 interfaces
    interfaces = 4096 * 8 + 1024 * 48 + 512 * 32
    assert devices > 5000 and links > 45_000
    from roceconf import limits

    assert (ITF_ENV, LINKS_ENV) == (limits.SIZE_ENV["interfaces"], limits.SIZE_ENV["links"])
    assert interfaces * 4 < limits.MAX_INTERFACES and links * 4 < limits.MAX_LINKS


def test_rc026_is_in_the_generated_rules_docs() -> None:
    rules = (harness.ROOT / "docs" / "rules.md").read_text()
    assert re.search(r"^\| RC026 \| error \| .*ROCECONF_MAX_INTERFACES", rules, re.M)
    assert "ROCECONF_MAX_LINKS" in (harness.ROOT / "docs" / "intent.md").read_text()
