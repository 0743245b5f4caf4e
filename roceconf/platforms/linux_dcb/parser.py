"""Linux DCB (iproute2): config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from roceconf.names import natural_key
from roceconf.platforms.base import BUNDLE_MARK, ethtool_pause, parse_shared_by_line, split_outputs
from roceconf.platforms.linux_dcb.syntax import (
    _TOS_PATH,
    APP_KEYWORDS,
    NAME,
    RawPort,
    _int,
    _json,
    _keyword_groups,
    _kv_map,
    _onoff,
    _tsa,
    dscp_value,
    is_unsupported,
)
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched


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
                g = _keyword_groups(out, APP_KEYWORDS)
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
        rx, tx, where = ethtool_pause(out.split("\n"))
        if rx is None and tx is None:
            self.state.warn(f"ethtool -a {dev}: no RX/TX pause lines", start)
            return
        p = self.port(dev, start)
        p.link_pause = bool(rx) or bool(tx)
        p.at("link_pause", start + where[0], f"RX: {'on' if rx else 'off'} TX: {'on' if tx else 'off'}")

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
            g = _keyword_groups(" ".join(args), APP_KEYWORDS)
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
