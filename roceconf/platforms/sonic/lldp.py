"""SONiC LLDP neighbours: ``show lldp table`` (sonic-utilities ``scripts/lldpshow``), or ``lldpctl -f json``
(SONiC's LLDP container runs lldpd) where a saved file holds that instead.

Source: sonic-utilities ``scripts/lldpshow`` (the table is ``tabulate(rows, ['LocalPort', 'RemoteDevice',
'RemotePortID', 'Capability', 'RemotePortDescr'])`` between a capability legend and a ``Total entries
displayed`` line) and its test ``tests/lldp_test.py`` (expected output recorded in
tests/fixtures/sonic/lldp/real/, Apache-2.0). The columns are split at the dashed rule's gaps, so a
description with spaces stays one cell.
"""

from __future__ import annotations

from roceconf.neighbors import LLDPCTL, LldpSpec, Neighbor, Parsed, parse_lldpctl, simulate_lldpctl

SHOW = "show lldp table"
HEADER = ("LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr")


def parse_table(text: str) -> Parsed:
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.split()[:3] == list(HEADER[:3])), None)
    if head is None or head + 1 >= len(lines) or not lines[head + 1].lstrip().startswith("-"):
        return [], [f"{SHOW}: no LocalPort/RemoteDevice table header"]
    rule = lines[head + 1]
    spans, start = [], None
    for i, ch in enumerate(rule + " "):
        if ch == "-" and start is None:
            start = i
        elif ch != "-" and start is not None:
            spans.append((start, i))
            start = None
    if len(spans) != len(HEADER):
        return [], [f"{SHOW}: {len(spans)} columns, {len(HEADER)} expected"]
    out: list[Neighbor] = []
    for ln in lines[head + 2 :]:
        if not ln.strip() or ln.lstrip().startswith("-") or ln.startswith("Total entries"):
            continue
        cells = [ln[a : (spans[k + 1][0] if k + 1 < len(spans) else len(ln))].strip() for k, (a, _b) in enumerate(spans)]
        out.append(Neighbor(cells[0], cells[1], cells[2], cells[4]))
    return out, []


def parse(outputs: dict[str, str]) -> Parsed:
    if SHOW in outputs:
        return parse_table(outputs[SHOW])
    if LLDPCTL in outputs:
        return parse_lldpctl(outputs[LLDPCTL])
    return [], [f"no output of {SHOW!r}"]


def simulate(command: str, neighbours: list[Neighbor], hostname: str) -> str | None:
    cmd = " ".join(command.split())
    if cmd == LLDPCTL:
        return simulate_lldpctl(neighbours)
    if cmd != SHOW:
        return None
    rows = [(n.local_port, n.system_name, n.port_id, "BR", n.port_descr) for n in neighbours]
    widths = [max([len(h), *(len(r[k]) for r in rows)]) for k, h in enumerate(HEADER)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(widths[k]) for k, c in enumerate(cells)).rstrip()

    out = ["Capability codes: (R) Router, (B) Bridge, (O) Other", line(HEADER),
           "  ".join("-" * w for w in widths), *(line(r) for r in rows), "-" * 50,
           f"Total entries displayed:  {len(rows)}"]
    return "\n".join(out) + "\n"


LLDP = LldpSpec(
    commands=(SHOW,),
    parse=parse,
    simulate=simulate,
    sources={
        SHOW: "sonic-utilities scripts/lldpshow and tests/lldp_test.py (recorded expected output)",
        LLDPCTL: "lldpd: lldpctl(8) -f json (SONiC lldp container)",
    },
    transport="cli",
)
