"""Counter parsers held against outputs other people recorded from real devices and tools
(tests/fixtures/<p>/counters/real/, PROVENANCE.md beside them), the forms users really have (JSON, XML,
text), cut and reordered answers, and ``roceconf health --counters`` on the recordings end to end."""

from __future__ import annotations

import json
import logging
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roceconf import platforms
from roceconf.compile import load_valid
from roceconf.counters.parsing import tables
from roceconf.health.collect import health_offline
from roceconf.platforms.base import split_outputs

FIXTURES = Path(__file__).parent / "fixtures"
BIN = Path(sys.executable).parent
REAL = sorted(FIXTURES.glob("*/counters/real/*.txt"))
LAYOUT = sorted(FIXTURES.glob("*/counters/layout/*.txt"))
#: licences whose material may be kept as test data with attribution
LICENCES = {"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "GPL-2.0", "GPL-2.0-only", "CC-BY-4.0"}


def _plat(path: Path) -> str:
    return path.parents[2].name


def _outputs(path: Path) -> dict[str, str]:
    return {cmd: out for cmd, _line, out in split_outputs(path.read_text())}


def _parse(plat: str, outputs: dict[str, str]) -> tuple[dict, list[str]]:
    ports, warnings = platforms.counters(plat).parse(outputs)
    return {n: p.to_dict() for n, p in ports.items()}, warnings


def _provenance(folder: Path) -> dict[str, dict[str, str]]:
    """PROVENANCE.md's table: file -> {column: value}."""
    rows: dict[str, dict[str, str]] = {}
    head: list[str] = []
    for line in (folder / "PROVENANCE.md").read_text().splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not head:
            head = [c.lower() for c in cells]
            continue
        rows[cells[0].strip("`")] = dict(zip(head, cells, strict=False))
    return rows


# ------------------------------------------------------------------------------------ provenance
@pytest.mark.parametrize("path", REAL, ids=[f"{_plat(p)}/{p.name}" for p in REAL])
def test_every_real_output_has_its_provenance(path: Path) -> None:
    row = _provenance(path.parent).get(path.name)
    assert row, f"{path.name} is not in {path.parent}/PROVENANCE.md"
    assert row["licence"] in LICENCES, (path.name, row["licence"])
    # a commit names the recorded version (a date for a page or a list post)
    assert re.search(r"\b[0-9a-f]{40}\b|\b\d{4}-\d{2}-\d{2}\b", row["commit"]), path.name
    assert row["source"] and row["device / release"], path.name
    assert path.with_suffix(".expected.yaml").exists(), path.name


@pytest.mark.parametrize(
    "path", REAL + LAYOUT, ids=[f"{_plat(p)}/{p.parent.name}/{p.name}" for p in REAL + LAYOUT]
)
def test_real_and_layout_fixtures_parse_to_expected(path: Path) -> None:
    ports, warnings = _parse(_plat(path), _outputs(path))
    expected = yaml.safe_load(path.with_suffix(".expected.yaml").read_text())
    if "warnings" in expected:
        assert warnings == expected["warnings"]
        expected = expected["ports"]
    else:
        assert warnings == []
    assert ports == expected
    assert ports or warnings, "a recording that reads as nothing, and says not why, proves nothing"


# ------------------------------------------------------------------------------------ SONiC
def test_sonic_multi_asic_reads_every_namespace_without_phantom_ports() -> None:
    """sonic-utilities' multi-ASIC outputs: one table per namespace, the watermark tables with no blank line
    between them; backplane ports are left out with a note, never read into a front-panel port."""
    ports, warnings = _parse("sonic", _outputs(FIXTURES / "sonic/counters/real/multi-asic.txt"))
    assert set(ports) == {"Ethernet0", "Ethernet4"}
    e0, e4 = ports["Ethernet0"]["prio"], ports["Ethernet4"]["prio"]
    assert e0["pfc_rx"]["0"] == 1200 and e4["pfc_tx"]["7"] == 417
    assert e0["queue_drops"] == {str(p): 56 - p for p in range(8)}  # Drop/pkts of UC0..UC7 (MC8+ not read)
    assert "pg_drops" not in e0  # N/A in the recording: not read, never 0
    assert ports["Ethernet0"]["gauges"] == {}  # watermarks N/A for the front-panel ports
    assert (e0["wd_detected"]["2"], e0["wd_restored"]["1"]) == (1, 1)
    assert ports["Ethernet0"]["wd_shut"] is None  # pfcwd STATUS N/A: the state was not read
    assert warnings == [
        "backplane port(s) Ethernet-BP0, Ethernet-BP4, Ethernet-BP256, Ethernet-BP260 read but not judged: "
        "they link the ASICs of one chassis and an intent cannot name them"
    ]


def test_sonic_watermark_of_one_namespace_and_single_asic() -> None:
    ports, _ = _parse("sonic", _outputs(FIXTURES / "sonic/counters/real/single-asic.txt"))
    assert ports["Ethernet0"]["gauges"]["queue_watermark_bytes"]["0"] == 2057328
    assert ports["Ethernet8"]["gauges"]["queue_watermark_bytes"] == {
        "0": 0,
        "1": 0,
        "2": 1040,
        "3": 0,
        "4": 0,
        "5": 0,
        "6": 0,
        "7": 0,
    }  # UC8 / UC9 are no priority


# ------------------------------------------------------------------------------------ Junos
def test_junos_the_three_forms_of_one_capture_read_alike() -> None:
    """The recording's layout in XML, JSON (Junos's XML-to-JSON rule) and CLI text: identical snapshots."""
    forms = {
        f: _parse("junos", _outputs(FIXTURES / f"junos/counters/layout/pfc.{f}.txt"))
        for f in ("xml", "json", "text")
    }
    assert forms["xml"] == forms["json"] == forms["text"]
    ports, warnings = forms["xml"]
    assert warnings == []
    assert (
        ports["et-0/0/24"]["prio"]["pfc_rx"]["3"] == 1031
        and ports["et-0/0/25"]["prio"]["pfc_tx"]["7"] == 2072
    )


def test_junos_real_queue_text() -> None:
    """Genie's recorded MX ``show interfaces queue``: five queues in use, tail + RED drops per queue."""
    ports, _ = _parse("junos", _outputs(FIXTURES / "junos/counters/real/genie-mx-ge-queue.txt"))
    assert ports == {
        "ge-0/0/2": {
            "prio": {"queue_drops": {str(q): 0 for q in range(5)}},
            "port": {},
            "gauges": {},
            "wd_shut": None,
            "wd_read": None,
        }
    }


def test_health_on_a_real_junos_answer_without_pfc_statistics_is_unknown(tmp_path: Path) -> None:
    """PyEZ's recorded ``show interfaces extensive | display xml`` of an SRX (Junos 12.1X46): no MAC PFC
    statistics, and only the brief queue counters (total drops, which mix in policer drops): nothing is read,
    the device is unknown with the reason, never healthy."""
    outs = _outputs(FIXTURES / "junos/counters/real/pyez-srx-extensive.txt")
    found, dev = _health(tmp_path, "junos", "ge-0/0/0,ge-0/0/1", [outs, outs], cli=True)
    assert found == set() and dev["status"] == "unknown"
    assert dev["reason"] == (
        "no counters for any of the intent's ports were read (show interfaces extensive | display xml: "
        "no MAC Priority Flow Control Statistics in the answer)"
    )


def _qfx_queue(tail: dict) -> str:
    """One queue of ``show interfaces queue | display json`` with the elements a public Junos 17.2 recording
    of an xe- port shows (opendaylight/nic, ``InterfaceInformationTest``, EPL-1.0, not copied: only its element
    names and its 'Not Available' tail-drop element are used here)."""
    d = lambda v: [{"data": v}]  # noqa: E731
    q = {
        "queue-number": d("3"),
        "queue-counters-queued-packets": d("10"),
        **tail,
        "queue-counters-rate-limit-drop-packets": d("0"),
        "queue-counters-total-drop-packets": d("7"),
    }
    phy = {"name": d("xe-0/0/1"), "queue-counters": [{"queue": [q]}]}
    return json.dumps({"interface-information": [{"physical-interface": [{}, phy]}]})


def test_junos_tail_drops_not_available_are_not_read_and_say_so() -> None:
    """QFX reports tail drops as ``queue-counters-tail-drop-packets-na`` "Not Available": the queue's drops
    are not read (the total mixes in rate-limit drops), never 0, and a warning says why."""
    cmd = "show interfaces queue | display json"
    na = {"queue-counters-tail-drop-packets-na": [{"data": "Not Available"}]}
    ports, warnings = _parse("junos", {cmd: _qfx_queue(na)})
    assert ports == {}
    assert warnings == [f"{cmd}: xe-0/0/1: a queue drop counter is not a count; drops not read"]
    text = _outputs(FIXTURES / "junos/counters/real/genie-mx-ge-queue.txt")["show interfaces queue"]
    first = re.search(r"Tail-dropped packets\s*:\s*(\d+)", text)
    assert first
    cut = text[: first.start(1)] + "Not Available" + text[first.end(1) :]
    ports, warnings = _parse("junos", {"show interfaces queue": cut})
    assert "0" not in ports["ge-0/0/2"]["prio"]["queue_drops"]  # that queue: not read; the others are
    assert warnings == ["show interfaces queue: ge-0/0/2: a queue drop counter is not a count; drops not read"]
    whole = {"queue-counters-tail-drop-packets": [{"data": "5"}], "queue-counters-red-packets": [{"data": "2"}]}
    ports, warnings = _parse("junos", {cmd: _qfx_queue(whole)})
    assert warnings == [] and ports["xe-0/0/1"]["prio"]["queue_drops"] == {"3": 7}


def test_junos_old_invented_names_read_nothing() -> None:
    """The element names roceconf used to read (ethernet-pfc-statistics / pfc-priority) are in no real output:
    an answer with only those is no counter, so the device is unknown rather than healthy."""
    text = json.dumps(
        {
            "interface-information": [
                {
                    "physical-interface": [
                        {
                            "name": [{"data": "et-0/0/1"}],
                            "ethernet-pfc-statistics": [
                                {
                                    "pfc-priority-statistics": [
                                        {"pfc-priority": [{"data": "3"}], "pfc-received": [{"data": "5"}]}
                                    ]
                                }
                            ],
                        }
                    ]
                }
            ]
        }
    )
    ports, _ = _parse("junos", {"show interfaces extensive | display json": text})
    assert ports == {}


# ------------------------------------------------------------------------------------ cut and reordered
def _same_or_absent(cut: dict, full: dict, where: str) -> None:
    """Every port of the cut answer is a port of the full one; every value read equals the full one's."""
    for name, pc in cut.items():
        assert name in full, f"{where}: phantom port {name!r}"
        for part in ("prio", "gauges"):
            for c, per in pc[part].items():
                for p, v in per.items():
                    assert full[name][part].get(c, {}).get(p) == v, f"{where}: {name} {c}[{p}] = {v}"
        for c, v in pc["port"].items():
            assert full[name]["port"].get(c) == v, f"{where}: {name} {c} = {v}"
        for c, v in pc.get("link", {}).items():  # link counters (cabling's): never a cut, smaller value
            assert full[name].get("link", {}).get(c) == v, f"{where}: {name} link {c} = {v}"
        for c, v in (pc.get("optics") or {}).items():  # optics readings and thresholds: never a cut number
            if c.endswith(":lane"):  # the worst lane of a cut answer may be another one: its value is checked
                continue
            assert (full[name].get("optics") or {}).get(c) == v or _another_lane(pc["optics"], full[name]["optics"],
                                                                                 c), f"{where}: {name} optics {c} = {v}"
        for p in pc["wd_read"] or []:  # a queue's watchdog state is read as the full answer has it, or not
            assert p in (full[name]["wd_read"] or []), f"{where}: {name} phantom watchdog state {p}"
            assert (p in pc["wd_shut"]) == (p in full[name]["wd_shut"]), f"{where}: {name} queue {p} state"
        assert set(pc["wd_shut"] or []) <= set(pc["wd_read"] or []), f"{where}: {name} shut but not read"


def _another_lane(cut: dict, full: dict, key: str) -> bool:
    """A cut multi-lane answer's worst lane may be another lane than the full answer's: its reading is then
    that lane's (not checked against the full answer, which keeps only its worst lane)."""
    reading = key.split(":")[0]
    return key == reading and cut.get(reading + ":lane") not in (None, full.get(reading + ":lane"))


@pytest.mark.parametrize(
    "path", REAL + LAYOUT, ids=[f"{_plat(p)}/{p.parent.name}/{p.name}" for p in REAL + LAYOUT]
)
def test_cut_answers_never_give_a_wrong_value_or_a_phantom_port(path: Path) -> None:
    plat = _plat(path)
    for cmd, text in _outputs(path).items():
        full, _ = _parse(plat, {cmd: text})
        cuts = sorted(
            {*range(0, len(text), max(1, len(text) // 150)), *(m.end() for m in re.finditer(r"\d", text))}
        )
        for cut in cuts[:: max(1, len(cuts) // 400)]:
            got, warnings = _parse(plat, {cmd: text[:cut]})
            _same_or_absent(got, full, f"{path.name} {cmd!r} cut at {cut}")
            assert isinstance(warnings, list)


def _shuffled_rows(text: str, rng: random.Random) -> str:
    """The body rows of every dashed table shuffled (a device may list ports in any order)."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        out.append(lines[i])
        if re.fullmatch(r"\s*-+(\s+-+)+\s*", lines[i]):
            j = i + 1
            while (
                j < len(lines)
                and lines[j].strip()
                and not re.fullmatch(r"\s*-+(\s+-+)+\s*", lines[j + 1] if j + 1 < len(lines) else "")
                and not (j + 2 < len(lines) and re.fullmatch(r"\s*-+(\s+-+)+\s*", lines[j + 2]))
            ):
                j += 1
            body = lines[i + 1 : j]
            rng.shuffle(body)
            out += body
            i = j
            continue
        i += 1
    return "\n".join(out)


def _shuffled_blocks(text: str, rng: random.Random) -> str:
    """Junos text: the ``Physical interface`` blocks in another order."""
    parts = re.split(r"(?m)^(?=\s*Physical interface:)", text)
    head, blocks = parts[0], parts[1:]
    rng.shuffle(blocks)
    return head + "".join(b if b.endswith("\n") else b + "\n" for b in blocks)


@pytest.mark.parametrize(
    "path", REAL + LAYOUT, ids=[f"{_plat(p)}/{p.parent.name}/{p.name}" for p in REAL + LAYOUT]
)
def test_reordered_answers_read_the_same(path: Path) -> None:
    plat = _plat(path)
    outs = _outputs(path)
    full, _ = _parse(plat, outs)
    for seed in range(5):
        rng = random.Random(seed)
        mixed = {c: _shuffled_blocks(_shuffled_rows(t, rng), rng) for c, t in outs.items()}
        got, _ = _parse(plat, mixed)
        assert got == full, (path.name, seed)


# ------------------------------------------------------------------------------------ health end to end
INTENT = """version: 1
fabric: real
qos:
  trust: dscp
  classes:
    - {{name: roce, role: roce, dscp: [26], priority: 3, lossless: true, ecn: {{min: 150KB, max: 1500KB, probability: 100, junos: {{min_percent: 55, max_percent: 90}}}}, scheduling: {{mode: dwrr, weight_percent: 50}}}}
    - {{name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {{mode: strict}}}}
    - {{name: default, dscp: [0], priority: 0, scheduling: {{mode: dwrr, weight_percent: 50}}}}
  pfc_watchdog: {{enabled: true, detection: 200ms, restoration: 400ms, polling: 100ms, action: drop}}
devices:
  - name: sw1
    platform: {plat}
    role: {role}
    interfaces:
      - {{name: "{ports}", speed: 400G, role: {role_if}{extra}}}
"""
LOSSY = (0, 1, 2, 4, 5, 6, 7)


def _zeroed(text: str) -> str:
    """The same answer with every counter at 0, as right after clearing them: numbers that stand alone
    (not a priority label such as PFC3, UC3, Ethernet0:3 or a value with a unit) become 0, right-aligned in
    their width so tables still line up."""
    return re.sub(
        r"(?<![\w:/.\-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w:/.\-])",
        lambda m: " " * (len(m.group(0)) - 1) + "0",
        text,
    )


def _intent(plat: str, ports: str) -> str:
    host = plat in ("connectx", "bnxt", "linux-dcb")
    return INTENT.format(
        plat=plat,
        ports=ports,
        role="host" if host else "leaf",
        role_if="host" if host else "fabric",
        extra=", rdma_device: rocep1s0" if host else "",
    )


def _health(
    tmp_path: Path, plat: str, ports: str, samples: list[dict[str, str]], cli: bool = False
) -> tuple[set, dict]:
    (tmp_path / "intent.yml").write_text(_intent(plat, ports))
    saved = tmp_path / "counters"
    saved.mkdir()
    data = {
        "format_version": 1,
        "device": "sw1",
        "platform": plat,
        "samples": [
            {"taken_at": 1000.0 + 10 * i, "command_times": {}, "outputs": o} for i, o in enumerate(samples)
        ],
    }
    (saved / "sw1.counters.json").write_text(json.dumps(data))
    if cli:
        out = subprocess.run(
            [
                str(BIN / "roceconf"),
                "health",
                str(tmp_path / "intent.yml"),
                "--counters",
                str(saved),
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        report = json.loads(out.stdout)
        dev = report["devices"][0]
        found = {
            (f["rule"], dev["device"], p["port"], f["priority"]) for p in dev["ports"] for f in p["findings"]
        }
        return found, dev
    rep = health_offline(load_valid(tmp_path / "intent.yml"), saved)
    d = rep.devices[0]
    return {(f.rule, f.device, f.port, f.priority) for f in rep.findings}, {
        "status": d.status,
        "warnings": d.warnings,
        "reason": d.reason,
    }


def test_health_on_sonic_recording_twice_finds_the_stormed_queues(tmp_path: Path) -> None:
    """The same recording read twice (no counter moved): only the state the recording shows - pfcwd holds
    Ethernet0 queue 3 and Ethernet8 queue 4 shut (RC302)."""
    outs = _outputs(FIXTURES / "sonic/counters/real/single-asic.txt")
    found, dev = _health(tmp_path, "sonic", "Ethernet0,Ethernet4,Ethernet8", [outs, outs], cli=True)
    assert found == {("RC302", "sw1", "Ethernet0", 3), ("RC302", "sw1", "Ethernet8", 4)}
    assert dev["status"] == "findings"


def test_health_on_sonic_multi_asic_recording_after_clearing(tmp_path: Path) -> None:
    outs = _outputs(FIXTURES / "sonic/counters/real/multi-asic.txt")
    found, dev = _health(
        tmp_path, "sonic", "Ethernet0,Ethernet4", [{c: _zeroed(t) for c, t in outs.items()}, outs]
    )
    ports = ("Ethernet0", "Ethernet4")
    assert found == {("RC300", "sw1", p, 3) for p in ports} | {
        ("RC304", "sw1", p, q) for p in ports for q in LOSSY
    }
    assert dev["status"] == "findings" and any("backplane" in w for w in dev["warnings"])


def test_health_on_junos_text_after_clearing(tmp_path: Path) -> None:
    outs = _outputs(FIXTURES / "junos/counters/layout/pfc.text.txt")
    zero = {
        c: re.sub(r"(?m)^(\s+Priority :  \d)(.*)$", lambda m: m.group(1) + _zeroed(m.group(2)), t)
        for c, t in outs.items()
    }
    found, dev = _health(tmp_path, "junos", "et-0/0/24,et-0/0/25", [zero, outs], cli=True)
    ports = ("et-0/0/24", "et-0/0/25")
    assert found == {("RC304", "sw1", p, q) for p in ports for q in LOSSY}
    assert dev["status"] == "findings"


def test_health_on_an_answer_in_no_known_layout_is_unknown(tmp_path: Path) -> None:
    """The old invented Junos names: the device is unknown with the reason, never healthy."""
    text = json.dumps(
        {
            "interface-information": [
                {"physical-interface": [{"name": [{"data": "et-0/0/1"}], "ethernet-pfc-statistics": []}]}
            ]
        }
    )
    found, dev = _health(
        tmp_path, "junos", "et-0/0/1", [{"show interfaces extensive | display json": text}] * 2
    )
    assert found == set() and dev["status"] == "unknown"
    assert "no counters for any of the intent's ports" in dev["reason"]


# ------------------------------------------------------------------------------------ --debug
def test_unknown_counter_names_are_listed_under_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="roceconf")
    text = (FIXTURES / "sonic/counters/real/single-asic.txt").read_text()
    outs = _outputs(FIXTURES / "sonic/counters/real/single-asic.txt")
    outs["show pfc counters"] = outs["show pfc counters"].replace("PFC7", "PFCX")
    platforms.counters("sonic").parse(outs)
    assert "show pfc counters: PFCX" in caplog.text
    assert text  # the recording itself names nothing unknown:
    caplog.clear()
    platforms.counters("sonic").parse(_outputs(FIXTURES / "sonic/counters/real/single-asic.txt"))
    assert "not understood" not in caplog.text


# ------------------------------------------------------------------------------------ NVUE, NX-OS
def test_nvue_text_and_json_of_one_capture_read_alike() -> None:
    """The command reference's table layout and the JSON: identical snapshots; ``ecn-marked-frames`` read."""
    text = _parse("nvue", _outputs(FIXTURES / "nvue/counters/layout/counters.text.txt"))
    js = _parse("nvue", _outputs(FIXTURES / "nvue/counters/layout/counters.json.txt"))
    assert text == js
    ports, warnings = js
    assert warnings == []
    assert ports["swp2"]["prio"]["ecn_marked"]["3"] == 238 and ports["swp1"]["prio"]["pfc_rx_us"]["7"] == 172


def test_nvue_rounded_table_cells_are_never_read() -> None:
    """``75.19 KB`` is how the table renders a count of 76993 frames: not read (absent), never 75 or 76990."""
    outs = _outputs(FIXTURES / "nvue/counters/layout/counters.text.txt")
    cmd = "nv show interface swp1 counters qos egress-queue-stats"
    assert "136 Bytes" in outs[cmd]
    outs[cmd] = outs[cmd].replace("136 Bytes", "75.19 KB ")
    ports, _ = _parse("nvue", {cmd: outs[cmd]})
    drops = ports["swp1"]["prio"]["queue_drops"]
    assert "3" not in drops and drops["2"] == 126 + 127  # the sum of a rounded part is no sum


def test_health_on_nvue_text_after_clearing(tmp_path: Path) -> None:
    outs = _outputs(FIXTURES / "nvue/counters/layout/counters.text.txt")
    zero = {
        c: re.sub(r"(?m)^(\d\s+)(.*)$", lambda m: m.group(1) + _zeroed(m.group(2)), t)
        for c, t in outs.items()
    }
    found, dev = _health(tmp_path, "nvue", "swp1,swp2", [zero, outs])
    ports = ("swp1", "swp2")
    assert found == (
        {("RC300", "sw1", p, 3) for p in ports}
        | {("RC304", "sw1", p, q) for p in ports for q in LOSSY}
        | {("RC305", "sw1", p, q) for p in ports for q in LOSSY}
    )
    assert dev["status"] == "findings"


def test_health_on_nxos_schema_layout(tmp_path: Path) -> None:
    """Read twice unchanged: the watchdog holds Ethernet1/1 qos-group 3 shut (RC302); after clearing, drops on
    the lossless queue and pauses on lossy priorities."""
    outs = _outputs(FIXTURES / "nxos/counters/schema-names.txt")
    found, _ = (
        _health(tmp_path / "a", "nxos", "Ethernet1/1-2", [outs, outs])
        if (tmp_path / "a").mkdir() is None
        else (set(), {})
    )
    assert found == {("RC302", "sw1", "Ethernet1/1", 3)}
    keys = r'("(?:eq-uc-stat-value|eq-oobfc-uc-stat-value|tx-pause-count|rx-pause-count|q-shutdown|q-restored)": ")(\d+)'
    zero = {c: re.sub(keys, r"\g<1>0", t) for c, t in outs.items()}
    (tmp_path / "b").mkdir()
    found, _ = _health(tmp_path / "b", "nxos", "Ethernet1/1-2", [zero, outs])
    ports = ("Ethernet1/1", "Ethernet1/2")
    assert found == (
        {("RC300", "sw1", p, 3) for p in ports}
        | {("RC304", "sw1", p, q) for p in ports for q in LOSSY}
        | {("RC301", "sw1", p, 3) for p in ports}
    )


# ------------------------------------------------------------------------------------ dcb
def test_dcb_text_and_json_of_one_capture_read_alike() -> None:
    text = _parse("linux-dcb", _outputs(FIXTURES / "linux-dcb/counters/real/kernel-doc-pfc-text.txt"))
    js = _parse("linux-dcb", _outputs(FIXTURES / "linux-dcb/counters/layout-pfc-json.txt"))
    assert text == js
    assert text[0]["eth0"]["prio"]["pfc_tx"]["4"] == 2048 and text[0]["eth0"]["prio"]["pfc_rx"]["4"] == 4096


def test_debug_on_the_command_line_lists_unknown_counter_names(tmp_path: Path) -> None:
    """``roceconf --debug health --counters``: a column a new release added is named on stderr."""
    outs = _outputs(FIXTURES / "sonic/counters/real/single-asic.txt")
    outs["show pfc counters"] = outs["show pfc counters"].replace("PFC7", "PFCX")
    (tmp_path / "intent.yml").write_text(_intent("sonic", "Ethernet0,Ethernet4"))
    saved = tmp_path / "counters"
    saved.mkdir()
    samples = [{"taken_at": 1000.0 + 10 * i, "command_times": {}, "outputs": outs} for i in range(2)]
    (saved / "sw1.counters.json").write_text(
        json.dumps({"format_version": 1, "device": "sw1", "platform": "sonic", "samples": samples})
    )
    argv = [
        str(BIN / "roceconf"),
        "--debug",
        "health",
        str(tmp_path / "intent.yml"),
        "--counters",
        str(saved),
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert "counter names not understood: show pfc counters: PFCX" in out.stderr
    quiet = subprocess.run(argv[:1] + argv[2:], capture_output=True, text=True, timeout=120, check=False)
    assert "not understood" not in quiet.stderr


def test_health_on_eos_anta_answers_after_clearing(tmp_path: Path) -> None:
    """ANTA's ECN answer: marks on queues 1 and 2, which the intent gives no ECN (RC305); '-' is not read."""
    outs = _outputs(FIXTURES / "eos/counters/real/anta-eapi.txt")
    zero = {c: re.sub(r'(?<=": )\d+|(?<=": ")\d+(?=")', "0", t) for c, t in outs.items()}
    found, dev = _health(tmp_path, "eos", "Ethernet10/20/1,Ethernet10/3/1", [zero, outs], cli=True)
    assert found == {("RC305", "sw1", "Ethernet10/20/1", 1), ("RC305", "sw1", "Ethernet10/3/1", 2)}
    assert dev["status"] == "findings"


def test_health_on_dcb_kernel_doc_text_after_clearing(tmp_path: Path) -> None:
    """The kernel guide's dcb answer: PFC frames both ways on priority 4, which the intent makes lossy."""
    outs = _outputs(FIXTURES / "linux-dcb/counters/real/kernel-doc-pfc-text.txt")
    zero = {c: re.sub(r"(\d):\d+", r"\1:0", t) for c, t in outs.items()}
    found, dev = _health(tmp_path, "linux-dcb", "eth0", [zero, outs])
    assert found == {("RC304", "sw1", "eth0", 4)}
    assert dev["status"] == "findings"


def test_tables_back_to_back_keep_every_row_and_no_title() -> None:
    """Two tables with no blank line between them, with and without a title line: the last row of the first
    is read, a title never becomes a port."""
    wm = _outputs(FIXTURES / "sonic/counters/real/multi-asic.txt")["show queue watermark unicast"]
    untitled = "\n".join(ln for ln in wm.split("\n") if not ln.startswith("Egress"))
    for text in (wm, untitled):
        rows, problems = tables(text)
        assert [r["Port"] for r in rows] == [
            "Ethernet0",
            "Ethernet4",
            "Ethernet-BP0",
            "Ethernet-BP4",
            "Ethernet-BP256",
            "Ethernet-BP260",
        ]
        assert problems == []
