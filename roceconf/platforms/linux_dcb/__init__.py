"""Generic Linux host NIC configured with iproute2 ``dcb``, ``ip``, ``ethtool`` and RDMA-CM configfs.

The rendered file is an idempotent bash script; ``parse`` reads that script *and* a read-back bundle
(``#>>> <command>`` before each command's output) of ``dcb [-j] {pfc,ets,app} show``, ``ip [-j] link show``,
``ethtool -a``, ``rdma [-j] link show`` and ``cat .../rdma_cm/<dev>/ports/1/default_roce_tos``.

This module also holds the dcb/ethtool/ip parsing engine (:class:`HostParser`) and the shared template
filters and simulator that the ``bnxt`` platform reuses.

State mapping (both inputs):

* ``dscp_to_tc`` (host-wide) is the DSCP map shared by most DSCP-trusting ports (ties: first port in
  natural order); a port whose map differs gets ``Interface.dscp_to_tc``.
* ``trust`` is ``dscp`` iff the port has DSCP APP entries (``pcp`` when the APP table has none).
* ``pfc.no_drop`` = priorities with PFC on; ``pfc.enabled`` = any on.
* ``scheduling`` is keyed by roceconf priority/TC: for every hardware TC that has priorities mapped to it
  (``prio-tc``), the key is the lowest priority mapped there (identity maps give key == TC).
* ``rdma.device`` comes from ``rdma link show`` (bundle) or ``check_rdma_dev <netdev> <dev>`` (script),
  ``rdma.roce_tos`` from RDMA-CM configfs ``default_roce_tos``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.base import (
    BUNDLE_MARK,
    Capabilities,
    Fact,
    Platform,
    parse_shared_by_line,
    split_outputs,
)
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched

NAME = "linux-dcb"

#: DSCP names that ``dcb app show`` prints (from /etc/iproute2/rt_dsfield; dcb uses the upper 6 bits).
DSCP_NAMES: dict[str, int] = {
    **{f"CS{i}": 8 * i for i in range(8)},
    **{f"AF{x}{y}": 8 * x + 2 * y for x in range(1, 5) for y in range(1, 4)},
    "EF": 46,
    "VA": 44,
    "LE": 1,
}

#: Outputs that mean "this device / tool cannot answer": the values stay unknown.
_UNSUPPORTED = re.compile(
    r"operation not supported|not supported|command not found|no such file or directory|"
    r"cannot find device|does not exist|permission denied|invalid argument|"
    r"error: |^usage:",
    re.I | re.M,
)

_RDMA_CM = "/sys/kernel/config/rdma_cm"
_TOS_PATH = re.compile(r"/sys/kernel/config/rdma_cm/([^/\s]+)/ports/(\d+)/default_roce_tos")


# --------------------------------------------------------------------------- small helpers
def tos_path(dev: str, port: int = 1) -> str:
    return f"{_RDMA_CM}/{dev}/ports/{port}/default_roce_tos"


def dscp_value(token: str) -> int | None:
    """'26' / '0x1a' / 'AF31' -> DSCP, None if not a DSCP."""
    t = token.strip()
    if t.upper() in DSCP_NAMES:
        return DSCP_NAMES[t.upper()]
    try:
        v = int(t, 0)
    except ValueError:
        return None
    return v if 0 <= v <= 63 else None


def _int(token: Any, lo: int = 0, hi: int = 1 << 31) -> int | None:
    if isinstance(token, bool):
        return None
    if isinstance(token, int):
        return token if lo <= token <= hi else None
    try:
        v = int(str(token).strip(), 0)
    except ValueError:
        return None
    return v if lo <= v <= hi else None


def is_unsupported(output: str) -> bool:
    return bool(_UNSUPPORTED.search(output))


def _json(output: str) -> Any:
    try:
        return json.loads(output)
    except (ValueError, RecursionError):
        return None


def _kv_map(tokens: list[str], conv: Callable[[str], Any], size: int = 8) -> dict[int, Any]:
    """['all:off', '3:on'] -> {0: False, ..., 3: True}; keys outside 0..size-1 are ignored."""
    out: dict[int, Any] = {}
    for tok in tokens:
        k, sep, v = tok.partition(":")
        if not sep:
            continue
        val = conv(v)
        if val is None:
            continue
        if k == "all":
            for i in range(size):
                out[i] = val
        else:
            ki = _int(k, 0, size - 1)
            if ki is not None:
                out[ki] = val
    return out


def _onoff(v: str) -> bool | None:
    return {"on": True, "off": False, "true": True, "false": False}.get(v.strip().lower())


_TSA = {"strict", "ets", "cbs", "vendor"}


def _tsa(v: str) -> str | None:
    v = v.strip().lower()
    return v if v in _TSA or v == "???" else None


def _keyword_groups(text: str, keywords: set[str]) -> dict[str, list[str]]:
    """Plain-text dcb output: 'kw a:b c:d kw2 ...' -> {kw: [a:b, c:d], kw2: [...]}."""
    out: dict[str, list[str]] = {}
    cur: str | None = None
    for tok in text.split():
        if tok in keywords:
            cur = tok
            out.setdefault(cur, [])
        elif cur is not None and ":" in tok:
            out[cur].append(tok)
        elif cur is not None and tok not in keywords:
            # a scalar after a keyword (e.g. 'pfc-cap 8') ends the group
            out[cur].append(tok)
            cur = None
    return out


# --------------------------------------------------------------------------- raw per-port record
@dataclass
class RawPort:
    name: str
    lines: list[int] = field(default_factory=list)
    mtu: int | None = None
    link_pause: bool | None = None
    pfc: dict[int, bool] | None = None
    tsa: dict[int, str] = field(default_factory=dict)
    bw: dict[int, int] = field(default_factory=dict)
    prio_tc: dict[int, int] = field(default_factory=dict)
    ets_seen: bool = False
    #: DSCP APP entries as [(dscp, prio)] (a multiset); None = APP table not read.
    app_dscp: list[tuple[int, int]] | None = None
    app_dgram: list[tuple[int, int]] = field(default_factory=list)
    rdma_dev: str | None = None
    src: dict[str, tuple[list[int], str]] = field(default_factory=dict)

    def at(self, key: str, line: int | None, text: str) -> None:
        if line is None:
            return
        old = self.src.get(key)
        if old:
            old[0].append(line)
        else:
            self.src[key] = ([line], text.strip()[:200])


# --------------------------------------------------------------------------- the parser engine
class HostParser:
    """Reads a host script or a read-back bundle into a DeviceState. Subclass hooks: ``extra_*``."""

    platform = NAME
    #: Does the platform express roceconf priority N == hardware TC N? (no: linux-dcb renders contiguous
    #: TCs, bnxt its fixed layout; each TC is read back as the lowest priority mapped to it)
    identity_prio_tc = False

    def __init__(self) -> None:
        self.state = DeviceState(platform=self.platform)
        self.ports: dict[str, RawPort] = {}
        self.tos: dict[str, tuple[int, int | None, str]] = {}
        self.rdma_links: dict[str, tuple[str, int | None, str]] = {}  # netdev -> (dev, line, text)
        self.functions: set[str] = set()

    # ------------------------------------------------------------------ entry
    def run(self, text: str) -> DeviceState:
        try:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            if any(line.startswith(BUNDLE_MARK) for line in text.split("\n")):
                for cmd, start, out in split_outputs(text):
                    self.bundle_command(cmd, start, out)
            else:
                self.script(text)
            self.finish()
        except Exception as exc:  # noqa: BLE001 - a parser never raises
            self.state.warn(f"internal parser error: {type(exc).__name__}: {exc}", code="INTERNAL")
        return self.state

    def port(self, name: str, line: int | None) -> RawPort:
        p = self.ports.get(name)
        if p is None:
            p = self.ports[name] = RawPort(name)
        if line is not None:
            p.lines.append(line)
        return p

    # ------------------------------------------------------------------ bundle
    def bundle_command(self, cmd: str, start: int, out: str) -> None:
        argv = cmd.split()
        first = out.strip().split("\n", 1)[0] if out.strip() else ""
        if not argv:
            return
        # an empty answer is only meaningful for a few commands (plain 'dcb app show': no entries)
        empty_ok = argv[0] in ("hostname", "rdma") or (
            argv[0] == "dcb" and "app" in argv and "-j" not in argv
        )
        if (is_unsupported(out) and argv[0] != "hostname") or (not out.strip() and not empty_ok):
            self.state.warn(f"{cmd}: {first.strip()[:160] or 'no output'}", start, code="UNSUPPORTED")
            dev = _dev_of(argv)
            if dev:
                self.port(dev, None)
            return
        try:
            if self.extra_bundle(cmd, argv, start, out):
                return
            if argv[0] == "hostname":
                if first.strip():
                    self.state.hostname = first.strip().split()[0]
                    self.state.at("hostname", start, first)
                return
            if argv[0] == "dcb":
                self._bundle_dcb(cmd, argv, start, out)
                return
            if argv[0] == "ip" and "link" in argv:
                self._bundle_ip_link(cmd, argv, start, out)
                return
            if argv[0] == "ethtool" and len(argv) >= 3 and argv[1] in ("-a", "--show-pause"):
                self._bundle_ethtool_a(argv[2], start, out)
                return
            if argv[0] == "rdma" and "link" in argv:
                self._bundle_rdma_link(start, out)
                return
            m = _TOS_PATH.search(cmd)
            if argv[0] == "cat" and m:
                v = _int(first, 0, 255)
                if v is None:
                    self.state.warn(f"{cmd}: unreadable TOS {first!r}", start)
                else:
                    self.tos[m.group(1)] = (v, start, first)
                return
        except Exception as exc:  # noqa: BLE001
            self.state.warn(f"{cmd}: could not parse output ({type(exc).__name__})", start)
            return
        self.state.warn(f"command not understood: {cmd}", start - 1 if start > 1 else None, code="UNKNOWN")

    def extra_bundle(self, cmd: str, argv: list[str], start: int, out: str) -> bool:
        return False

    def _bundle_dcb(self, cmd: str, argv: list[str], start: int, out: str) -> None:
        dev = _dev_of(argv)
        words = [a for a in argv[1:] if not a.startswith("-")]
        obj = words[0] if words else ""
        if dev is None or obj not in ("pfc", "ets", "app") or "show" not in words:
            self.state.warn(f"dcb command not understood: {cmd}", start - 1, code="UNKNOWN")
            return
        p = self.port(dev, start)
        data = _json(out) if out.strip().startswith(("{", "[")) else None
        if obj == "pfc":
            prio = None
            if isinstance(data, dict):
                arr = data.get("prio_pfc")
                if isinstance(arr, list) and len(arr) >= 8:
                    prio = {i: bool(v) for i, v in enumerate(arr[:8]) if isinstance(v, bool)}
            elif data is None:
                g = _keyword_groups(
                    out, {"prio-pfc", "pfc-cap", "macsec-bypass", "delay", "requests", "indications"}
                )
                if "prio-pfc" in g:
                    prio = _kv_map(g["prio-pfc"], _onoff)
            if prio is None or len(prio) < 8:
                if out.strip() and prio is None and "requests" not in out:
                    self.state.warn(f"{cmd}: no prio-pfc in output", start, code="PARSE")
                return
            p.pfc = prio
            p.at("pfc", _line_of(out, start, ("prio_pfc", "prio-pfc")), out)
        elif obj == "ets":
            if isinstance(data, dict):
                for key, conv, target in (
                    ("tc_tsa", lambda v: v if isinstance(v, str) else None, p.tsa),
                    ("tc_bw", lambda v: v if isinstance(v, int) and not isinstance(v, bool) else None, p.bw),
                    (
                        "prio_tc",
                        lambda v: v if isinstance(v, int) and not isinstance(v, bool) else None,
                        p.prio_tc,
                    ),
                ):
                    arr = data.get(key)
                    if isinstance(arr, list):
                        for i, v in enumerate(arr[:8]):
                            cv = conv(v)
                            if cv is not None:
                                target[i] = cv
            elif data is None:
                g = _keyword_groups(
                    out,
                    {
                        "tc-tsa",
                        "tc-bw",
                        "prio-tc",
                        "pg-bw",
                        "reco-tc-tsa",
                        "reco-tc-bw",
                        "reco-prio-tc",
                        "willing",
                        "ets-cap",
                        "cbs",
                    },
                )
                p.tsa.update(_kv_map(g.get("tc-tsa", []), _tsa))
                p.bw.update(_kv_map(g.get("tc-bw", []), lambda v: _int(v, 0, 100)))
                p.prio_tc.update(_kv_map(g.get("prio-tc", []), lambda v: _int(v, 0, 7)))
            willing = data.get("willing") if isinstance(data, dict) else None
            if data is None:
                w = _keyword_groups(out, {"willing", "ets-cap", "cbs", "tc-tsa", "tc-bw", "prio-tc", "pg-bw"})
                willing = _onoff(w["willing"][0]) if w.get("willing") else None
            if willing is True:
                self.state.warn(
                    f"{dev}: ETS is 'willing': DCBX from the link peer may replace this configuration",
                    _line_of(out, start, ("willing",)),
                    code="DCBX",
                )
            if p.tsa or p.prio_tc:
                p.ets_seen = True
                p.at("scheduling", _line_of(out, start, ("tc_tsa", "prio_tc", "prio-tc", "tc-tsa")), out)
            elif out.strip():
                self.state.warn(f"{cmd}: no ETS data in output", start)
        else:
            entries: list[tuple[int, int]] = []
            dgram: list[tuple[int, int]] = []
            if isinstance(data, dict):
                for e in data.get("dscp_prio") or []:
                    if isinstance(e, list) and len(e) >= 2:
                        d = dscp_value(str(e[0]))
                        pr = _int(e[1], 0, 7)
                        if d is not None and pr is not None:
                            entries.append((d, pr))
                for e in data.get("dgram_port_prio") or []:
                    if isinstance(e, list) and len(e) >= 2:
                        port, pr = _int(e[0], 1, 65535), _int(e[1], 0, 7)
                        if port is not None and pr is not None:
                            dgram.append((port, pr))
            elif data is None:
                if not out.strip() and "-j" in argv:
                    self.state.warn(f"{cmd}: empty output", start, code="UNSUPPORTED")
                    return
                g = _keyword_groups(
                    out,
                    {
                        "dscp-prio",
                        "dgram-port-prio",
                        "default-prio",
                        "pcp-prio",
                        "ethtype-prio",
                        "stream-port-prio",
                        "port-prio",
                    },
                )
                if out.strip() and not g:  # output that is not `dcb app show` output: unknown, not "no entries"
                    self.state.warn(f"{cmd}: no DCB APP data in output", start)
                    return
                for tok in g.get("dscp-prio", []):
                    k, _, v = tok.partition(":")
                    d, pr = dscp_value(k), _int(v, 0, 7)
                    if d is not None and pr is not None:
                        entries.append((d, pr))
                for tok in g.get("dgram-port-prio", []):
                    k, _, v = tok.partition(":")
                    port, pr = _int(k, 1, 65535), _int(v, 0, 7)
                    if port is not None and pr is not None:
                        dgram.append((port, pr))
            else:
                self.state.warn(f"{cmd}: unexpected JSON", start)
                return
            p.app_dscp = entries
            p.app_dgram = dgram
            p.at("app", _line_of(out, start, ("dscp_prio", "dscp-prio")), out or cmd)

    def _bundle_ip_link(self, cmd: str, argv: list[str], start: int, out: str) -> None:
        dev = _dev_of(argv) or (argv[-1] if argv[-1] not in ("show", "link") else None)
        data = _json(out) if out.strip().startswith("[") else None
        if isinstance(data, list):
            for obj in data:
                if not isinstance(obj, dict) or not isinstance(obj.get("ifname"), str):
                    continue
                p = self.port(obj["ifname"], start)
                mtu = _int(obj.get("mtu"), 0, 1 << 20)
                if mtu is not None:
                    p.mtu = mtu
                    p.at("mtu", start, json.dumps({"ifname": obj["ifname"], "mtu": mtu}))
            return
        for n, line in enumerate(out.split("\n"), start=start):
            m = re.match(r"^\d+:\s+([^:@\s]+)(?:@\S+)?:\s.*\bmtu\s+(\d+)", line)
            if m:
                p = self.port(m.group(1), n)
                p.mtu = int(m.group(2))
                p.at("mtu", n, line)
                return
        if dev:
            self.state.warn(f"{cmd}: no MTU in output", start)

    def _bundle_ethtool_a(self, dev: str, start: int, out: str) -> None:
        rx = tx = None
        line_no = None
        for n, line in enumerate(out.split("\n"), start=start):
            m = re.match(r"^\s*(RX|TX):\s*(on|off)\s*$", line)
            if m:
                if m.group(1) == "RX":
                    rx = m.group(2) == "on"
                else:
                    tx = m.group(2) == "on"
                line_no = line_no or n
        if rx is None and tx is None:
            self.state.warn(f"ethtool -a {dev}: no RX/TX pause lines", start)
            return
        p = self.port(dev, start)
        p.link_pause = bool(rx) or bool(tx)
        p.at("link_pause", line_no, f"RX: {'on' if rx else 'off'} TX: {'on' if tx else 'off'}")

    def _bundle_rdma_link(self, start: int, out: str) -> None:
        data = _json(out) if out.strip().startswith("[") else None
        if isinstance(data, list):
            for obj in data:
                if (
                    isinstance(obj, dict)
                    and isinstance(obj.get("netdev"), str)
                    and isinstance(obj.get("ifname"), str)
                ):
                    dev = obj["ifname"].split("/")[0]
                    self.rdma_links[obj["netdev"]] = (dev, start, json.dumps(obj))
            return
        for n, line in enumerate(out.split("\n"), start=start):
            m = re.match(r"^\s*link\s+([^/\s]+)/\d+\s.*\bnetdev\s+(\S+)", line)
            if m:
                self.rdma_links[m.group(2)] = (m.group(1), n, line)

    # ------------------------------------------------------------------ script
    def script(self, text: str) -> None:
        lines = text.split("\n")
        i = 0
        depth = 0
        while i < len(lines):
            n = i + 1
            raw = lines[i]
            # join backslash continuations
            while raw.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                raw = raw.rstrip()[:-1] + " " + lines[i].strip()
            i += 1
            line = _strip_comment(raw).strip()
            if not line:
                continue
            fm = re.match(r"^(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{?\s*$", line)
            if fm:
                self.functions.add(fm.group(1))
                depth += 1 if line.endswith("{") else 0
                if not line.endswith("{"):
                    depth += 1  # '{' on the next line
                continue
            if depth:
                depth += line.count("{") - line.count("}")
                depth = max(depth, 0)
                continue
            try:
                self.script_line(line, n, raw)
            except Exception as exc:  # noqa: BLE001
                self.state.warn(f"could not parse line ({type(exc).__name__}): {line[:120]}", n)

    def script_line(self, line: str, n: int, raw: str) -> None:
        if self.extra_script(line, n, raw):
            return
        words = _words(line)
        if not words:
            return
        head = words[0]
        m = _EXPECTED_HOST.match(line)
        if m:
            self.state.hostname = m.group(1)
            self.state.at("hostname", n, raw)
            return
        if head in ("set", "command", "need", "true", "exit", "fi", "then", "else", "done", "}", "{") or (
            head in self.functions and head not in ("check_rdma_dev", "set_roce_tos")
        ):
            return
        if head in ("mkdir", "rmdir") and "/sys/kernel/config/rdma_cm" in line:
            return  # the RDMA-CM configfs directory itself holds no setting
        if head == "ip" and len(words) >= 4 and words[1] == "link" and words[2] == "set":
            dev = _dev_of(words) or words[3]
            if "mtu" in words:
                mtu = _int(
                    words[words.index("mtu") + 1] if words.index("mtu") + 1 < len(words) else "", 0, 1 << 20
                )
                if mtu is not None:
                    p = self.port(dev, n)
                    p.mtu = mtu
                    p.at("mtu", n, raw)
                    return
            if set(words[4:]) <= {"up", "down", "dev", dev}:
                return
        elif head == "ethtool" and len(words) >= 3 and words[1] in ("-A", "--pause"):
            dev = words[2]
            opts = dict(zip(words[3::2], words[4::2], strict=False))
            rx, tx = _onoff(opts.get("rx", "")), _onoff(opts.get("tx", ""))
            if rx is not None and tx is not None:
                p = self.port(dev, n)
                p.link_pause = rx or tx
                p.at("link_pause", n, raw)
                return
        elif head == "dcb":
            if self._script_dcb(words, n, raw):
                return
        elif head == "check_rdma_dev" and len(words) >= 3:
            p = self.port(words[1], n)
            p.rdma_dev = words[2]
            p.at("rdma", n, raw)
            return
        elif head == "set_roce_tos" and len(words) >= 3:
            v = _int(words[2], 0, 255)
            if v is not None:
                self.tos[words[1]] = (v, n, raw)
                return
        elif head == "cma_roce_tos" and "-d" in words and "-t" in words:
            dev = _after(words, "-d")
            v = _int(_after(words, "-t") or "", 0, 255)
            if dev and v is not None:
                self.tos[dev] = (v, n, raw)
                return
        elif head == "echo" and _TOS_PATH.search(line):
            m = re.match(r"^echo\s+(?:-n\s+)?[\"']?(\w+)[\"']?\s*>\s*(\S+)", line)
            v = _int(m.group(1), 0, 255) if m else None
            if m and v is not None:
                dm = _TOS_PATH.search(m.group(2))
                if dm:
                    self.tos[dm.group(1)] = (v, n, raw)
                    return
        elif head in ("mkdir", "mount", "mountpoint", "if", "for", "echo", "printf", "cd", "modprobe"):
            if not _roce_relevant(line):
                return
        elif not _roce_relevant(line):
            return
        self.state.warn(f"unrecognised RoCE-relevant line: {line[:160]}", n, code="UNRECOGNISED")

    def extra_script(self, line: str, n: int, raw: str) -> bool:
        return False

    def _script_dcb(self, words: list[str], n: int, raw: str) -> bool:
        ws = [w for w in words[1:] if not w.startswith("-")]
        if len(ws) < 2:
            return False
        obj, verb = ws[0], ws[1]
        dev = _dev_of(words)
        if dev is None:
            return False
        args = ws[ws.index(dev) + 1 :] if dev in ws else []
        if obj == "pfc" and verb == "set":
            g = _keyword_groups(" ".join(args), {"prio-pfc", "delay", "macsec-bypass"})
            if "prio-pfc" not in g:
                return "delay" in g or "macsec-bypass" in g
            p = self.port(dev, n)
            upd = _kv_map(g["prio-pfc"], _onoff)
            p.pfc = {**(p.pfc or {}), **upd}
            p.at("pfc", n, raw)
            return True
        if obj == "ets" and verb == "set":
            g = _keyword_groups(
                " ".join(args),
                {
                    "tc-tsa",
                    "tc-bw",
                    "prio-tc",
                    "willing",
                    "pg-bw",
                    "reco-tc-tsa",
                    "reco-tc-bw",
                    "reco-prio-tc",
                },
            )
            p = self.port(dev, n)
            p.tsa.update(_kv_map(g.get("tc-tsa", []), _tsa))
            p.bw.update(_kv_map(g.get("tc-bw", []), lambda v: _int(v, 0, 100)))
            p.prio_tc.update(_kv_map(g.get("prio-tc", []), lambda v: _int(v, 0, 7)))
            p.ets_seen = p.ets_seen or bool(g.get("tc-tsa") or g.get("prio-tc"))
            p.at("scheduling", n, raw)
            return True
        if obj == "app" and verb in ("add", "del", "replace", "flush"):
            p = self.port(dev, n)
            g = _keyword_groups(
                " ".join(args),
                {
                    "dscp-prio",
                    "dgram-port-prio",
                    "default-prio",
                    "pcp-prio",
                    "ethtype-prio",
                    "stream-port-prio",
                    "port-prio",
                },
            )
            if verb == "flush":
                sels = set(g) or {"dscp-prio", "dgram-port-prio"}
                if "dscp-prio" in sels:
                    p.app_dscp = []
                if "dgram-port-prio" in sels:
                    p.app_dgram = []
                p.at("app", n, raw)
                return True
            dscp = [
                (dscp_value(k), _int(v, 0, 7))
                for k, _, v in (t.partition(":") for t in g.get("dscp-prio", []))
            ]
            dgram = [
                (_int(k, 1, 65535), _int(v, 0, 7))
                for k, _, v in (t.partition(":") for t in g.get("dgram-port-prio", []))
            ]
            if any(a is None or b is None for a, b in dscp + dgram):
                self.state.warn(f"bad dcb app entry: {raw.strip()[:160]}", n)
            dscp_ok = [(a, b) for a, b in dscp if a is not None and b is not None]
            dgram_ok = [(a, b) for a, b in dgram if a is not None and b is not None]
            if dscp_ok or "dscp-prio" in g:
                cur = list(p.app_dscp or [])
                cur = _apply_app(cur, dscp_ok, verb)
                p.app_dscp = cur
            if dgram_ok:
                p.app_dgram = _apply_app(list(p.app_dgram), dgram_ok, verb)
            p.at("app", n, raw)
            return True
        return False

    # ------------------------------------------------------------------ finish
    def finish(self) -> None:
        st = self.state
        for netdev, (dev, line, text) in self.rdma_links.items():
            if netdev in self.ports and self.ports[netdev].rdma_dev is None:
                self.ports[netdev].rdma_dev = dev
                self.ports[netdev].at("rdma", line, text)
        maps: dict[str, dict[str, int]] = {}
        for name in sorted(self.ports, key=natural_key):
            p = self.ports[name]
            itf = Interface()
            base = f"interfaces.{name}"
            st.at(base, sorted(set(p.lines)) or None, "")
            itf.mtu = p.mtu
            itf.link_pause = p.link_pause
            if p.pfc is not None:
                if len(p.pfc) == 8:
                    on = sorted(k for k, v in p.pfc.items() if v)
                    itf.pfc = Pfc(enabled=bool(on), no_drop=on)
                else:
                    on = sorted(k for k, v in p.pfc.items() if v)
                    itf.pfc = Pfc(enabled=True if on else None, no_drop=None)
                    st.warn(
                        f"{name}: PFC state given for priorities {sorted(p.pfc)} only; the rest is unknown",
                        self._first(p, "pfc"),
                        code="PARTIAL",
                    )
            if p.ets_seen:
                itf.scheduling = self.scheduling(name, p)
            if p.app_dscp is not None:
                m = self.dscp_map(name, p)
                if m:
                    itf.trust = "dscp"
                    maps[name] = m
                elif p.app_dscp:
                    itf.trust = "dscp"  # only ambiguous entries
                else:
                    itf.trust = "pcp"
            if p.rdma_dev is not None:
                itf.rdma = NicRdma(device=p.rdma_dev)
                tos = self.tos.get(p.rdma_dev)
                if tos is not None:
                    itf.rdma.roce_tos = tos[0]
                    st.at(f"{base}.rdma", tos[1], tos[2])
            st.interfaces[name] = itf
            for key, (lines, text) in p.src.items():
                path = {"app": f"{base}.trust"}.get(key, f"{base}.{key}")
                st.at(path, lines, text)
            self.finish_port(name, p, itf)
        used = {p.rdma_dev for p in self.ports.values() if p.rdma_dev}
        for dev, (_, line, _t) in self.tos.items():
            if dev not in used:
                st.warn(
                    f"RDMA-CM TOS set for {dev}, which is not tied to any interface", line, code="UNDEFINED"
                )
        # host-wide DSCP map = the map most DSCP-trusting ports share
        if maps:
            counts: dict[str, int] = {}
            for m in maps.values():
                key = json.dumps(m, sort_keys=True)
                counts[key] = counts.get(key, 0) + 1
            best = max(counts.values())
            host: dict[str, int] = {}
            first = ""
            for name in sorted(maps, key=natural_key):
                if counts[json.dumps(maps[name], sort_keys=True)] == best:
                    host, first = maps[name], name
                    break
            st.dscp_to_tc = dict(sorted(host.items(), key=lambda kv: int(kv[0])))
            for name, m in maps.items():
                if m != host:
                    st.interfaces[name].dscp_to_tc = dict(sorted(m.items(), key=lambda kv: int(kv[0])))
                    src = self.ports[name].src.get("app")
                    if src:
                        st.at(f"interfaces.{name}.dscp_to_tc", src[0], src[1])
            src = self.ports[first].src.get("app")
            for d in st.dscp_to_tc:
                if src:
                    st.at(f"dscp_to_tc.{d}", src[0], src[1])
        self.finish_device()

    def finish_port(self, name: str, p: RawPort, itf: Interface) -> None:
        """Hook: platform-specific per-port fields and checks."""

    def finish_device(self) -> None:
        """Hook: platform-specific checks after all ports are built."""

    @staticmethod
    def _first(p: RawPort, key: str) -> int | None:
        s = p.src.get(key)
        return s[0][0] if s else None

    def dscp_map(self, name: str, p: RawPort) -> dict[str, int]:
        by: dict[int, set[int]] = {}
        for d, pr in p.app_dscp or []:
            by.setdefault(d, set()).add(pr)
        out: dict[str, int] = {}
        for d in sorted(by):
            if len(by[d]) > 1:
                self.state.warn(
                    f"{name}: DSCP {d} maps to several priorities {sorted(by[d])} (ambiguous APP table; "
                    f"use 'dcb app replace')",
                    self._first(p, "app"),
                    code="AMBIGUOUS",
                )
                continue
            out[str(d)] = next(iter(by[d]))
        return out

    def scheduling(self, name: str, p: RawPort) -> dict[str, Sched]:
        """Hardware TCs with priorities mapped -> roceconf key (lowest priority on that TC)."""
        line = self._first(p, "scheduling")
        tcs: dict[int, list[int]] = {}
        if p.prio_tc:
            for prio, tc in p.prio_tc.items():
                tcs.setdefault(tc, []).append(prio)
        else:
            tcs = {t: [t] for t in p.tsa}
        out: dict[str, Sched] = {}
        for tc in sorted(tcs):
            key = min(tcs[tc])
            if self.identity_prio_tc and key != tc:
                self.state.warn(
                    f"{name}: TC {tc} carries priorities {sorted(tcs[tc])}; roceconf expects priority N on TC N",
                    line,
                    code="PRIO_TC",
                )
            tsa = p.tsa.get(tc)
            if tsa is None and tc not in p.bw:
                continue  # only the priority map was shown: the scheduler is unknown
            if tsa == "strict":
                out[str(key)] = Sched(mode="strict")
            elif tsa == "ets":
                out[str(key)] = Sched(mode="dwrr", bandwidth_percent=p.bw.get(tc))
            else:
                if tsa is not None:
                    self.state.warn(
                        f"{name}: TC {tc} uses TSA {tsa!r} (not strict/ets)", line, code="UNSUPPORTED"
                    )
                out[str(key)] = Sched()
        return out


def _apply_app(cur: list[tuple[int, int]], new: list[tuple[int, int]], verb: str) -> list[tuple[int, int]]:
    if verb == "add":
        return cur + [e for e in new if e not in cur]
    if verb == "del":
        return [e for e in cur if e not in new]
    keys = {k for k, _ in new}
    return [e for e in cur if e[0] not in keys] + [e for e in dict.fromkeys(new)]


def _words(line: str) -> list[str]:
    return [w.strip("\"'") for w in line.replace(";", " ; ").split() if w != ";"]


def _strip_comment(line: str) -> str:
    if "#" not in line and "'" not in line and '"' not in line:
        return line  # nothing to strip (the loop below would copy every character)
    out = []
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in ("'", '"'):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            break
        out.append(ch)
    return "".join(out)


def _after(words: list[str], flag: str) -> str | None:
    if flag in words:
        i = words.index(flag)
        if i + 1 < len(words):
            return words[i + 1]
    return None


def _dev_of(argv: list[str]) -> str | None:
    return _after(argv, "dev")


def _line_of(out: str, start: int, needles: tuple[str, ...]) -> int:
    for n, line in enumerate(out.split("\n"), start=start):
        if any(k in line for k in needles):
            return n
    return start


_RELEVANT = re.compile(
    r"\b(dcb|mlnx_qos|lldptool|bnxtqos|niccli|ethtool|cma_roce_tos|cma_roce_mode|ip\s+link|tc\s+qdisc)\b|"
    r"/sys/kernel/config|/sys/class/net/\S+/(ecn|qos)|/sys/class/infiniband",
    re.I,
)


def _roce_relevant(line: str) -> bool:
    return bool(_RELEVANT.search(line))


def parse(text: str) -> DeviceState:
    return HostParser().run(text)


#: the script line that names the host the script was rendered for (``HostParser.script_line``)
_EXPECTED_HOST = re.compile(r"^(?:readonly\s+|export\s+)?EXPECTED_HOST=[\"']?([^\"'\s]+)")


def shared_parse(parse: Callable[[str], DeviceState], text: str, memo: dict) -> DeviceState:
    """``parse(text)`` for the scripts of one audit (``HostParser`` scripts: linux-dcb, bnxt), sharing the
    work between hosts whose scripts differ only by their name (the hosts of one intent entry;
    ``base.parse_shared_by_line``).

    A rendered script names its host in comments and in its one ``EXPECTED_HOST=`` line. ``script`` reads
    a comment line as nothing unless a line continuation joins it to a command, and the ``EXPECTED_HOST=``
    line gives only ``hostname`` and ``sources["hostname"]`` (the line as it stands). Bundles (read-back
    outputs) and a naming line in a continuation are parsed."""
    if not isinstance(text, str) or BUNDLE_MARK in text:
        return parse(text)
    return parse_shared_by_line(parse, text, memo, _expected_host, _lone_comment, lambda line: line)


def _continued(lines: list[str], i: int) -> bool:
    """Line `i` takes part in a line continuation (it ends with one, or the line before does)."""
    return lines[i].rstrip().endswith("\\") or (i > 0 and lines[i - 1].rstrip().endswith("\\"))


def _expected_host(lines: list[str], i: int) -> str | None:
    """The name ``script_line`` takes from line `i` (an ``EXPECTED_HOST=`` line read on its own), or None."""
    raw = lines[i]
    if "EXPECTED_HOST=" not in raw or _continued(lines, i):
        return None
    m = _EXPECTED_HOST.match(_strip_comment(raw).strip())
    return m.group(1) if m else None


def _lone_comment(lines: list[str], i: int) -> bool:
    return lines[i].strip().startswith("#") and not _continued(lines, i)


def parse_shared(text: str, memo: dict) -> DeviceState:
    return shared_parse(parse, text, memo)


# --------------------------------------------------------------------------- template filters
def effective_dscp(itf: Interface, state: DeviceState) -> list[tuple[int, int]]:
    """The port's DSCP APP entries as [(dscp, prio)] (empty unless the port trusts DSCP)."""
    if itf.trust != "dscp":
        return []
    m = itf.dscp_to_tc if itf.dscp_to_tc is not None else state.dscp_to_tc
    return sorted((int(d), p) for d, p in m.items())


def pfc_args(pfc: Pfc) -> str:
    """'all:off 3:on 4:on' (empty string when the no-drop set is unknown)."""
    if pfc.no_drop is None:
        return "all:off" if pfc.enabled is False else ""
    return " ".join(["all:off", *(f"{p}:on" for p in sorted(pfc.no_drop))])


def identity_prio_tc(itf: Interface) -> dict[int, int]:
    """roceconf key (priority) -> hardware TC with priority N on TC N (what roceconf rendered before TCs had
    to be contiguous; kept for reading old scripts' intent in tests)."""
    return {int(k): int(k) for k in itf.scheduling}


def contiguous_prio_tc(itf: Interface) -> dict[int, int]:
    """roceconf key (priority) -> hardware TC, contiguous from TC 0 (Intel ice rejects gaps:
    ice_dcb_tc_contig() in drivers/net/ethernet/intel/ice/ice_dcb_lib.c). Keys in priority order take
    TC 0, 1, 2, ...; without a key 0, TC 0 keeps the priorities that have no class (prio-tc all:0) and the
    keys start at TC 1. {0, 3, 6} -> {0: 0, 3: 1, 6: 2} (the layout bnxt uses too)."""
    keys = sorted(int(k) for k in itf.scheduling)
    first = 0 if 0 in keys else 1
    return {k: first + i for i, k in enumerate(keys)}


def needs_prune(state: DeviceState) -> bool:
    """Does some DSCP-trusting port carry fewer than 64 DSCP entries (no default class in the intent)?"""
    return any(0 < len(effective_dscp(itf, state)) < 64 for _, itf in sorted_ports(state))


def ets_args(itf: Interface, key_tc: dict[int, int], pad_all: bool = True) -> str:
    """'tc-tsa all:strict 0:ets ... tc-bw all:0 0:50 ... prio-tc all:0 3:3 ...' for a key->TC map.

    ``pad_all=False`` names only the TCs in use (no ``all:`` for TSA/bandwidth), for NICs that run fewer
    than 8 TCs and reject settings for the others (Broadcom's bnxt_setupcc.sh does the same).
    """
    tsa = ["all:strict"] if pad_all else []
    bw = ["all:0"] if pad_all else []
    for key in sorted(key_tc, key=lambda k: key_tc[k]):
        s = itf.scheduling.get(str(key))
        if s is None or s.mode is None:
            continue
        tc = key_tc[key]
        if s.mode == "dwrr":
            tsa.append(f"{tc}:ets")
            bw.append(f"{tc}:{s.bandwidth_percent or 0}")
        else:
            tsa.append(f"{tc}:strict")
    prio = ["all:0", *(f"{k}:{key_tc[k]}" for k in sorted(key_tc) if key_tc[k] != 0)]
    out = f"tc-tsa {' '.join(tsa)}" if tsa else ""
    out += f" tc-bw {' '.join(bw)}" if bw else ""
    return f"{out} prio-tc {' '.join(prio)}".strip()


def dscp_args(entries: list[tuple[int, int]]) -> str:
    return " ".join(f"{d}:{p}" for d, p in entries)


def tos_comment(tos: int) -> str:
    ecn = tos & 3
    return f"DSCP {tos >> 2} << 2" + (f" | ECN {ecn}" if ecn else "")


def sorted_ports(state: DeviceState) -> list[tuple[str, Interface]]:
    return [(n, state.interfaces[n]) for n in sorted(state.interfaces, key=natural_key)]


def tools_needed(state: DeviceState) -> list[str]:
    need: list[str] = []
    for _, itf in sorted_ports(state):
        if itf.mtu is not None:
            need.append("ip")
        if itf.link_pause is not None:
            need.append("ethtool")
        if pfc_args(itf.pfc) or itf.scheduling or itf.trust in ("dscp", "pcp"):
            need.append("dcb")
    return list(dict.fromkeys(need))


FILTERS: dict[str, Callable[..., Any]] = {
    "effective_dscp": effective_dscp,
    "pfc_args": pfc_args,
    "ets_args": ets_args,
    "identity_prio_tc": identity_prio_tc,
    "contiguous_prio_tc": contiguous_prio_tc,
    "dscp_args": dscp_args,
    "tos_comment": tos_comment,
}
GLOBALS_HELPERS = {"sorted_ports": sorted_ports, "tools_needed": tools_needed, "needs_prune": needs_prune}


# --------------------------------------------------------------------------- read-back and simulation
def base_readback(desired: DeviceState, dcb_app: bool = True) -> list[str]:
    cmds = ["hostname"]
    tos_devs: list[str] = []
    any_rdma = False
    for name, itf in sorted_ports(desired):
        cmds.append(f"ip -j link show dev {name}")
        if itf.link_pause is not None:
            cmds.append(f"ethtool -a {name}")
        if itf.pfc.enabled is not None or itf.pfc.no_drop is not None:
            cmds.append(f"dcb -j pfc show dev {name}")
        if itf.scheduling:
            cmds.append(f"dcb -j ets show dev {name}")
        if dcb_app and itf.trust is not None:
            cmds.append(f"dcb -j app show dev {name}")
        if itf.rdma is not None and itf.rdma.device:
            any_rdma = True
            if itf.rdma.roce_tos is not None:
                tos_devs.append(itf.rdma.device)
    if any_rdma:
        cmds.append("rdma -j link show")
    cmds.extend(f"cat {tos_path(d)}" for d in dict.fromkeys(tos_devs))
    return cmds


def readback_commands(desired: DeviceState) -> list[str]:
    return base_readback(desired)


def _no_dev(cmd: str, dev: str) -> str:
    if cmd.startswith("ip "):
        return f'Device "{dev}" does not exist.'
    if cmd.startswith("ethtool"):
        return (
            f"netlink error: no device matches name ({dev})\nCannot get device pause settings: No such device"
        )
    return f'Cannot find device "{dev}"'


def simulate_with(
    state: DeviceState,
    command: str,
    key_tc: Callable[[Interface], dict[int, int]],
    app_entries: Callable[[Interface, DeviceState], tuple[list[tuple[int, int]], list[tuple[int, int]]]],
) -> str | None:
    argv = command.split()
    if not argv:
        return None
    if argv == ["hostname"]:
        return state.hostname or ""
    dev = _dev_of(argv)
    if argv[0] == "ethtool" and len(argv) == 3 and argv[1] == "-a":
        dev = argv[2]
    itf = state.interfaces.get(dev) if dev else None
    if argv[:4] == ["ip", "-j", "link", "show"] and dev:
        if itf is None:
            return _no_dev(command, dev)
        obj: dict[str, Any] = {
            "ifindex": 2 + sorted(state.interfaces, key=natural_key).index(dev),
            "ifname": dev,
            "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
        }
        if itf.mtu is not None:
            obj["mtu"] = itf.mtu
        obj.update(
            {
                "qdisc": "mq",
                "operstate": "UP",
                "linkmode": "DEFAULT",
                "group": "default",
                "link_type": "ether",
            }
        )
        return json.dumps([obj], separators=(",", ":"))
    if argv[0] == "ethtool" and dev:
        if itf is None:
            return _no_dev(command, dev)
        if itf.link_pause is None:
            return "Cannot get device pause settings: Operation not supported"
        v = "on" if itf.link_pause else "off"
        return f"Pause parameters for {dev}:\nAutonegotiate:\toff\nRX:\t\t{v}\nTX:\t\t{v}\n"
    if argv[:2] == ["dcb", "-j"] and len(argv) >= 6 and argv[3] == "show" and dev:
        if itf is None:
            return _no_dev(command, dev)
        if argv[2] == "pfc":
            on = set(itf.pfc.no_drop or [])
            return json.dumps(
                {"pfc_cap": 8, "macsec_bypass": False, "delay": 0, "prio_pfc": [p in on for p in range(8)]},
                separators=(",", ":"),
            )
        if argv[2] == "ets":
            kt = key_tc(itf)
            tsa = ["strict"] * 8
            bw = [0] * 8
            for key, tc in kt.items():
                s = itf.scheduling.get(str(key))
                if s is not None and s.mode == "dwrr":
                    tsa[tc] = "ets"
                    bw[tc] = s.bandwidth_percent or 0
            prio_tc = [kt.get(p, 0) for p in range(8)]
            return json.dumps(
                {
                    "willing": False,
                    "ets_cap": 8,
                    "cbs": False,
                    "tc_bw": bw,
                    "pg_bw": [0] * 8,
                    "tc_tsa": tsa,
                    "prio_tc": prio_tc,
                    "reco_tc_bw": [0] * 8,
                    "reco_tc_tsa": ["strict"] * 8,
                    "reco_prio_tc": [0] * 8,
                },
                separators=(",", ":"),
            )
        if argv[2] == "app":
            dscp, dgram = app_entries(itf, state)
            obj = {}
            if dscp:
                obj["dscp_prio"] = [[d, p, " "] for d, p in dscp]
            if dgram:
                obj["dgram_port_prio"] = [[d, p, " "] for d, p in dgram]
            return json.dumps(obj, separators=(",", ":"))
        return None
    if argv[:4] == ["rdma", "-j", "link", "show"]:
        links = []
        for i, (name, it) in enumerate(sorted_ports(state)):
            if it.rdma is not None and it.rdma.device:
                links.append(
                    {
                        "ifindex": i,
                        "ifname": it.rdma.device,
                        "port": 1,
                        "state": "ACTIVE",
                        "physical_state": "LINK_UP",
                        "netdev": name,
                        "netdev_index": 2 + i,
                    }
                )
        return json.dumps(links, separators=(",", ":"))
    m = _TOS_PATH.fullmatch(argv[1]) if argv[0] == "cat" and len(argv) == 2 else None
    if m:
        for _, it in sorted_ports(state):
            if it.rdma is not None and it.rdma.device == m.group(1) and it.rdma.roce_tos is not None:
                return str(it.rdma.roce_tos)
        return f"cat: {argv[1]}: No such file or directory"
    return None


def _plain_app(itf: Interface, state: DeviceState) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    return effective_dscp(itf, state), []


def simulate(state: DeviceState, command: str) -> str | None:
    return simulate_with(state, command, contiguous_prio_tc, _plain_app)


# --------------------------------------------------------------------------- platform
PLATFORM = Platform(
    apply_method="script",
    name=NAME,
    kind="nic",
    title="Generic Linux host NIC (iproute2 dcb)",
    extension="sh",
    capabilities=Capabilities(
        dscp_map_replaced=True,
        every_dscp_mapped=True,
        min_mtu=Fact(68, "Linux ETH_MIN_MTU (include/uapi/linux/if_ether.h)"),
        max_mtu=Fact(9000, "common jumbo MTU; the real limit is per driver (ip -d link show: max_mtu)"),
        max_lossless_priorities=Fact(8, "IEEE 802.1Qaz PFC: up to 8 priorities (dcb pfc show: pfc-cap)"),
        ecn=False,
        scheduling=True,
        notes=(
            "Trust is DSCP iff the port has DSCP APP entries (dcb app); there is no separate trust knob.",
            "Every DSCP 0-63 gets an APP entry (the intent's default class takes the DSCPs it does not name); "
            "a DSCP without an entry would use the port's default priority (dcb app default-prio, else 0).",
            "Traffic classes are contiguous (Intel ice_dcb_tc_contig): classes take TC 0, 1, 2, ... in "
            "priority order; each TC reads back as the lowest priority mapped to it.",
            "The host-wide DSCP map is the map most DSCP-trusting ports share.",
            "ECN marking is switch-side; DCQCN knobs are vendor specific (not expressed by this platform).",
        ),
    ),
    parse=parse,
    parse_shared=parse_shared,
    filters={**FILTERS, **GLOBALS_HELPERS},
    readback_commands=readback_commands,
    simulate=simulate,
)
