"""Generic Linux DCB hosts: iproute2's ``dcb`` and ``rdma`` tools plus ``ethtool -S`` over SSH.

Sources (``SOURCES``): iproute2 man pages dcb-pfc(8) (``dcb pfc show dev DEV requests indications``: PFC
frames sent / received per priority), rdma-statistic(8) (``rdma statistic show``: the RDMA device's
hw_counters per link, named by the driver) and rdma-link(8) (``rdma link show``: the netdev of each RDMA
link). RoCE counter names are those the kernel drivers register (mlx5: ``np_cnp_sent``, ...; bnxt_re:
``tx_cnp_pkts``, ...; see the connectx and bnxt counter modules for their sources). ``ethtool -S`` discard
names likewise depend on the driver (mlx5 ``rx_prio{p}_discards`` / ``rx_discards_phy``, bnxt_en
``rx_discard_packets_cos{p}``). dcb reports no pause duration.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roceconf.counters import modulediag
from roceconf.counters.hostnic import (
    ETHTOOL,
    LINK_ANSWERS,
    LINK_READS,
    LINK_SOURCES,
    LINK_TEMPLATES,
    MODULE,
    answer_port,
    apply_names,
    command_port,
    complete,
    format_ethtool,
    key_values,
    link_commands,
    named,
    prio_patterns,
    read_link,
)
from roceconf.counters.model import CounterSpec, PortCounters, to_int
from roceconf.counters.parsing import jload
from roceconf.platforms.bnxt.counters import HW_PORT as BNXT_RE_HW
from roceconf.platforms.connectx.counters import HW_PORT as MLX5_HW

PFC = "dcb -j pfc show dev {port} requests indications"
#: the same without -j (a saved answer in dcb's text form is read too)
PFC_TEXT = "dcb pfc show dev {port} requests indications"
LINKS = "rdma -j link show"
STATS = "rdma -j statistic show"
ETHTOOL_PRIO = {"rx_prio{p}_discards": "pg_drops", "rx_discard_packets_cos{p}": "pg_drops"}
ETHTOOL_PORT = {"rx_discards_phy": "rx_discards_phy"}
#: the RoCE counters ``rdma statistic show`` lists under the names their drivers register (mlx5, bnxt_re)
RDMA_PORT = {**MLX5_HW, **BNXT_RE_HW}
SOURCES = {
    PFC: "iproute2 dcb-pfc(8): dcb pfc show dev DEV requests indications (PFC frames sent/received per priority)",
    LINKS: "iproute2 rdma-link(8): rdma link show (ifname, port, netdev)",
    STATS: "iproute2 rdma-statistic(8): rdma statistic show (driver hw_counters per link)",
    ETHTOOL: "ethtool(8) -S: driver statistics (mlx5 rx_prio{p}_discards / rx_discards_phy, bnxt_en rx_discard_packets_cos{p})",
}


def commands(ports: dict[str, str | None]) -> list[str]:
    out = [LINKS, STATS]
    for p in ports:
        out += [PFC.format(port=p), ETHTOOL.format(port=p)]
    return out


def _per_prio(v: Any) -> dict[int, int]:
    if isinstance(v, list):
        return {i: n for i, x in enumerate(v[:8]) if (n := to_int(x)) is not None}
    if isinstance(v, dict):
        return {
            int(k): n
            for k, x in v.items()
            if str(k).isdigit() and len(str(k)) == 1 and int(k) < 8 and (n := to_int(x)) is not None
        }
    return {}


_PFC_LINE = re.compile(r"(requests|indications)((?:\s+[0-7]:\d{1,20}){8})\s*")


def _pfc_text(text: str) -> dict[str, dict[int, int]]:
    """dcb's text form: ``requests 0:0 1:0 ... 7:0`` and ``indications ...`` lines, each read only with all
    eight priorities in order (a cut answer loses the later ones), and only when both lines are there. An
    answer cut inside priority 7's number of the last line looks whole here: the missing end mark
    (:func:`roceconf.counters.hostnic.complete`) keeps it from being read."""
    out: dict[str, dict[int, int]] = {}
    for line in text.replace("\r", "").split("\n"):
        m = _PFC_LINE.fullmatch(line.strip())
        if not m:
            continue
        pairs = [tuple(int(x) for x in kv.split(":")) for kv in m.group(2).split()]
        if [p for p, _ in pairs] == list(range(8)):
            out[m.group(1)] = dict(pairs)
    return out if len(out) == 2 else {}


def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
    ports: dict[str, PortCounters] = {}
    warnings: list[str] = []
    try:
        whole: dict[str, str] = {}
        for cmd, text in outputs.items():  # an answer without its end mark was cut: none of it is read
            body = complete(text)
            if body is not None:
                whole[cmd] = body
            elif cmd == LINKS or cmd == STATS or command_port(cmd, [PFC, PFC_TEXT, ETHTOOL, *LINK_TEMPLATES, MODULE]):
                warnings.append(f"{cmd}: no end mark (a cut answer); not read")
        outputs = whole
        netdev: dict[tuple[str, int], str] = {}
        links = jload(outputs.get(LINKS, ""))
        for ln in links if isinstance(links, list) else []:
            if isinstance(ln, dict) and ln.get("netdev") and to_int(ln.get("port")) is not None:
                netdev[(str(ln.get("ifname")), to_int(ln.get("port")) or 0)] = str(ln["netdev"])
        for cmd, text in outputs.items():
            hit = command_port(cmd, [PFC, PFC_TEXT, ETHTOOL, *LINK_TEMPLATES, MODULE])
            if hit is not None:
                template, port = hit
                if template == MODULE:
                    modulediag.read(text, ports.setdefault(port, PortCounters()))
                    continue
                if template in LINK_TEMPLATES:
                    if not read_link(text, ports.setdefault(port, PortCounters()), template) and text.strip():
                        warnings.append(f"{cmd}: no link counters found")
                elif template in (PFC, PFC_TEXT):
                    data = jload(text)
                    if not isinstance(data, dict):
                        data = _pfc_text(text)
                    if not data:
                        if text.strip():
                            warnings.append(f"{cmd}: neither dcb JSON nor dcb text")
                        continue
                    pc = ports.setdefault(port, PortCounters())
                    for key, c in (("requests", "pfc_tx"), ("indications", "pfc_rx")):
                        for p, v in _per_prio(data.get(key)).items():
                            pc.set_prio(c, p, v)
                else:
                    values = key_values(text)
                    if values:
                        apply_names(
                            ports.setdefault(port, PortCounters()),
                            values,
                            prio_patterns(ETHTOOL_PRIO),
                            ETHTOOL_PORT,
                        )
            elif cmd == STATS:
                data = jload(text)
                for st in data if isinstance(data, list) else []:
                    if not isinstance(st, dict):
                        continue
                    port = netdev.get((str(st.get("ifname")), to_int(st.get("port")) or 0))
                    if port is None:
                        continue
                    values = {k: n for k, v in st.items() if (n := to_int(v)) is not None and k != "port"}
                    apply_names(ports.setdefault(port, PortCounters()), values, [], RDMA_PORT)
    except Exception as e:  # noqa: BLE001 - a parser never raises
        warnings.append(f"unexpected {type(e).__name__} while reading counters")
    return {n: p for n, p in ports.items() if not p.empty() or p.link or p.optics}, warnings


def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
    cmd = " ".join(command.split())
    if cmd == LINKS:
        return json.dumps(
            [
                {
                    "ifindex": i,
                    "ifname": rdma.get(p) or f"rdma{i}",
                    "port": 1,
                    "state": "ACTIVE",
                    "physical_state": "LINK_UP",
                    "netdev": p,
                }
                for i, p in enumerate(ports)
            ]
        )
    if cmd == STATS:
        return json.dumps(
            [
                # the lab's hosts answer with mlx5's names
                {"ifname": rdma.get(p) or f"rdma{i}", "port": 1, **named(pc, {}, MLX5_HW)}
                for i, (p, pc) in enumerate(ports.items())
            ]
        )
    return answer_port(
        cmd, ports, {PFC: _pfc_answer, ETHTOOL: _ethtool_answer, **LINK_ANSWERS}, _no_device
    )


def _pfc_answer(port: str, pc: PortCounters) -> str:
    return json.dumps(
        {
            "requests": [pc.prio.get("pfc_tx", {}).get(p, 0) for p in range(8)],
            "indications": [pc.prio.get("pfc_rx", {}).get(p, 0) for p in range(8)],
        }
    )


def _ethtool_answer(port: str, pc: PortCounters) -> str:
    return format_ethtool(named(pc, {"rx_prio{p}_discards": "pg_drops"}, ETHTOOL_PORT))


def _no_device(template: str, port: str) -> str:
    return f'Cannot find device "{port}"'


COUNTERS = CounterSpec(
    commands=commands,
    parse=parse,
    simulate=simulate,
    sources=SOURCES,
    transport="shell",
    link_commands=link_commands,
    link_sources=LINK_SOURCES,
    link_reads=LINK_READS,
)
