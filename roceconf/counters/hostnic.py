"""The mechanics the three host NIC platforms share: per-port commands, ``ethtool -S`` and ``hw_counters``
reading by name tables. The names themselves (and their sources) live in each platform's ``counters.py``.

A name table maps a vendor counter name to a neutral counter: per priority (``rx_prio{p}_pause`` ->
``pfc_rx``) or per port (``np_cnp_sent`` -> ``cnp_sent``).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable

from roceconf.counters import modulediag
from roceconf.counters.model import PORT_COUNTERS, CounterSpec, PortCounters, fec_mode_code
from roceconf.counters.parsing import grep_files, key_values, read_outputs

log = logging.getLogger(__name__)

ETHTOOL = "ethtool -S {port}"
#: driver counter names worth a look when a table does not know them (listed under --debug)
NOTABLE = re.compile(r"prio|pause|pfc|discard|cnp|ecn|nak|seq_err|out_of_seq|retrans|timeout")
HW_COUNTERS = "grep -H . /sys/class/net/{port}/device/infiniband/*/ports/1/hw_counters/*"
#: link counters of a netdev (``roceconf cabling``): the kernel's sysfs attributes, read with ``grep -H`` as the
#: hw_counters are. Names and meaning: Linux Documentation/ABI/testing/sysfs-class-net (``carrier_changes``;
#: ``speed``, "the current speed ... in Mbits/sec", which the kernel does not give for a link that is down: grep
#: then prints no line, or the driver's -1, and the speed is not read) and sysfs-class-net-statistics
#: (``rx_crc_errors``, ``rx_bytes``, ``tx_bytes``). No public recording of this command's answer is kept (its
#: layout is grep's ``FILE:VALUE``); FEC counters have no sysfs attribute.
LINK_SYSFS = (
    "grep -H . /sys/class/net/{port}/carrier_changes /sys/class/net/{port}/speed"
    " /sys/class/net/{port}/statistics/rx_crc_errors"
    " /sys/class/net/{port}/statistics/rx_bytes /sys/class/net/{port}/statistics/tx_bytes"
)
#: the command before the speed was read (saved samples of earlier runs are still read)
LINK_SYSFS_V1 = (
    "grep -H . /sys/class/net/{port}/carrier_changes /sys/class/net/{port}/statistics/rx_crc_errors"
    " /sys/class/net/{port}/statistics/rx_bytes /sys/class/net/{port}/statistics/tx_bytes"
)
#: the port's FEC mode: ethtool(8) ``--show-fec`` prints "Active FEC encoding: MODE" (``RS``, ``BaseR``, ``Off``,
#: ``LLRS``; ``None`` where the driver reports no active mode; ``Auto`` from drivers of the legacy interface), as
#: ethtool's netlink/fec.c writes it and the kernel's own documentation records it
#: (Documentation/networking/device_drivers/ethernet/netronome/nfp.rst; tests/fixtures/connectx/counters/real/)
FEC_SHOW = "ethtool --show-fec {port}"
LINK_NAMES = {
    "carrier_changes": "carrier_transitions",
    "rx_crc_errors": "fcs_errors",
    "rx_bytes": "rx_octets",
    "tx_bytes": "tx_octets",
}
#: the optics of each port's module (``roceconf cabling`` RC514-RC516), read by :mod:`roceconf.counters.modulediag`
MODULE = modulediag.MODULE
LINK_READS = frozenset({*LINK_NAMES.values(), "speed_bps", "fec_mode", "rx_power_dbm", "tx_power_dbm",
                        "temperature_c"})
LINK_SOURCE = (
    "Linux Documentation/ABI/testing/sysfs-class-net (carrier_changes, speed in Mb/s) and "
    "sysfs-class-net-statistics (rx_crc_errors, rx_bytes, tx_bytes), read with grep -H (FILE:VALUE lines)"
)
FEC_SOURCE = (
    "ethtool(8) --show-fec (netlink/fec.c: Active FEC encoding), as Linux Documentation/networking/"
    "device_drivers/ethernet/netronome/nfp.rst records its output"
)
#: the per-port commands whose answers carry link counters (the old sysfs command too, for saved samples)
LINK_TEMPLATES = (LINK_SYSFS, LINK_SYSFS_V1, FEC_SHOW)
_ACTIVE_FEC = re.compile(r"^\s*Active FEC encoding:\s*(\S+)\s*$", re.MULTILINE)
LINK_SOURCES = {LINK_SYSFS: LINK_SOURCE, FEC_SHOW: FEC_SOURCE, MODULE: modulediag.SOURCE}
#: the line the host bundle prints after each command's output (``echo '#=== end'``): an answer without it
#: was cut - inside its last number too, where ``rx_prio3_pause: 1234`` would read as 12 - and is not read
END_MARK = "#=== end"


def complete(text: str) -> str | None:
    """The output of one host command without its end mark, or None when the mark is missing (a cut
    answer: nothing in it is read)."""
    body = text.replace("\r", "").rstrip()
    if not body.endswith(END_MARK):
        return None
    # an output without a final newline has the mark on its last line: the mark is printed only after the
    # command ended, so what stands before it is whole
    return body[: -len(END_MARK)].rstrip("\n")


def with_end(text: str) -> str:
    """One command's output as the host bundle prints it (what :func:`complete` reads back)."""
    return text.rstrip("\n") + "\n" + END_MARK + "\n"


def link_commands(ports: dict[str, str | None]) -> list[str]:
    """``CounterSpec.link_commands`` of a host: the sysfs link counters, the FEC mode and the module's optics of
    each of the intent's ports."""
    return [t.format(port=p) for p in ports for t in (LINK_SYSFS, FEC_SHOW, MODULE)]


def read_link(body: str, pc: PortCounters, template: str = LINK_SYSFS) -> bool:
    """A link command's answer (``LINK_TEMPLATES``, end mark already taken off) into ``pc``; False when it
    holds none."""
    if template == FEC_SHOW:
        m = _ACTIVE_FEC.search(body)
        mode = fec_mode_code(m.group(1), none_is_off=False) if m else None
        if mode is None:  # "None": the driver reports no active mode (said as no link counter found)
            return False
        pc.set_link("fec_mode", mode)
        return True
    files = grep_files(body)
    got = {c: v for n, v in files.items() if (c := LINK_NAMES.get(n))}
    if files.get("speed", 0) > 0:
        got["speed_bps"] = files["speed"] * 10**6
    for c, v in got.items():
        pc.set_link(c, v)
    return bool(got)


def answer_link(port: str, pc: PortCounters) -> str:
    """The lab's answer to ``LINK_SYSFS``: one ``FILE:VALUE`` line per link counter the port has (the speed of
    a port that has none: no line, as grep prints none for a link that is down)."""
    files = {"carrier_changes": f"/sys/class/net/{port}/carrier_changes"}
    out = []
    for name, c in LINK_NAMES.items():
        if c in pc.link:
            path = files.get(name, f"/sys/class/net/{port}/statistics/{name}")
            out.append(f"{path}:{pc.link[c]}\n")
        if name == "carrier_changes" and pc.link.get("speed_bps"):
            out.append(f"/sys/class/net/{port}/speed:{pc.link['speed_bps'] // 10**6}\n")
    return "".join(out)


#: ethtool's spelling of each FEC mode code (``FEC_MODES``)
_ETHTOOL_FEC = {0: "Auto", 1: "Off", 2: "BaseR", 3: "RS", 4: "LLRS"}


def answer_fec(port: str, pc: PortCounters) -> str:
    """The lab's answer to ``FEC_SHOW``, as ethtool prints it (``None`` where the port has no mode)."""
    active = _ETHTOOL_FEC.get(pc.link.get("fec_mode", -1), "None")
    return f"FEC parameters for {port}:\nSupported/Configured FEC encodings: Auto RS BaseR\nActive FEC encoding: {active}\n"


#: the lab's answers to the link commands
LINK_ANSWERS = {LINK_SYSFS: answer_link, FEC_SHOW: answer_fec, MODULE: modulediag.answer}


def prio_patterns(table: dict[str, str]) -> list[tuple[re.Pattern[str], str]]:
    return [
        (re.compile("^" + re.escape(name).replace(r"\{p\}", r"([0-7])") + "$"), c)
        for name, c in table.items()
    ]


def apply_names(
    pc: PortCounters, values: dict[str, int], prio: list[tuple[re.Pattern[str], str]], port: dict[str, str]
) -> None:
    for name, v in values.items():
        if name in port:
            c = port[name]
            if c in PORT_COUNTERS:
                pc.port[c] = pc.port.get(c, 0) + v if c in pc.port and c == "rx_discards_phy" else v
            continue
        for rx, c in prio:
            m = rx.match(name)
            if m:
                pc.add_prio(c, int(m.group(1)), v)
                break


def command_port(cmd: str, templates: list[str]) -> tuple[str, str] | None:
    """(template, port-or-rdma) of a per-port command."""
    words = " ".join(cmd.split())
    for t in templates:
        m = _template_rx(t).match(words)
        if m:
            return t, m.group(1)
    return None


@functools.lru_cache(maxsize=256)
def _template_rx(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(template).replace(r"\{port\}", r"(\S+)") + "$")


def answer_port(
    command: str,
    ports: dict[str, PortCounters],
    answers: dict[str, Callable[[str, PortCounters], str]],
    missing: Callable[[str, str], str],
) -> str | None:
    """The lab's answer to a per-port counter command (for the lab's hosts): ``answers[template](port,
    counters)``; for a port the lab does not have, ``missing(template, port)``; None for another command."""
    hit = command_port(command, list(answers))
    if hit is None:
        return None
    template, port = hit
    pc = ports.get(port)
    return missing(template, port) if pc is None else answers[template](port, pc)


def parse_bundle(
    outputs: dict[str, str],
    readers: dict[str, Callable[[str], dict[str, int]]],
    tables: dict[str, tuple[dict[str, str], dict[str, str]]],
) -> tuple[dict[str, PortCounters], list[str]]:
    """outputs -> ports. ``readers``: command template (with ``{port}``) -> text reader; ``tables``:
    template -> (per-priority, per-port) name tables."""

    def read(
        cmd: str, text: str, ports: dict[str, PortCounters], warnings: list[str], unknown: set[str]
    ) -> None:
        hit = command_port(cmd, list(readers))
        if hit is None:
            return
        template, port = hit
        body = complete(text)
        if body is None:
            warnings.append(f"{cmd}: no end mark (a cut answer); not read")
            return
        if template in LINK_TEMPLATES:
            if not read_link(body, ports.setdefault(port, PortCounters()), template) and body.strip():
                warnings.append(f"{cmd}: no link counters found")
            return
        if template == MODULE:
            modulediag.read(body, ports.setdefault(port, PortCounters()))
            return
        values = readers[template](body)
        if not values:
            if body.strip():
                warnings.append(f"{cmd}: no counters found")
            return
        names[template].apply(ports.setdefault(port, PortCounters()), values, unknown)

    names = {t: _names(*tables[t]) for t in tables}
    return read_outputs(outputs, read, log)


#: the name tables in use (module constants of the platforms) and what their names mean
_NAMES: dict[tuple[int, int], tuple[dict[str, str], dict[str, str], _Names]] = {}


def _names(prio_t: dict[str, str], port_t: dict[str, str]) -> _Names:
    got = _NAMES.get((id(prio_t), id(port_t)))
    if got is not None and got[0] is prio_t and got[1] is port_t:
        return got[2]
    names = _Names(prio_t, port_t)
    if len(_NAMES) < 64:
        _NAMES[(id(prio_t), id(port_t))] = (prio_t, port_t, names)
    return names


class _Names:
    """What each vendor counter name of one name table means (:func:`apply_names`), worked out once per name:
    a driver prints the same few hundred names on every port of every host."""

    __slots__ = ("meaning_of", "pats", "port_t")
    #: names remembered per table (a bounded memo: past it each name is matched again)
    LIMIT = 65536

    def __init__(self, prio_t: dict[str, str], port_t: dict[str, str]) -> None:
        self.pats = prio_patterns(prio_t)
        self.port_t = port_t
        self.meaning_of: dict[str, tuple[str, str, int]] = {}

    def meaning(self, name: str) -> tuple[str, str, int]:
        """("port", counter, 0), ("prio", counter, priority), ("notable", "", 0) (not understood, listed
        under --debug) or ("", "", 0)."""
        got = self.meaning_of.get(name)
        if got is not None:
            return got
        if name in self.port_t:
            got = ("port", self.port_t[name], 0)
        else:
            for rx, c in self.pats:
                m = rx.match(name)
                if m:
                    got = ("prio", c, int(m.group(1)))
                    break
            else:
                got = ("notable", "", 0) if NOTABLE.search(name) else ("", "", 0)
        if len(self.meaning_of) < self.LIMIT:
            self.meaning_of[name] = got
        return got

    def apply(self, pc: PortCounters, values: dict[str, int], unknown: set[str]) -> None:
        """:func:`apply_names` of ``values`` into ``pc``; the names not understood go to ``unknown``."""
        meaning_of = self.meaning_of
        prio = pc.prio
        for name, v in values.items():
            got = meaning_of.get(name)
            kind, c, p = self.meaning(name) if got is None else got
            if kind == "prio":
                # PortCounters.add_prio
                if 0 <= p <= 7 and v >= 0:
                    d = prio.get(c)
                    if d is None:
                        d = prio[c] = {}
                    d[p] = d.get(p, 0) + int(v)
            elif kind == "port":
                if c in PORT_COUNTERS:
                    pc.port[c] = pc.port.get(c, 0) + v if c in pc.port and c == "rx_discards_phy" else v
            elif kind == "notable":
                unknown.add(name)


def format_ethtool(values: dict[str, int]) -> str:
    return "NIC statistics:\n" + "".join(f"     {k}: {v}\n" for k, v in values.items())


def format_grep(directory: str, values: dict[str, int]) -> str:
    return "".join(f"{directory}/{k}:{v}\n" for k, v in sorted(values.items()))


def named(pc: PortCounters, prio_t: dict[str, str], port_t: dict[str, str]) -> dict[str, int]:
    """Vendor names and values of a port's counters (the inverse of apply_names, for the lab)."""
    out: dict[str, int] = {}
    for name, c in prio_t.items():
        for p in range(8):
            out[name.replace("{p}", str(p))] = pc.prio.get(c, {}).get(p, 0)
    for name, c in port_t.items():
        out[name] = pc.port.get(c, 0)
    return out


def ethtool_and_hw_counters(
    ethtool_prio: dict[str, str],
    ethtool_port: dict[str, str],
    hw_port: dict[str, str],
    *,
    ethtool_source: str,
    hw_source: str,
    lab_rdma_device: str,
) -> CounterSpec:
    """The counters of a host NIC whose drivers name them in ``ethtool -S <port>`` and in the port's RDMA device
    ``hw_counters`` files (ConnectX, bnxt): per port, one command of each; the name tables and the documents
    that define them (``ethtool_source``, ``hw_source``) are the platform's. The lab answers for a port without
    an RDMA device of its own with ``lab_rdma_device``."""
    readers = {ETHTOOL: key_values, HW_COUNTERS: grep_files, **dict.fromkeys(LINK_TEMPLATES, grep_files),
               MODULE: grep_files}
    tables = {ETHTOOL: (ethtool_prio, ethtool_port), HW_COUNTERS: ({}, hw_port)}

    def commands(ports: dict[str, str | None]) -> list[str]:
        return [t.format(port=p) for p in ports for t in (ETHTOOL, HW_COUNTERS)]

    def parse(outputs: dict[str, str]) -> tuple[dict[str, PortCounters], list[str]]:
        return parse_bundle(outputs, readers, tables)

    def simulate(ports: dict[str, PortCounters], command: str, rdma: dict[str, str | None]) -> str | None:
        def ethtool(port: str, pc: PortCounters) -> str:
            return format_ethtool(named(pc, ethtool_prio, ethtool_port))

        def hw(port: str, pc: PortCounters) -> str:
            dev = rdma.get(port) or lab_rdma_device
            return format_grep(
                f"/sys/class/net/{port}/device/infiniband/{dev}/ports/1/hw_counters", named(pc, {}, hw_port)
            )

        def missing(template: str, port: str) -> str:
            return f"netlink error: no device matches name ({port})" if template == ETHTOOL else ""

        return answer_port(command, ports, {ETHTOOL: ethtool, HW_COUNTERS: hw, **LINK_ANSWERS}, missing)

    sources = {ETHTOOL: ethtool_source, HW_COUNTERS: hw_source}
    return CounterSpec(
        commands=commands,
        parse=parse,
        simulate=simulate,
        sources=sources,
        transport="shell",
        link_commands=link_commands,
        link_sources=LINK_SOURCES,
        link_reads=LINK_READS,
    )


__all__ = [
    "END_MARK",
    "ETHTOOL",
    "HW_COUNTERS",
    "FEC_SHOW",
    "FEC_SOURCE",
    "LINK_ANSWERS",
    "LINK_READS",
    "LINK_SOURCES",
    "LINK_SYSFS",
    "LINK_SYSFS_V1",
    "LINK_TEMPLATES",
    "MODULE",
    "answer_fec",
    "answer_link",
    "link_commands",
    "read_link",
    "complete",
    "ethtool_and_hw_counters",
    "format_ethtool",
    "format_grep",
    "grep_files",
    "key_values",
    "named",
    "parse_bundle",
    "with_end",
]
