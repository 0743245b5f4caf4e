"""`roceconf cabling` offline (--lldp DIR): the verdict of every link of the lab intent from saved LLDP outputs,
each in the form its platform prints (roceconf/platforms/<p>/lldp.py), for each rule RC500-RC505; names
normalised; unreadable files unknown, never confirmed; the report in every format."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from roceconf import platforms
from roceconf.cabling.collect import SAVED_SUFFIX, cabling_offline
from roceconf.cabling.report import FORMATS
from roceconf.compile import load_valid
from roceconf.intent import Fabric
from roceconf.lab.wiring import Wiring
from roceconf.neighbors import Neighbor

ROOT = Path(__file__).parent.parent
LAB_INTENT = ROOT / "inventories" / "lab" / "intent.yml"
BIN = Path(sys.executable).parent
XSD = ROOT / "tests" / "fixtures" / "junit" / "junit-10.xsd"


@pytest.fixture(scope="module")
def fab() -> Fabric:
    return load_valid(LAB_INTENT)


def save(fab: Fabric, d: Path, change: Callable[[Wiring], None] | None = None,
         edit: Callable[[str, list[Neighbor]], list[Neighbor]] | None = None) -> Path:
    """DIR/<device>.lldp.json for every device: the cables of the intent (``change``d), printed by each
    platform's own LLDP command; ``edit`` rewrites a device's neighbour rows first."""
    w = Wiring()
    w.set_links([(x.a.device, x.a.port, x.b.device, x.b.port) for x in fab.links])
    if change:
        change(w)
    plats = {n: dev.platform for n, dev in fab.devices.items()}
    d.mkdir(exist_ok=True)
    for n, dev in fab.devices.items():
        rows = w.neighbours(n, plats)
        if edit:
            rows = edit(n, rows)
        spec = platforms.lldp(dev.platform)
        outputs = {c: spec.simulate(c, rows, n) for c in spec.commands}
        (d / (n + SAVED_SUFFIX)).write_text(json.dumps({"format_version": 1, "device": n,
                                                        "platform": dev.platform, "outputs": outputs}))
    return d


def keyed(report) -> list[tuple[str, str, str | None]]:
    return sorted((f.rule, f.device, f.port) for f in report.findings)


def test_cables_as_the_intent_says_confirm_every_link(fab: Fabric, tmp_path: Path) -> None:
    report = cabling_offline(fab, save(fab, tmp_path / "s"))
    assert report.findings == []
    assert [li.status for li in report.links] == ["ok"] * 16
    assert report.exit_code == 0


def test_a_missing_cable_is_rc500_on_both_ends(fab: Fabric, tmp_path: Path) -> None:
    def unplug(w: Wiring) -> None:
        del w.cables[("leaf3", "Ethernet248")], w.cables[("spine1", "Ethernet1/3")]

    report = cabling_offline(fab, save(fab, tmp_path / "s", unplug))
    assert keyed(report) == [("RC500", "leaf3", "Ethernet248"), ("RC500", "spine1", "Ethernet1/3")]
    f = report.findings[0]
    assert f.expected == "spine1:Ethernet1/3" and f.observed is None
    assert report.exit_code == 1


def test_miswire_names_where_each_cable_lands(fab: Fabric, tmp_path: Path) -> None:
    report = cabling_offline(fab, save(fab, tmp_path / "s", lambda w: w.swap("spine1", "Ethernet1/1", "miswire")))
    assert keyed(report) == [("RC501", "leaf1", "Ethernet49"), ("RC501", "leaf2", "swp31"),
                             ("RC501", "spine1", "Ethernet1/1"), ("RC501", "spine1", "Ethernet1/2")]
    spine = next(f for f in report.findings if f.device == "spine1" and f.port == "Ethernet1/1")
    assert (spine.expected, spine.observed) == ("leaf1:Ethernet49", "leaf2:swp31")
    leaf = next(f for f in report.findings if f.device == "leaf1")
    # NX-OS sends "Eth1/2" as port ID: read in the intent's spelling
    assert (leaf.expected, leaf.observed) == ("spine1:Ethernet1/1", "spine1:Ethernet1/2")


def test_crossed_rails_on_both_nics_and_both_leaves(fab: Fabric, tmp_path: Path) -> None:
    report = cabling_offline(fab, save(fab, tmp_path / "s", lambda w: w.swap("gpu3", "eth0", "crossed-rail")))
    assert keyed(report) == [("RC503", "gpu3", "eth0"), ("RC503", "gpu3", "eth1"), ("RC503", "leaf3", "Ethernet0"),
                             ("RC503", "leaf4", "Ethernet1")]
    nic = next(f for f in report.findings if (f.device, f.port) == ("gpu3", "eth0"))
    assert "rail 0" in nic.message and "rail 1" in nic.message and nic.observed == "leaf4:Ethernet1"


def test_a_nic_on_another_leaf_of_its_rail_is_rc504(fab: Fabric, tmp_path: Path) -> None:
    def move(w: Wiring) -> None:  # gpu1's rail-0 NIC and gpu3's rail-0 NIC exchange leaves (leaf1 <-> leaf3)
        a, b = w.cables[("gpu1", "eth0")], w.cables[("gpu3", "eth0")]
        w.cables[("gpu1", "eth0")], w.cables[("gpu3", "eth0")] = b, a
        w.cables[a], w.cables[b] = ("gpu3", "eth0"), ("gpu1", "eth0")

    report = cabling_offline(fab, save(fab, tmp_path / "s", move))
    assert keyed(report) == [("RC501", "leaf1", "Ethernet1"), ("RC501", "leaf3", "Ethernet0"),
                             ("RC504", "gpu1", "eth0"), ("RC504", "gpu3", "eth0")]
    f = next(f for f in report.findings if f.device == "gpu1")
    assert (f.expected, f.observed) == ("leaf1:Ethernet1", "leaf3:Ethernet0")


def test_a_cable_the_intent_lacks_is_rc502(fab: Fabric, tmp_path: Path) -> None:
    def extra(name: str, rows: list[Neighbor]) -> list[Neighbor]:
        if name == "leaf1":
            return [*rows, Neighbor("Ethernet3", "leaf4", "Ethernet3", "", "02:00:00:00:00:09"),
                    Neighbor("Management1", "oob-switch", "Gi1/0/7", "", "02:00:00:00:00:0a")]
        return rows

    report = cabling_offline(fab, save(fab, tmp_path / "s", edit=extra))
    assert keyed(report) == [("RC502", "leaf1", "Ethernet3")]  # a device outside the intent is no finding
    assert report.findings[0].severity == "warning" and report.exit_code == 1


def test_system_names_and_ports_are_normalised(fab: Fabric, tmp_path: Path) -> None:
    def fqdn(name: str, rows: list[Neighbor]) -> list[Neighbor]:
        return [Neighbor(r.local_port, r.system_name.upper() + ".pod1.example.net", r.port_id, r.port_descr,
                         r.chassis_id) for r in rows]

    report = cabling_offline(fab, save(fab, tmp_path / "s", edit=fqdn))
    assert report.findings == [] and report.exit_code == 0


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no saved LLDP file spine2.lldp.json"),
        ("{", "not JSON"),
        ('{"outputs": {"show lldp neighbors | display xml": 3}}', "field 'outputs' must map"),
        ('{"platform": "eos", "outputs": {}}', "field 'platform' is 'eos', intent says junos"),
        ('{"outputs": {"show lldp neighbors | display xml": "garbage"}}', "not XML"),
    ],
)
def test_an_unreadable_device_is_unknown_and_its_links_too(fab: Fabric, tmp_path: Path, content: str | None,
                                                           reason: str) -> None:
    d = save(fab, tmp_path / "s")
    if content is None:
        (d / "spine2.lldp.json").unlink()
    else:
        (d / "spine2.lldp.json").write_text(content)
    report = cabling_offline(fab, d)
    spine2 = next(x for x in report.devices if x.device == "spine2")
    assert spine2.status == "unknown" and reason in (spine2.reason or "")
    assert keyed(report) == [("RC505", "spine2", None)]
    # its four links are still confirmed by the leaves' ends; nothing is claimed for spine2 itself
    assert report.counts["ok"] == 16 and report.exit_code == 3


def test_a_link_neither_end_of_which_was_read_is_unknown(fab: Fabric, tmp_path: Path) -> None:
    d = save(fab, tmp_path / "s")
    for n in ("gpu1", "leaf1"):
        (d / f"{n}.lldp.json").unlink()
    report = cabling_offline(fab, d)
    assert [li.a for li in report.links if li.status == "unknown"] == ["gpu1:eth0"]
    assert report.exit_code == 3


def test_cli_writes_each_format_and_junit_is_valid(fab: Fabric, tmp_path: Path) -> None:
    d = save(fab, tmp_path / "s", lambda w: w.swap("gpu1", None, "crossed-rail"))
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    for fmt in FORMATS:
        out = tmp_path / f"report.{fmt}"
        proc = subprocess.run([str(BIN / "roceconf"), "cabling", str(LAB_INTENT), "--lldp", str(d), "--format", fmt,
                               "-o", str(out)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, proc.stderr
        text = out.read_text()
        assert "gpu1" in text and "RC503" in text, fmt
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["summary"]["fail"] == 2 and data["exit_code"] == 1
    assert {(f["rule"], f["device"], f["port"]) for f in data["findings"]} == {
        ("RC503", "gpu1", "eth0"), ("RC503", "gpu1", "eth1"), ("RC503", "leaf1", "Ethernet1"), ("RC503", "leaf2", "swp1")}
    root = etree.fromstring((tmp_path / "report.junit").read_bytes())
    assert schema.validate(root), schema.error_log
    assert root.xpath("count(//failure)") == 3  # gpu1, leaf1, leaf2: one RC503 case each


def test_cli_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    base = [str(BIN / "roceconf"), "cabling", str(LAB_INTENT)]
    for args, said in (([], "give exactly one of"), (["--lldp", str(tmp_path / "none")], "not a directory"),
                       (["--lldp", str(tmp_path), "--device", "nope"], "no device named 'nope'")):
        proc = subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("hostile", ["<script>alert(1)</script>", "a|b\nc", "\x1b[31mred\x1b]0;t\x07", "x\x00\udc80"])
def test_device_text_never_becomes_markup_escape_or_bad_xml(fab: Fabric, tmp_path: Path, hostile: str) -> None:
    def plant(name: str, rows: list[Neighbor]) -> list[Neighbor]:
        if name == "leaf1":
            rows = [*rows, Neighbor("Ethernet3", "leaf4", hostile, hostile, hostile)]
            rows[0] = Neighbor(rows[0].local_port, hostile, hostile, hostile, hostile)
        return rows

    report = cabling_offline(fab, save(fab, tmp_path / "s", edit=plant))
    assert any(f.device == "leaf1" and f.rule == "RC501" for f in report.findings)
    from roceconf.cabling.report import to_junit, to_markdown, to_text

    text, md = to_text(report), to_markdown(report)
    assert "\x1b" not in text and "\x00" not in text and "\x07" not in text
    assert "<script>" not in md and "\x1b" not in md
    rows = [line for line in md.splitlines() if line.startswith("| error | RC501 | Ethernet1 |")]
    assert len(rows) == 1 and rows[0].count("|") - rows[0].count("\\|") == 7  # a '|' read cannot add a cell
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    assert schema.validate(etree.fromstring(to_junit(report).encode())), schema.error_log
    json.loads(FORMATS["json"](report))
