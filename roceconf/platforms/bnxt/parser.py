"""Broadcom bnxt: config text -> :class:`roceconf.state.DeviceState` (never raises; problems become warnings)."""

from __future__ import annotations

import re

from roceconf.platforms.bnxt.syntax import _CC_PATH, NAME, ROCE_V2_PORT, cc_dir
from roceconf.platforms.linux_dcb.parser import HostParser, shared_parse
from roceconf.platforms.linux_dcb.syntax import RawPort, _int
from roceconf.state import DeviceState, Interface


# --------------------------------------------------------------------------- parser
class BnxtParser(HostParser):
    platform = NAME
    identity_prio_tc = False

    def __init__(self) -> None:
        super().__init__()
        self.cc: dict[str, dict[str, tuple[int, int | None, str]]] = {}
        self.pending: dict[str, dict[str, tuple[int, int | None, str]]] = {}
        self.cc_var: str | None = None
        self.cwd_dev: str | None = None
        self.hw_dump: set[str] = set()

    # -- bundle: cat of cc files or of 'apply' (the HW dump)
    def extra_bundle(self, cmd: str, argv: list[str], start: int, out: str) -> bool:
        m = _CC_PATH.search(cmd)
        if argv[0] != "cat" or not m:
            return False
        dev, attr = m.group(1), m.group(3)
        first = out.strip().split("\n", 1)[0].strip() if out.strip() else ""
        if attr == "apply":
            self._apply_dump(dev, start, out)
            return True
        v = _int(first, 0, 0xFFFF)
        if v is None:
            self.state.warn(f"{cmd}: unreadable value {first[:40]!r}", start)
            return True
        self.cc.setdefault(dev, {})[attr] = (v, start, f"{attr} = {first}")
        return True

    def _apply_dump(self, dev: str, start: int, out: str) -> None:
        got = self.cc.setdefault(dev, {})
        found = False
        for n, line in enumerate(out.split("\n"), start=start):
            m = re.match(r"^\s*([a-z .()0-9_-]+?)\s*\(([a-z_0-9]+)\)\s*:\s*(\S+)", line)
            if m and not m.group(1).startswith("slave"):
                attr, val = m.group(2), m.group(3)
                if attr == "ecn_enable":
                    got[attr] = (1 if val == "Enabled" else 0, n, line.strip())
                elif attr in ("roce_prio", "roce_dscp", "cnp_prio", "cnp_dscp"):
                    iv = _int(val, 0, 63)
                    if iv is not None:
                        got[attr] = (iv, n, line.strip())
                found = True
            m2 = re.match(r"^\s*send priority vlan \(VLAN 0\)\s*:\s*(Enabled|Disabled)", line)
            if m2:
                got["disable_prio_vlan_tx"] = (0 if m2.group(1) == "Enabled" else 1, n, line.strip())
        if found:
            self.hw_dump.add(dev)
        else:
            self.state.warn(f"cat {cc_dir(dev)}/apply: no congestion-control settings in output", start)

    # -- script: CC=..., printf/echo writes, cd, mkdir
    def extra_script(self, line: str, n: int, raw: str) -> bool:
        m = re.match(r"^(?:export\s+)?CC=[\"']?(\S+?)[\"']?$", line)
        if m:
            pm = _CC_PATH.search(m.group(1))
            if pm:
                self.cc_var = pm.group(1)
                return True
        if line.startswith("cd "):
            pm = _CC_PATH.search(line)
            self.cwd_dev = pm.group(1) if pm else None
            return bool(pm)
        if re.match(r"^if bnxt_cc_ready \S+; then$", line):
            return True  # the configfs check around the cc writes (its lines are read as written)
        if re.match(r"^(mkdir|rmdir)\b.*/sys/kernel/config/bnxt_re\b", line):
            return True
        w = re.match(r"^(printf|echo)\s+(.*?)\s*>\s*(\S+)", line)
        if not w:
            return False
        target = w.group(3).strip("\"'")
        dev = attr = None
        pm = _CC_PATH.search(target)
        if pm:
            dev, attr = pm.group(1), pm.group(3)
        elif target.startswith(("$CC/", "${CC}/")) and self.cc_var:
            dev, attr = self.cc_var, target.split("/", 1)[1]
        elif "/" not in target and self.cwd_dev and re.fullmatch(r"[a-z_]+", target):
            dev, attr = self.cwd_dev, target
        if dev is None or not attr:
            return False
        args = [a.strip("\"'") for a in w.group(2).split()]
        if w.group(1) == "printf":
            # printf '0x%x' VALUE: VALUE is a shell number (decimal, or 0x.. hex)
            if len(args) < 2 or "%x" not in args[0]:
                self.state.warn(f"configfs write not understood: {line[:120]}", n)
                return True
            v = _int(args[1], 0, 0xFFFF)
        else:
            vals = [a for a in args if a not in ("-n", "-e")]
            if not vals:
                return False
            tok = vals[0]
            if not tok.lower().startswith("0x"):
                self.state.warn(
                    f"{attr} written as {tok!r} without 0x: the driver parses it as hex (0x{tok})",
                    n,
                    code="HEX",
                )
            try:
                v = int(tok, 16)
            except ValueError:
                v = None
        if v is None:
            self.state.warn(f"configfs value not understood: {line[:120]}", n)
            return True
        if attr == "apply":
            if v == 1:
                self.cc.setdefault(dev, {}).update(self.pending.pop(dev, {}))
            return True
        self.pending.setdefault(dev, {})[attr] = (v, n, raw.strip())
        return True

    # -- per port: rdma cc fields and bnxt checks
    def finish_port(self, name: str, p: RawPort, itf: Interface) -> None:
        st = self.state
        base = f"interfaces.{name}"
        dev = p.rdma_dev
        cc = self.cc.get(dev or "", {})
        if dev and itf.rdma is not None and cc:
            rd = itf.rdma
            if "cnp_prio" in cc:
                rd.cnp_priority = cc["cnp_prio"][0] & 7
                st.at(f"{base}.rdma", cc["cnp_prio"][1], cc["cnp_prio"][2])
            if "cnp_dscp" in cc:
                rd.cnp_dscp = cc["cnp_dscp"][0] & 0x3F
                st.at(f"{base}.rdma", cc["cnp_dscp"][1], cc["cnp_dscp"][2])
            if "ecn_enable" in cc:
                st.at(f"{base}.rdma", cc["ecn_enable"][1], cc["ecn_enable"][2])
                if cc["ecn_enable"][0]:
                    if "roce_prio" in cc:
                        rd.dcqcn_rp = rd.dcqcn_np = [cc["roce_prio"][0] & 7]
                    else:
                        st.warn(
                            f"{dev}: congestion control on, but roce_prio unknown",
                            cc["ecn_enable"][1],
                            code="PARTIAL",
                        )
                    if "ecn_marking" in cc and not cc["ecn_marking"][0]:
                        st.warn(
                            f"{dev}: ecn_enable is on but ecn_marking is 0 (RoCE packets not ECT)",
                            cc["ecn_marking"][1],
                            code="ECN_MARKING",
                        )
                else:
                    rd.dcqcn_rp, rd.dcqcn_np = [], []
            if "roce_dscp" in cc and rd.roce_tos is not None and cc["roce_dscp"][0] != rd.roce_tos >> 2:
                st.warn(
                    f"{dev}: cc roce_dscp {cc['roce_dscp'][0]} differs from RDMA-CM TOS {rd.roce_tos} "
                    f"(DSCP {rd.roce_tos >> 2})",
                    cc["roce_dscp"][1],
                    code="MISMATCH",
                )
            if itf.trust == "dscp" and cc.get("disable_prio_vlan_tx", (1,))[0] == 0:
                st.warn(
                    f"{dev}: DSCP trust but disable_prio_vlan_tx is 0 (RoCE frames carry a VLAN 0 tag)",
                    cc["disable_prio_vlan_tx"][1],
                    code="VLAN_TAG",
                )
        # bnxt_re TC layout checks
        line = self._first(p, "scheduling")
        roce = cc.get("roce_prio", (None,))[0] if cc else None
        if roce is None:
            roce = next((pr for port, pr in p.app_dgram if port == ROCE_V2_PORT), None)
        if p.prio_tc and roce is not None and p.prio_tc.get(roce) not in (None, 1):
            st.warn(
                f"{name}: RoCE priority {roce} is on TC{p.prio_tc.get(roce)}; bnxt_re needs it on TC1",
                line,
                code="BNXT_TC",
            )
        cnp = itf.rdma.cnp_priority if itf.rdma is not None else None
        if p.prio_tc and cnp is not None and p.prio_tc.get(cnp) not in (None, 2):
            st.warn(
                f"{name}: CNP priority {cnp} is on TC{p.prio_tc.get(cnp)}; bnxt_re needs it on TC2",
                line,
                code="BNXT_TC",
            )
        if p.app_dscp is not None:
            rv2 = [pr for port, pr in p.app_dgram if port == ROCE_V2_PORT]
            if not rv2:
                st.warn(
                    f"{name}: no RoCE v2 APP entry (dgram-port-prio {ROCE_V2_PORT}:<prio>)",
                    self._first(p, "app"),
                    code="MISSING",
                )
            elif itf.pfc.no_drop is not None and rv2[0] not in itf.pfc.no_drop:
                st.warn(
                    f"{name}: RoCE v2 APP priority {rv2[0]} has no PFC", self._first(p, "app"), code="LOSSY"
                )

    def finish_device(self) -> None:
        used = {p.rdma_dev for p in self.ports.values() if p.rdma_dev}

        def first(vals: dict[str, tuple[int, int | None, str]]) -> int | None:
            return min((v[1] for v in vals.values() if v[1] is not None), default=None)

        for dev in sorted(self.pending):
            if self.pending[dev]:
                self.state.warn(
                    f"{dev}: {', '.join(sorted(self.pending[dev]))} written but not applied "
                    f"(echo -n 0x1 > apply): not in effect, ignored",
                    first(self.pending[dev]),
                    code="NOT_APPLIED",
                )
        for dev in sorted(set(self.cc) | set(self.pending)):
            if dev not in used:
                self.state.warn(
                    f"bnxt_re configfs settings for {dev}, which is not tied to any interface "
                    f"(read 'rdma link show' or use 'check_rdma_dev <netdev> {dev}')",
                    first({**self.cc.get(dev, {}), **self.pending.get(dev, {})}),
                    code="UNDEFINED",
                )


def parse(text: str) -> DeviceState:
    return BnxtParser().run(text)


def parse_shared(text: str, memo: dict) -> DeviceState:
    """``parse`` sharing one parse between scripts that differ only by their host's name
    (``linux_dcb.shared_parse``: bnxt scripts are HostParser scripts)."""
    return shared_parse(parse, text, memo)
