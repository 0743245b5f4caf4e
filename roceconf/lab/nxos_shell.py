"""The loopback lab's NX-OS shell (CLI over SSH, checkpoints and rollback)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import roceconf.lab.tree as tree
from roceconf.lab.device import Device
from roceconf.lab.refuse import nxos_refusal
from roceconf.lab.shellbase import BOOT_TIME, Shell, apply_pipes, junk, split_pipes

# ---------------------------------------------------------------------------- NX-OS
NXOS_VERSION = "10.3(4a)"
NXOS_MODEL = "Nexus9000 C9332D-GX2B Chassis"


class NxosShell(Shell):
    def __init__(self, device: Device, username: str) -> None:
        super().__init__(device, username)
        self.editor: tree.Editor | None = None
        self.dont_ask = False

    def banner(self) -> str:
        return "Cisco Nexus Operating System (NX-OS) Software (roceconf lab)\n"

    def prompt(self) -> str:
        if self.editor is None:
            return f"{self.host}# "
        return f"{self.host}({tree.mode_name(self.editor.context())})# "

    def control(self, char: str) -> str | None:
        if char == "\x1a":  # Ctrl-Z
            self.editor = None
            return ""
        if char == "\x03":
            return ""
        return None

    def handle(self, line: str) -> str:
        stripped = line.strip()
        if not stripped:
            return ""
        if self.editor is not None:
            return self._config(line, stripped)
        return self.exec(stripped)

    def _config(self, raw: str, line: str) -> str:
        assert self.editor is not None
        if line == "end":
            self.editor = None
            return ""
        if line == "exit":
            with self.device.lock:
                if not self.editor.exit():
                    self.editor = None
            return ""
        if line.startswith("do "):
            return self.exec(line[3:].strip())
        if line.startswith(("show ", "where")):
            return self.exec(line) if line.startswith("show ") else ""
        refused = nxos_refusal(line)
        if refused is not None:
            return refused  # the switch refuses the line and keeps its configuration
        with self.device.lock:
            self.editor.apply(raw)
        return ""

    # exec mode -------------------------------------------------------------
    def exec(self, line: str) -> str:
        cmd, pipes = split_pipes(line)
        as_json = any(p.split()[0] in ("json", "json-pretty") for p in pipes if p.split())
        words = cmd.split()
        dev = self.device
        if self.device.fault == "garbage" and self.is_read(cmd):
            return junk(self.rng)
        if words[0] in ("configure", "conf", "config") and (len(words) == 1 or words[1].startswith("t")):
            self.editor = tree.Editor(dev.root, dev.grammar)  # type: ignore[arg-type]
            return "Enter configuration commands, one per line. End with CNTL/Z."
        if words[0] == "terminal" or cmd.startswith("no terminal"):
            if "dont-ask" in cmd:
                self.dont_ask = not cmd.startswith("no ")
            return ""
        if cmd in ("end", "exit"):
            if cmd == "exit":
                self.closed = True
            return ""
        if words[0] == "checkpoint":
            name = words[-1] if len(words) >= 2 else f"auto-{int(time.time())}"
            with dev.lock:
                dev.files[_bootflash(name)] = dev.render()
            return "Done"
        if words[0] == "dir":
            return self._dir(words[1:] or ["bootflash:"])
        if words[0] == "delete" and len(words) >= 2:
            with dev.lock:
                dev.files.pop(_bootflash(words[1]), None)
            return ""
        if cmd.startswith("rollback running-config"):
            name = _bootflash(words[-1])
            with dev.lock:
                text = dev.files.get(name)
                if text is None:
                    return f"ERROR: {words[-1]} does not exist\nRollback failed."
                dev.root.children = tree.parse(text, dev.grammar).children  # type: ignore[arg-type]
            return (
                "Note: Applying config parallelly may fail Rollback verification\n"
                "Collecting Running-Config\n#Generating Rollback Patch\nExecuting Rollback Patch\n"
                "Generating Running-config for verification\n#Rollback completed successfully."
            )
        if words[0] == "copy" and len(words) >= 3:
            return self._copy(words[1], words[2])
        if cmd.startswith("show "):
            out = self.show(cmd, as_json)
            if out is None:
                return _nxos_invalid(cmd)
            return out if as_json else apply_pipes(out, pipes)
        return _nxos_invalid(cmd)

    def _dir(self, args: list[str]) -> str:
        name = _bootflash(args[0])
        dev = self.device
        with dev.lock:
            if name == "bootflash:":
                names = sorted(dev.files)
            elif name in dev.files:
                names = [name]
            else:
                return f"No such file or directory: {args[0]}"
            rows = [f"{len(dev.files[n]):>12}    Nov 30 00:00:00 2026  {n.split(':', 1)[1]}" for n in names]
        return "\n".join(rows) + "\n\nUsage for bootflash://sup-local\n 1000000 bytes used\n"

    def _copy(self, src: str, dst: str) -> str:
        dev = self.device
        with dev.lock:
            text = {"running-config": dev.render(), "startup-config": dev.startup}.get(src)
            if text is None:
                text = dev.files.get(_bootflash(src))
            if text is None:
                return f"% No such file: {src}"
            if dst == "startup-config":
                dev.startup = text
                return "[########################################] 100%\nCopy complete, now saving to disk."
            if dst == "running-config":
                merged = tree.Editor(dev.root, dev.grammar)  # type: ignore[arg-type]
                errors = []
                for ln in text.splitlines():
                    if ln.strip() and not ln.lstrip().startswith("!"):
                        refused = nxos_refusal(ln)
                        if refused is not None:
                            errors.append(f"{ln.strip()}\n{refused}")
                            continue
                        merged.apply(ln)
                return "\n".join(errors) if errors else "Copy complete."
            dev.files[_bootflash(dst)] = text
        return "Copy complete."

    def show(self, cmd: str, as_json: bool) -> str | None:
        dev = self.device
        words = cmd.split()
        if cmd.startswith("show running-config") or cmd.startswith("show run"):
            rest = words[2:]
            with dev.lock:
                if rest and rest[0] == "interface" and len(rest) > 1:
                    node = dev.root.find("interface " + " ".join(rest[1:]))
                    if node is None:
                        return ""
                    body = dev.render(tree.Node("", [node]))
                else:
                    body = dev.render()
            head = f"!Command: {cmd}\n!Running configuration last done at: {time.ctime(BOOT_TIME)}\n!Time: {time.ctime()}\n\n"
            return head + "version " + NXOS_VERSION + " Bios:version 05.47\n" + body
        if cmd.startswith("show startup-config"):
            with dev.lock:
                return f"!Command: {cmd}\n!Time: {time.ctime()}\n\n" + dev.startup
        if cmd.startswith("show version"):
            return json.dumps(self._version(), indent=2) if as_json else self._version_text()
        if cmd.startswith("show inventory"):
            if as_json:
                row = {
                    "name": "Chassis",
                    "desc": "Nexus9000 C9332D-GX2B Chassis",
                    "productid": "N9K-C9332D-GX2B",
                    "vendorid": "V01",
                    "serialnum": f"LAB{abs(hash(dev.name)) % 10**8:08d}",
                }
                return json.dumps({"TABLE_inv": {"ROW_inv": [row]}}, indent=2)
            return (
                'NAME: "Chassis",  DESCR: "Nexus9000 C9332D-GX2B Chassis"\n'
                f"PID: N9K-C9332D-GX2B     ,  VID: V01  ,  SN: LAB{abs(hash(dev.name)) % 10**8:08d}\n"
            )
        if cmd == "show hostname":
            return json.dumps({"hostname": self.host}) if as_json else self.host
        if cmd.startswith("show hosts"):
            return "DNS lookup disabled\nName/address lookup uses domain service\n"
        if cmd.startswith("show interface status") or cmd.startswith("show interface brief"):
            rows = [
                "",
                "-" * 79,
                "Port          Name               Status    Vlan      Duplex  Speed   Type",
                "-" * 79,
            ]
            for name in self._interfaces():
                rows.append(
                    f"{_short_if(name):<13} --                 connected routed    full    400G    QSFP-DD"
                )
            return "\n".join(rows)
        if cmd.startswith("show interface"):
            names = self._interfaces()
            if as_json:
                rows = [
                    {"interface": n, "state": "up", "admin_state": "up", "eth_mtu": "9216"} for n in names
                ]
                return json.dumps({"TABLE_interface": {"ROW_interface": rows}})
            return "\n".join(f"{n} is up\nadmin state is up,\n  MTU 9216 bytes" for n in names)
        if cmd.startswith("show file"):
            with dev.lock:
                text = dev.files.get(_bootflash(words[-1]))
            return text if text is not None else f"No such file or directory: {words[-1]}"
        if cmd.startswith("show checkpoint"):
            with dev.lock:
                return "\n".join(n for n in sorted(dev.files))
        if cmd.startswith("show diff rollback-patch file"):
            with dev.lock:
                a = dev.files.get(_bootflash(words[4]), "")
                b = dev.files.get(_bootflash(words[-1]), "")
            return _rollback_patch(a, b)
        if cmd.startswith("show clock"):
            return time.strftime("%H:%M:%S.000 UTC %a %b %d %Y")
        if cmd.startswith("show "):
            return ""
        return None

    def _interfaces(self) -> list[str]:
        with self.device.lock:
            return [
                c.text.split(None, 1)[1] for c in self.device.root.children if c.text.startswith("interface ")
            ]

    def _version(self) -> dict[str, Any]:
        up = int(time.time() - BOOT_TIME)
        facts = self.device.facts
        return {
            "header_str": "Cisco Nexus Operating System (NX-OS) Software",
            "bios_ver_str": "05.47",
            "kickstart_ver_str": facts["version"],
            "nxos_ver_str": facts["version"],
            "sys_ver_str": facts["version"],
            "nxos_file_name": "bootflash:///nxos64-cs.10.3.4a.M.bin",
            "chassis_id": f"{facts['model']} Chassis",
            "module_id": "32x400G QSFP-DD Ethernet Module",
            "cpu_name": "Intel(R) Xeon(R) CPU",
            "memory": 32000000,
            "mem_type": "kB",
            "proc_board_id": facts["serial"],
            "host_name": self.host,
            "kern_uptm_days": up // 86400,
            "kern_uptm_hrs": up % 86400 // 3600,
            "kern_uptm_mins": up % 3600 // 60,
            "kern_uptm_secs": up % 60,
            "rr_reason": "Reset Requested by CLI command reload",
        }

    def _version_text(self) -> str:
        v = self._version()
        return (
            "Cisco Nexus Operating System (NX-OS) Software\n"
            "TAC support: http://www.cisco.com/tac\n\n"
            "Software\n"
            f"  BIOS: version {v['bios_ver_str']}\n"
            f"  NXOS: version {v['nxos_ver_str']}\n"
            f"  NXOS image file is: {v['nxos_file_name']}\n\n"
            "Hardware\n"
            f'  cisco {v["chassis_id"]}\n'
            f"  Processor Board ID {v['proc_board_id']}\n\n"
            f"  Device name: {self.host}\n\n"
            f"Kernel uptime is {v['kern_uptm_days']} day(s), {v['kern_uptm_hrs']} hour(s), "
            f"{v['kern_uptm_mins']} minute(s), {v['kern_uptm_secs']} second(s)\n"
        )


def _bootflash(name: str) -> str:
    return name if ":" in name else "bootflash:" + name


def _short_if(name: str) -> str:
    return re.sub(r"^Ethernet", "Eth", name)


def _nxos_invalid(cmd: str) -> str:
    return "                 ^\n% Invalid command at '^' marker."


def _rollback_patch(old: str, new: str) -> str:
    g = tree.NXOS
    a = {c.text for c in tree.parse(old, g).children}
    b_root = tree.parse(new, g)
    out = ["Collecting Running-Config", "#Generating Rollback Patch"]
    for text in sorted(a - {c.text for c in b_root.children}):
        out.append("no " + text)
    for child in b_root.children:
        if child.text not in a:
            out.append(tree.render(tree.Node("", [child]), g).rstrip("\n"))
    if len(out) == 2:
        out.append("Rollback Patch is Empty")
    return "\n".join(out)
