"""NVIDIA ConnectX: config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from roceconf.names import natural_key
from roceconf.platforms.base import ethtool_pause, parse_shared_by_line, split_outputs, split_words
from roceconf.platforms.connectx.syntax import (
    _CONFIGFS_TOS,
    _FAIL,
    _IB_DIR,
    _RELEVANT,
    _SYSFS_CNP,
    _SYSFS_ENABLE,
    _TCLASS,
    NAME,
)
from roceconf.state import DeviceState, Interface, NicRdma, Pfc, Sched


# --------------------------------------------------------------------------- parser
class _Port:
    """What was learnt about one port before it is folded into the state."""

    def __init__(self) -> None:
        self.itf = Interface()
        self.map: dict[str, int] = {}
        self.map_lines: dict[str, int] = {}
        self.map_text: dict[str, str] = {}
        self.map_seen = False
        self.np: dict[int, int] = {}
        self.rp: dict[int, int] = {}
        self.np_lines: list[int] = []
        self.rp_lines: list[int] = []
        self.rdma: dict[str, Any] = {}
        self.rdma_lines: dict[str, list[int]] = {}


class _Parser:
    def __init__(self) -> None:
        self.state = DeviceState(platform=NAME)
        self.ports: dict[str, _Port] = {}
        self.dev_port: dict[str, str] = {}
        self.dev_tos: dict[str, tuple[int, int, str]] = {}

    # ---- helpers
    def port(self, name: str, line: int | None = None, text: str = "") -> _Port:
        if name not in self.ports:
            self.ports[name] = _Port()
        self.state.at(f"interfaces.{name}", line, text)
        return self.ports[name]

    def unsupported(self, what: str, line: int | None, detail: str) -> None:
        self.state.warn(f"{what}: {detail.strip()[:160]} - value left unknown", line, code="UNSUPPORTED")

    def link_device(self, dev: str, ifname: str, line: int | None, text: str) -> None:
        p = self.port(ifname, line, text)
        p.rdma["device"] = dev
        p.rdma_lines.setdefault("device", []).append(line or 0)
        self.dev_port[dev] = ifname

    # ---- script
    def parse_script(self, lines: list[str]) -> None:
        for n, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                self.script_line(n, line)
            except Exception as exc:  # noqa: BLE001 - a parser never raises
                self.state.warn(f"could not read line: {exc}", n)

    def script_line(self, n: int, line: str) -> None:
        m = re.match(r"^expected_host=(.*)$", line)
        if m:
            parts = split_words(m.group(1)) if m.group(1) else []
            if parts:
                self.state.hostname = parts[0]
                self.state.at("hostname", n, line)
            return
        m = re.match(r"^ip link set (?:dev )?(\S+) mtu (\d+)$", line)
        if m:
            p = self.port(m.group(1), n, line)
            p.itf.mtu = int(m.group(2))
            self.state.at(f"interfaces.{m.group(1)}.mtu", n, line)
            return
        m = re.search(r"ethtool -A (\S+) rx (on|off) tx (on|off)", line)
        if m:
            p = self.port(m.group(1), n, line)
            p.itf.link_pause = m.group(2) == "on" or m.group(3) == "on"
            self.state.at(f"interfaces.{m.group(1)}.link_pause", n, line)
            return
        if line.startswith("mlnx_qos "):
            self.script_mlnx_qos(n, line)
            return
        m = re.match(r"^echo (\S+) > (\S+)$", line)
        if m and self.sysfs_value(m.group(2), m.group(1), n, line):
            return
        m = re.match(r"^\[ -e /sys/class/net/([^/\s]+)/device/infiniband/([^/\s]+) \]", line)
        if m:
            self.link_device(m.group(2), m.group(1), n, line)
            return
        m = re.match(r"^\[ -d /sys/class/net/([^/\s]+) \]", line)
        if m:
            self.port(m.group(1), n, line)
            return
        m = re.match(r"^cma_roce_tos\s+(.*)$", line)
        if m:
            self.cma_roce_tos(m.group(1), None, n, line)
            return
        if re.match(r"^(set |need\b|need\(\)|pause=|if |then|fi\b|mkdir |\[ -d |echo \"roceconf|exit)", line):
            return
        if _RELEVANT.search(line):
            self.state.warn(f"unrecognised line: {line[:120]}", n)

    def script_mlnx_qos(self, n: int, line: str) -> None:
        try:
            args = split_words(line)[1:]
        except ValueError:
            self.state.warn("unbalanced quotes in mlnx_qos line", n)
            return
        opts: dict[str, list[str]] = {}
        i = 0
        while i < len(args):
            a = args[i]
            key, val = a, None
            if a.startswith("--") and "=" in a:
                key, val = a.split("=", 1)
            elif i + 1 < len(args) and a.startswith("-") and a not in ("-a",):
                val = args[i + 1]
                i += 1
            opts.setdefault(key, []).append(val or "")
            i += 1
        ifname = (opts.get("-i") or opts.get("--interface") or [""])[0]
        if not ifname:
            self.state.warn("mlnx_qos line without -i <interface>", n)
            return
        p = self.port(ifname, n, line)
        for key in ("-r", "--ratelimit", "--cable_len", "--buffer_size", "--prio2buffer", "-d", "--dcbx"):
            if key in opts:
                self.state.warn(f"mlnx_qos {key} {opts[key][-1]} is not modelled", n, code="UNMODELLED")
        if "--trust" in opts:
            t = opts["--trust"][-1]
            if t in ("dscp", "pcp"):
                p.itf.trust = t  # type: ignore[assignment]
                self.state.at(f"interfaces.{ifname}.trust", n, line)
            else:
                self.state.warn(f"unknown trust {t!r}", n)
        for act in opts.get("--dscp2prio", []):
            if act == "flush":
                p.map.clear()
                p.map_lines.clear()
                p.map_seen = True
                continue
            parts = act.split(",")
            if len(parts) != 3 or parts[0] not in ("set", "del"):
                self.state.warn(f"unrecognised --dscp2prio {act!r}", n)
                continue
            try:
                d, pr = int(parts[1]), int(parts[2])
            except ValueError:
                self.state.warn(f"unrecognised --dscp2prio {act!r}", n)
                continue
            if not (0 <= d <= 63 and 0 <= pr <= 7):
                self.state.warn(f"--dscp2prio {act!r} out of range", n)
                continue
            p.map_seen = True
            if parts[0] == "set":
                p.map[str(d)] = pr
                p.map_lines[str(d)] = n
                p.map_text[str(d)] = line
            elif p.map.get(str(d)) == pr:
                del p.map[str(d)]
        pfc = (opts.get("--pfc") or opts.get("-f") or [None])[-1]
        if pfc is not None:
            vals = _ints(pfc)
            if vals is None or len(vals) != 8 or any(v not in (0, 1) for v in vals):
                self.state.warn(f"bad --pfc list {pfc!r}", n)
            else:
                on = [i for i, v in enumerate(vals) if v]
                p.itf.pfc = Pfc(enabled=bool(on), no_drop=on)
                self.state.at(f"interfaces.{ifname}.pfc", n, line)
        ptc = (opts.get("--prio_tc") or opts.get("-p") or [None])[-1]
        tsa = (opts.get("--tsa") or opts.get("-s") or [None])[-1]
        bw = (opts.get("--tcbw") or opts.get("-t") or [None])[-1]
        if ptc is not None or tsa is not None or bw is not None:
            self.apply_ets(ifname, p, ptc, tsa, bw, n, line)

    def apply_ets(
        self, ifname: str, p: _Port, ptc: str | None, tsa: str | None, bw: str | None, n: int, line: str
    ) -> None:
        mapping = _ints(ptc) if ptc is not None else None
        if mapping is None or len(mapping) != 8 or any(not 0 <= v <= 7 for v in mapping):
            self.state.warn("ETS settings without a full --prio_tc list; scheduling left unknown", n)
            return
        tsas = tsa.split(",") if tsa is not None else None
        bws = _ints(bw) if bw is not None else None
        if tsas is None or len(tsas) != 8 or bws is None or len(bws) != 8:
            self.state.warn("ETS settings need 8-item --tsa and --tcbw lists; scheduling left unknown", n)
            return
        tcs = {}
        for prio, tc in enumerate(mapping):
            tcs.setdefault(tc, []).append(prio)
        self.set_scheduling(ifname, p, {tc: (tsas[tc], bws[tc]) for tc in tcs}, tcs, n, line)

    def set_scheduling(
        self,
        ifname: str,
        p: _Port,
        tsa_bw: dict[int, tuple[str, int | None]],
        tc_prios: dict[int, list[int]],
        n: int | list[int],
        line: str,
        lines_by_tc: dict[int, int] | None = None,
    ) -> None:
        sched: dict[str, Sched] = {}
        for tc in sorted(tc_prios):
            if tc not in tc_prios.get(tc, []):
                self.state.warn(
                    f"{ifname}: TC {tc} carries priorities {tc_prios[tc]} but not priority {tc}; "
                    "roceconf assumes priority N uses TC N",
                    lines_by_tc.get(tc) if lines_by_tc else (n if isinstance(n, int) else None),
                    code="PRIO_TC",
                )
            t, b = tsa_bw.get(tc, ("unknown", None))
            where = lines_by_tc.get(tc) if lines_by_tc else n
            if t == "ets":
                sched[str(tc)] = Sched(mode="dwrr", bandwidth_percent=b)
            elif t == "strict":
                sched[str(tc)] = Sched(mode="strict")
            else:
                self.state.warn(
                    f"{ifname}: TC {tc} uses tsa {t!r}, which roceconf does not model; left unknown",
                    where if isinstance(where, int) else None,
                    code="UNMODELLED",
                )
                continue
            self.state.at(f"interfaces.{ifname}.scheduling.{tc}", where, line)
        p.itf.scheduling = sched

    def sysfs_value(self, path: str, value: str, n: int, text: str) -> bool:
        """One sysfs/configfs value (script write or read-back); True when the path is known."""
        m = _SYSFS_ENABLE.search(path)
        if m:
            v = _int(value)
            if v not in (0, 1):
                self.state.warn(f"bad DCQCN enable value {value!r}", n)
                return True
            p = self.port(m.group(1), n, text)
            (p.np if m.group(2) == "np" else p.rp)[int(m.group(3))] = v
            (p.np_lines if m.group(2) == "np" else p.rp_lines).append(n)
            return True
        m = _SYSFS_CNP.search(path)
        if m:
            v = _int(value)
            key = "cnp_dscp" if m.group(2) == "cnp_dscp" else "cnp_priority"
            if v is None or not (0 <= v <= (63 if key == "cnp_dscp" else 7)):
                self.state.warn(f"bad {m.group(2)} value {value!r}", n)
                return True
            p = self.port(m.group(1), n, text)
            p.rdma[key] = v
            p.rdma_lines.setdefault(key, []).append(n)
            return True
        m = _CONFIGFS_TOS.search(path)
        if m:
            v = _int(value)
            if v is None or not 0 <= v <= 255:
                self.state.warn(f"bad default_roce_tos value {value!r}", n)
                return True
            if m.group(2) != "1":
                self.state.warn(f"default_roce_tos of port {m.group(2)} is not modelled (port 1 only)", n)
                return True
            self.dev_tos[m.group(1)] = (v, n, text)
            return True
        m = _TCLASS.search(path)
        if m:
            self.state.warn(
                f"{m.group(1)} traffic_class override ({value.strip()}) is not modelled", n, code="UNMODELLED"
            )
            return True
        return False

    def cma_roce_tos(self, argstr: str, output: str | None, n: int, text: str) -> None:
        try:
            args = split_words(argstr)
        except ValueError:
            args = argstr.split()
        dev, port, tos = "mlx5_0", "1", None
        i = 0
        while i < len(args):
            if args[i] in ("-d", "-p", "-t") and i + 1 < len(args):
                if args[i] == "-d":
                    dev = args[i + 1]
                elif args[i] == "-p":
                    port = args[i + 1]
                else:
                    tos = args[i + 1]
                i += 2
            else:
                i += 1
        value = tos
        if output is not None:
            vals = [ln.strip() for ln in output.splitlines() if ln.strip()]
            value = vals[-1] if vals and re.fullmatch(r"\d+", vals[-1]) else None
            if value is None:
                self.unsupported(f"cma_roce_tos -d {dev}", n, output or "no output")
                return
        if value is None:
            return
        self.sysfs_value(f"/sys/kernel/config/rdma_cm/{dev}/ports/{port}/default_roce_tos", value, n, text)

    # ---- bundle
    def parse_bundle(self, parts: list[tuple[str, int, str]]) -> None:
        for cmd, start, out in parts:
            try:
                self.bundle_part(cmd, start, out)
            except Exception as exc:  # noqa: BLE001 - a parser never raises
                self.state.warn(f"could not read the output of {cmd!r}: {exc}", start - 1)

    def bundle_part(self, cmd: str, start: int, out: str) -> None:
        mark = start - 1
        lines = out.splitlines()
        stripped = out.strip()
        if re.match(r"^hostname(\s+-s)?$", cmd):
            if _FAIL.search(stripped) or not stripped:
                if stripped:
                    self.unsupported(cmd, mark, stripped)
                return
            self.state.hostname = stripped.splitlines()[0].strip()
            self.state.at("hostname", start, stripped)
            return
        m = re.match(r"^(?:sudo\s+)?mlnx_qos\s+(.*)$", cmd)
        if m:
            ifname = _opt(m.group(1), "-i", "--interface")
            if not ifname:
                self.state.warn(f"mlnx_qos command without -i: {cmd}", mark)
                return
            self.mlnx_qos_output(ifname, lines, start, cmd)
            return
        m = re.match(r"^ip\s+(?:-\S+\s+)*link\s+show\s+(?:dev\s+)?(\S+)", cmd)
        if m:
            self.ip_link(m.group(1), out, start, cmd)
            return
        m = re.match(r"^(?:sudo\s+)?ethtool\s+(?:-a|--show-pause)\s+(\S+)", cmd)
        if m:
            self.ethtool_pause(m.group(1), lines, start, cmd)
            return
        m = re.match(r"^ls\s+(?:-1\s+)?(\S+)$", cmd)
        if m and _IB_DIR.search(m.group(1)):
            ifname = _IB_DIR.search(m.group(1)).group(1)  # type: ignore[union-attr]
            if _FAIL.search(stripped) or not stripped:
                self.unsupported(cmd, mark, stripped or "no RDMA device listed")
                return
            devs = stripped.split()
            self.link_device(devs[0], ifname, start, devs[0])
            if len(devs) > 1:
                self.state.warn(f"{ifname}: several RDMA devices {devs}; using {devs[0]}", start)
            return
        m = re.match(r"^(?:sudo\s+)?cat\s+(\S+)$", cmd)
        if m:
            path = m.group(1)
            if _FAIL.search(stripped) or not stripped:
                self.unsupported(f"cat {path}", mark, stripped or "empty output")
                return
            if not self.sysfs_value(path, stripped.splitlines()[-1].strip(), start, stripped):
                if _RELEVANT.search(path):
                    self.state.warn(f"output of {cmd!r} is not read by roceconf", mark)
            return
        m = re.match(r"^(?:sudo\s+)?cma_roce_tos\s+(.*)$", cmd)
        if m:
            self.cma_roce_tos(m.group(1), out, start, stripped)
            return
        if re.match(r"^(?:sudo\s+)?ibdev2netdev", cmd):
            for k, ln in enumerate(lines):
                mm = re.match(r"^\s*(\S+)\s+port\s+\d+\s+==>\s+(\S+)", ln)
                if mm:
                    self.link_device(mm.group(1), mm.group(2), start + k, ln.strip())
            return
        if re.match(r"^(?:sudo\s+)?show_gids", cmd):
            for k, ln in enumerate(lines):
                cols = ln.split()
                if len(cols) >= 5 and re.match(r"^\S+_\d+$", cols[0]) and cols[1].isdigit():
                    nd = cols[-1]
                    if not re.match(r"^v\d$", nd) and nd not in self.ports_linked(cols[0]):
                        self.link_device(cols[0], nd, start + k, ln.strip())
            return
        if re.match(r"^rdma\s+(?:-j\s+)?link(\s+show)?", cmd):
            self.rdma_link(out, start, cmd)
            return
        if _FAIL.search(stripped):
            self.unsupported(cmd, mark, stripped)
            return
        if _RELEVANT.search(cmd):
            self.state.warn(f"output of {cmd!r} is not read by roceconf", mark)

    def ports_linked(self, dev: str) -> list[str]:
        return [self.dev_port[dev]] if dev in self.dev_port else []

    def rdma_link(self, out: str, start: int, cmd: str) -> None:
        text = out.strip()
        if text.startswith("["):
            try:
                data = json.loads(text)
            except ValueError:
                self.state.warn(f"{cmd}: not JSON", start)
                return
            for item in data if isinstance(data, list) else []:
                if isinstance(item, dict) and item.get("ifname") and item.get("netdev"):
                    self.link_device(str(item["ifname"]), str(item["netdev"]), start, json.dumps(item))
            return
        for k, ln in enumerate(out.splitlines()):
            mm = re.search(r"link\s+([^/\s]+)/\d+\s.*\bnetdev\s+(\S+)", ln)
            if mm:
                self.link_device(mm.group(1), mm.group(2), start + k, ln.strip())

    def ip_link(self, ifname: str, out: str, start: int, cmd: str) -> None:
        text = out.strip()
        if _FAIL.search(text) or not text:
            self.unsupported(cmd, start - 1, text or "empty output")
            return
        mtu = None
        if text.startswith("["):
            try:
                data = json.loads(text)
                if isinstance(data, list) and data and isinstance(data[0], dict) and "mtu" in data[0]:
                    mtu = int(data[0]["mtu"])
            except (ValueError, TypeError):
                self.state.warn(f"{cmd}: output is not the expected JSON", start)
                return
        else:
            mm = re.search(r"\bmtu (\d+)", text)
            mtu = int(mm.group(1)) if mm else None
        p = self.port(ifname, start, text[:200])
        if mtu is not None:
            p.itf.mtu = mtu
            self.state.at(f"interfaces.{ifname}.mtu", start, text[:200])

    def ethtool_pause(self, ifname: str, lines: list[str], start: int, cmd: str) -> None:
        text = "\n".join(lines).strip()
        if _FAIL.search(text) or not text:
            self.unsupported(cmd, start - 1, text or "empty output")
            return
        rx, tx, where = ethtool_pause(lines)
        p = self.port(ifname, start, text[:200])
        if rx is None and tx is None:
            return
        p.itf.link_pause = bool(rx) or bool(tx)
        self.state.at(f"interfaces.{ifname}.link_pause", [start + k for k in where], text[:200])

    def mlnx_qos_output(self, ifname: str, lines: list[str], start: int, cmd: str) -> None:
        text = "\n".join(lines)
        p = self.port(ifname, start - 1, cmd)
        if not text.strip():
            self.unsupported(cmd, start - 1, "empty output")
            return
        if _FAIL.search(text) and not re.search(r"Priority trust state|PFC configuration|tsa:", text):
            self.unsupported(cmd, start - 1, text.strip().splitlines()[0])
            return
        section = ""
        pfc_seen = False
        tc_rows: dict[int, tuple[str, int | None]] = {}
        tc_prios: dict[int, list[int]] = {}
        tc_lines: dict[int, int] = {}
        cur_tc: int | None = None
        for k, raw in enumerate(lines):
            n = start + k
            ln = raw.strip()
            if not ln:
                continue
            if "WARNING: lldpad" in ln:
                self.state.warn(
                    f"{ifname}: lldpad is running and may overwrite the NIC settings", n, code="DCBX"
                )
                continue
            if ln.startswith("DCBX mode:"):
                if "firmware" in ln.lower():
                    self.state.warn(
                        f"{ifname}: DCBX is firmware controlled; the switch may override PFC/ETS",
                        n,
                        code="DCBX",
                    )
                continue
            if "Priority trust state is not supported" in ln:
                self.unsupported(f"{ifname} trust", n, ln)
                continue
            if "ETS features are not supported" in ln:
                self.unsupported(f"{ifname} PFC/ETS", n, ln)
                continue
            mm = re.match(r"^Priority trust state:\s*(\S+)", ln)
            if mm:
                t = mm.group(1)
                if t in ("dscp", "pcp"):
                    p.itf.trust = t  # type: ignore[assignment]
                    self.state.at(f"interfaces.{ifname}.trust", n, ln)
                section = ""
                continue
            if ln.startswith("dscp2prio mapping"):
                section = "dscp"
                p.map_seen = True
                continue
            if ln.startswith("default priority"):
                section = "default"
                continue
            mm = re.match(r"^prio:\s*(\d)\s+dscp:\s*([\d,\s]*)$", ln)
            if mm and section == "dscp":
                pr = int(mm.group(1))
                for tok in mm.group(2).split(","):
                    tok = tok.strip()
                    if tok.isdigit() and 0 <= int(tok) <= 63:
                        p.map[str(int(tok))] = pr
                        p.map_lines[str(int(tok))] = n
                        p.map_text[str(int(tok))] = ln
                continue
            if re.match(r"^prio:\s*\d$", ln) and section == "default":
                continue
            if ln.startswith(("Receive buffer size", "Cable len", "Buffers commands", "Rate limit is not")):
                section = ""
                continue
            if ln.startswith("PFC configuration"):
                section = "pfc"
                continue
            if section == "pfc" and ln.startswith("enabled"):
                vals = _ints(ln.split(None, 1)[1] if " " in ln or "\t" in ln else "", sep=r"[\s,]+")
                if vals is not None and len(vals) == 8 and all(v in (0, 1) for v in vals):
                    on = [i for i, v in enumerate(vals) if v]
                    p.itf.pfc = Pfc(enabled=bool(on), no_drop=on)
                    self.state.at(f"interfaces.{ifname}.pfc", n, ln)
                    pfc_seen = True
                else:
                    self.state.warn(f"{ifname}: unreadable PFC row {ln!r}", n)
                continue
            if section == "pfc" and (ln.startswith("priority") or ln.startswith("buffer")):
                continue
            mm = re.match(r"^(?:tc:\s*(\d)\s+)?(?:ratelimit:[^,]*,\s*)?tsa:\s*(\w+)(?:,\s*bw:\s*(\d+)%)?", ln)
            if mm and (mm.group(1) is not None or "tsa:" in ln):
                section = "tc"
                if mm.group(1) is None:
                    self.state.warn(f"{ifname}: TC line without a TC number: {ln!r}", n)
                    cur_tc = None
                    continue
                cur_tc = int(mm.group(1))
                rate = re.search(r"ratelimit:\s*([^,]+),", ln)
                if rate and rate.group(1).strip() != "unlimited":
                    self.state.warn(
                        f"{ifname}: TC {cur_tc} rate limit {rate.group(1).strip()} is not modelled",
                        n,
                        code="UNMODELLED",
                    )
                tc_rows[cur_tc] = (mm.group(2), int(mm.group(3)) if mm.group(3) else None)
                tc_lines[cur_tc] = n
                tc_prios.setdefault(cur_tc, [])
                continue
            mm = re.match(r"^priority:\s*([\d\s]+)$", ln)
            if mm and section == "tc":
                if cur_tc is not None:
                    tc_prios[cur_tc].extend(int(x) for x in mm.group(1).split())
                continue
            if _FAIL.search(ln):
                self.unsupported(cmd, n, ln)
                continue
            if section == "dscp" and ln.startswith("prio:"):
                self.state.warn(f"{ifname}: unreadable dscp2prio line {ln!r}", n)
                continue
            self.state.warn(f"{ifname}: unrecognised mlnx_qos output line {ln[:80]!r}", n)
        used = {tc: prios for tc, prios in tc_prios.items() if prios}
        if used:
            self.set_scheduling(ifname, p, tc_rows, used, start, text[:200], lines_by_tc=tc_lines)
        if not pfc_seen and not used and p.itf.trust is None:
            self.state.warn(f"{cmd}: no trust, PFC or ETS information found", start - 1, code="UNSUPPORTED")

    # ---- fold
    def finish(self) -> DeviceState:
        st = self.state
        for dev, (tos, n, _text) in self.dev_tos.items():
            ifname = self.dev_port.get(dev)
            if ifname is None:
                st.warn(
                    f"default_roce_tos {tos} of RDMA device {dev}: no interface known for {dev} "
                    "(add `ls /sys/class/net/<if>/device/infiniband` to the read-back)",
                    n,
                )
                continue
            p = self.ports[ifname]
            p.rdma["roce_tos"] = tos
            p.rdma_lines.setdefault("roce_tos", []).append(n)
        maps: dict[str, dict[str, int]] = {}
        for name in sorted(self.ports, key=natural_key):
            p = self.ports[name]
            itf = p.itf
            for side, vals, lines in (("dcqcn_np", p.np, p.np_lines), ("dcqcn_rp", p.rp, p.rp_lines)):
                if not vals:
                    continue
                if len(vals) == 8:
                    p.rdma[side] = sorted(k for k, v in vals.items() if v)
                    p.rdma_lines[side] = lines
                else:
                    st.warn(
                        f"{name}: {side} known for priorities {sorted(vals)} only; left unknown",
                        lines[0] if lines else None,
                    )
            if p.rdma:
                itf.rdma = NicRdma(**p.rdma)
                for key, lines in p.rdma_lines.items():
                    st.at(f"interfaces.{name}.rdma.{key}", [x for x in lines if x] or None)
            if p.map:
                maps[name] = dict(sorted(p.map.items(), key=lambda kv: int(kv[0])))
            st.interfaces[name] = itf
        if maps:
            counts = Counter(json.dumps(m, sort_keys=True) for m in maps.values())
            best = max(counts.values())
            host = next(m for m in maps.values() if counts[json.dumps(m, sort_keys=True)] == best)
            st.dscp_to_tc = dict(host)
            for name, m in maps.items():
                lines = self.ports[name].map_lines
                if m == host:
                    for d in m:
                        st.at(f"dscp_to_tc.{d}", lines.get(d), self.ports[name].map_text.get(d, ""))
                else:
                    st.interfaces[name].dscp_to_tc = m
                    st.at(f"interfaces.{name}.dscp_to_tc", sorted(set(lines.values())) or None)
        return st


def _int(value: str) -> int | None:
    try:
        return int(str(value).strip(), 0)
    except ValueError:
        return None


def _ints(text: str | None, sep: str = r"\s*,\s*") -> list[int] | None:
    if text is None:
        return None
    parts = [x for x in re.split(sep, text.strip()) if x != ""]
    try:
        return [int(x) for x in parts]
    except ValueError:
        return None


def _opt(argstr: str, *names: str) -> str | None:
    try:
        args = split_words(argstr)
    except ValueError:
        args = argstr.split()
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
        for nm in names:
            if nm.startswith("--") and a.startswith(nm + "="):
                return a.split("=", 1)[1]
    return None


def parse(text: str) -> DeviceState:
    """Parse a rendered script or a read-back bundle. Never raises."""
    parser = _Parser()
    try:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        parts = split_outputs(text)
        if parts:
            parser.parse_bundle(parts)
        else:
            parser.parse_script(text.split("\n"))
        return parser.finish()
    except Exception as exc:  # noqa: BLE001 - a parser never raises
        st = DeviceState(platform=NAME)
        st.warn(f"internal parser error: {type(exc).__name__}: {exc}")
        return st


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse(text)`` for the scripts of one audit, sharing the work between hosts whose scripts differ
    only by their name (the hosts of one intent entry; ``base.parse_shared_by_line``).

    A rendered script names its host in comments and in its one ``expected_host=`` line. ``parse_script``
    skips comment lines whole, and the ``expected_host=`` line gives only ``hostname`` and
    ``sources["hostname"]`` (the stripped line). Bundles (read-back outputs) are parsed."""
    if not isinstance(text, str) or split_outputs(text):
        return parse(text)
    return parse_shared_by_line(parse, text, memo, _expected_host, _comment)


def _expected_host(lines: list[str], i: int) -> str | None:
    """The name ``script_line`` takes from line `i` (an ``expected_host=`` line), or None."""
    line = lines[i].strip()
    if not line.startswith("expected_host="):
        return None
    try:
        parts = split_words(line[len("expected_host=") :])
    except ValueError:
        return None
    return parts[0] if parts else None


def _comment(lines: list[str], i: int) -> bool:
    return lines[i].strip().startswith("#")
