"""Mutation tests: a real (or documented-layout) answer cut where a cut looks like a whole answer - inside the
last number, at a line boundary, inside the last row's padding - gives no value for what was lost (the
device, port or queue is not read), never a smaller number or an open queue that was shut."""

from __future__ import annotations

import re
from pathlib import Path

from roceconf.compile import load_valid
from roceconf.counters.hostnic import END_MARK, with_end
from roceconf.health.collect import health_offline
from roceconf.health.prometheus import exposition
from tests.test_health_real_counters import FIXTURES, _health, _outputs, _parse

ETHTOOL = "ethtool -S eth0"
DCB = "dcb pfc show dev eth0 requests indications"
PFCWD = "show pfcwd stats"


# ------------------------------------------------------------------------------------ (a) ethtool -S
def test_ethtool_cut_inside_its_last_number_is_not_read() -> None:
    """``rx_discards_phy: 1234`` cut to ``... 12`` is still a well-formed line: only the missing end mark
    the host bundle prints after every output tells the cut answer from a whole one."""
    outs = _outputs(FIXTURES / "connectx/counters/documented-fields.txt")
    whole = outs[ETHTOOL]
    assert whole.rstrip("\n").endswith(END_MARK)
    body = whole.rstrip("\n")[: -len(END_MARK)].rstrip("\n")
    last = re.search(r"(\w+): (\d+)$", body)
    assert last and len(last.group(2)) >= 2
    full, _ = _parse("connectx", {ETHTOOL: whole})
    for cut in range(last.start(2) + 1, len(body) + 1):
        ports, warnings = _parse("connectx", {ETHTOOL: body[:cut]})
        assert ports == {}, cut
        assert warnings == [f"{ETHTOOL}: no end mark (a cut answer); not read"]
    # the same text with its end mark is read, and the last counter with its whole value
    ports, warnings = _parse("connectx", {ETHTOOL: with_end(body)})
    assert ports == full and warnings == []
    assert ports["eth0"]["port"]["rx_discards_phy"] == int(last.group(2))


def test_ethtool_cut_answer_makes_the_host_unknown(tmp_path: Path) -> None:
    """``roceconf health --counters`` on a saved host read cut inside the last number of its first
    ``ethtool -S`` (the bundle's later commands never came): no rate is made from the cut value, the device is
    unknown with the reason."""
    outs = _outputs(FIXTURES / "connectx/counters/documented-fields.txt")
    outs = {c: t for c, t in outs.items() if c.endswith("eth0") or "/eth0/" in c}
    cut = {ETHTOOL: outs[ETHTOOL].rstrip("\n")[: -len(END_MARK) - 3]}
    found, dev = _health(tmp_path, "connectx", "eth0", [outs, cut])
    assert found == set() and dev["status"] == "unknown"
    assert dev["reason"] == (
        "no counters for any of the intent's ports were read "
        f"({ETHTOOL}: no end mark (a cut answer); not read)"
    )


# ------------------------------------------------------------------------------------ (b) SONiC pfcwd
def _two_queue_port_table() -> str:
    """The recorded ``show pfcwd stats`` (sonic-utilities), mutated so one port has two watchdog queues:
    Ethernet4's operational row is renamed to Ethernet0 queue 2 and sorted before Ethernet0's stormed queue 3
    (same width, so the table still lines up)."""
    text = _outputs(FIXTURES / "sonic/counters/real/single-asic.txt")[PFCWD]
    lines = text.split("\n")
    row4 = next(ln for ln in lines if ln.startswith("Ethernet4:3"))
    row0 = next(ln for ln in lines if ln.startswith("Ethernet0:3"))
    lines.remove(row4)
    lines.insert(lines.index(row0), row4.replace("Ethernet4:3", "Ethernet0:2"))
    return "\n".join(lines)


def test_pfcwd_table_cut_at_a_line_boundary_never_reports_a_stormed_queue_open() -> None:
    text = _two_queue_port_table()
    full, _ = _parse("sonic", {PFCWD: text})
    assert (full["Ethernet0"]["wd_read"], full["Ethernet0"]["wd_shut"]) == ([2, 3], [3])
    lines = text.split("\n")
    cut = "\n".join(lines[:3])  # header, dashes, Ethernet0:2 - the stormed Ethernet0:3 row is lost
    ports, _ = _parse("sonic", {PFCWD: cut})
    assert ports["Ethernet0"]["wd_read"] == [2]  # queue 3: not read, not "open"
    assert ports["Ethernet0"]["wd_shut"] == []
    assert "Ethernet8" not in ports
    for n in range(2, len(lines) + 1):  # every line boundary, also with the rows in reverse order
        for body in (lines[2:n], list(reversed(lines[2:]))[: n - 2]):
            got, _ = _parse("sonic", {PFCWD: "\n".join(lines[:2] + body)})
            for port, pc in got.items():
                for q in pc["wd_read"] or []:
                    assert (q in pc["wd_shut"]) == (q in full[port]["wd_shut"]), (n, port, q)


def test_pfcwd_cut_exports_no_watchdog_sample_for_the_lost_queue(tmp_path: Path) -> None:
    """The Prometheus export of the cut read: queue 2 of Ethernet0 is 0 (read open), queue 3 has no sample
    (never 0, the value a stormed queue that was cut off would wrongly get)."""
    outs = _outputs(FIXTURES / "sonic/counters/real/single-asic.txt")
    cut = dict(outs)
    cut[PFCWD] = "\n".join(_two_queue_port_table().split("\n")[:3])
    found, _ = _health(tmp_path, "sonic", "Ethernet0,Ethernet4,Ethernet8", [cut, cut])
    assert found == set()  # RC302 cannot be found on a queue that was not read ...

    rep = health_offline(load_valid(tmp_path / "intent.yml"), tmp_path / "counters")
    shut = [ln for ln in exposition(rep).splitlines() if ln.startswith("roceconf_pfc_watchdog_queue_shut{")]
    assert shut == ['roceconf_pfc_watchdog_queue_shut{device="sw1",port="Ethernet0",priority="2"} 0.0']


# ------------------------------------------------------------------------------------ (c) NVUE text
def test_nvue_table_cut_in_its_last_row_is_not_read() -> None:
    """NVUE pads every row to the table's width: a final row that stops short - cut inside its last number,
    or inside the padding after it - is left out; the rows above it are read."""
    outs = _outputs(FIXTURES / "nvue/counters/layout/counters.text.txt")
    cmd = "nv show interface swp1 counters qos pfc-stats"
    text = outs[cmd].rstrip("\n")
    full, _ = _parse("nvue", {cmd: text})
    assert full["swp1"]["prio"]["pfc_tx_us"]["7"] == 174
    last = text.split("\n")[-1]
    start = len(text) - len(last)
    for cut in range(start + last.index("174") + 1, len(text)):
        ports, warnings = _parse("nvue", {cmd: text[:cut]})
        prio = ports["swp1"]["prio"]
        assert all("7" not in per for per in prio.values()), cut
        assert prio["pfc_tx_us"]["6"] == 164
        assert any("does not line up" in w for w in warnings), cut


# ------------------------------------------------------------------------------------ (d) dcb text
def test_dcb_text_cut_inside_priority_7_is_not_read() -> None:
    """The kernel guide's answer cut inside ``7:0`` of its indications line, after a longer count: 7:4096
    cut to 7:40 is a well-formed line; the missing end mark keeps it from being read."""
    outs = _outputs(FIXTURES / "linux-dcb/counters/real/kernel-doc-pfc-text.txt")
    whole = outs[DCB]
    body = (
        whole.rstrip("\n")[: -len(END_MARK)].rstrip("\n").replace("7:0\nindications", "7:4096\nindications")
    )
    body = body.replace("6:0 7:0", "6:0 7:4096")  # priority 7 with a number that can be cut short
    for cut in range(body.rindex("7:") + 3, len(body) + 1):
        ports, warnings = _parse("linux-dcb", {DCB: body[:cut]})
        assert ports == {} and warnings == [f"{DCB}: no end mark (a cut answer); not read"], cut
    ports, _ = _parse("linux-dcb", {DCB: with_end(body)})
    assert ports["eth0"]["prio"]["pfc_rx"]["7"] == 4096 and ports["eth0"]["prio"]["pfc_tx"]["7"] == 4096


def test_an_output_without_a_final_newline_keeps_its_end_mark_on_its_last_line() -> None:
    """``dcb -j`` printed without a trailing newline: bash prints the mark right after the JSON; it still
    closes a whole answer (the mark is printed only once the command ended)."""
    outs = _outputs(FIXTURES / "linux-dcb/counters/layout-pfc-json.txt")
    cmd = "dcb -j pfc show dev eth0 requests indications"
    body = outs[cmd].rstrip("\n")[: -len(END_MARK)].rstrip("\n")
    ports, warnings = _parse("linux-dcb", {cmd: body + END_MARK})
    assert warnings == [] and ports["eth0"]["prio"]["pfc_rx"]["4"] == 4096
    ports, warnings = _parse("linux-dcb", {cmd: body[:-1] + END_MARK[:-1]})
    assert ports == {} and warnings == [f"{cmd}: no end mark (a cut answer); not read"]


def test_dcb_text_with_one_line_is_not_read() -> None:
    """A whole answer (with its end mark) that has only the requests line: neither line is read."""
    outs = _outputs(FIXTURES / "linux-dcb/counters/real/kernel-doc-pfc-text.txt")
    ports, warnings = _parse("linux-dcb", {DCB: with_end(outs[DCB].split("\n")[0])})
    assert ports == {} and warnings == [f"{DCB}: neither dcb JSON nor dcb text"]
