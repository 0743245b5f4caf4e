"""Command interpreters of the simulated devices (one object per CLI session).

A shell is synchronous and transport-free: ``handle(line) -> output`` and ``prompt()``.
The SSH glue in :mod:`roceconf.lab.server` echoes input, splits lines and writes the output
followed by the prompt, which is all netmiko / napalm / Ansible need from a PTY.
"""

from __future__ import annotations

import base64
import copy
import difflib
import json
import random
import re
import shlex
import string
import time
from typing import Any

import yaml

from roceconf.lab import bom as lab_bom
from roceconf.lab import tree
from roceconf.lab.device import (
    Device,
    deep_merge,
    deep_unset,
    junos_curly_to_set,
    junos_lines,
    nv_command_patch,
    nv_patch,
)
from roceconf.lab.refuse import (
    eos_refusal,
    host_command_refusal,
    host_script_refusal,
    junos_load_errors,
    junos_refusal,
    nvue_patch_refusal,
    nvue_refusal,
    nxos_refusal,
    sonic_load_refusal,
)

BOOT_TIME = time.time()
_JUNK_CHARS = string.ascii_letters + string.digits + " .,:;()[]{}-_=+*/\\'\"\t"


def junk(rng: random.Random | None = None) -> str:
    """Random lines that look like nothing a parser knows."""
    rng = rng or random.Random()
    lines = []
    for _ in range(rng.randint(3, 12)):
        lines.append("".join(rng.choice(_JUNK_CHARS) for _ in range(rng.randint(5, 70))))
    return "\n".join(lines)


def apply_pipes(text: str, pipes: list[str]) -> str:
    """``| include / exclude / begin / section / count / no-more`` on command output."""
    for pipe in pipes:
        words = pipe.split(None, 1)
        if not words:
            continue
        op, arg = words[0], (words[1] if len(words) > 1 else "")
        arg = arg.strip().strip('"')
        lines = text.splitlines()
        if op in ("include", "inc", "i", "grep", "match"):
            lines = [ln for ln in lines if re.search(arg, ln)]
        elif op in ("exclude", "exc", "e", "except"):
            lines = [ln for ln in lines if not re.search(arg, ln)]
        elif op in ("begin", "b"):
            for i, ln in enumerate(lines):
                if re.search(arg, ln):
                    lines = lines[i:]
                    break
            else:
                lines = []
        elif op in ("section", "sec"):
            out, keep = [], False
            for ln in lines:
                if not ln.startswith(" "):
                    keep = bool(re.search(arg, ln))
                if keep:
                    out.append(ln)
            lines = out
        elif op == "count":
            return str(len(lines))
        # no-more, json handled by the caller, anything else: ignored
        text = "\n".join(lines)
    return text


def split_pipes(line: str) -> tuple[str, list[str]]:
    parts = [p.strip() for p in line.split(" | ")]
    return parts[0], parts[1:]


class Shell:
    """Base class: prompt, counters, garbage fault."""

    read_prefixes: tuple[str, ...] = ("show",)

    def __init__(self, device: Device, username: str) -> None:
        self.device = device
        self.username = username
        self.host = device.name
        self.closed = False
        self.rng = random.Random()

    def banner(self) -> str:
        return ""

    def prompt(self) -> str:  # pragma: no cover - overridden
        return f"{self.host}# "

    def is_read(self, line: str) -> bool:
        return line.startswith(self.read_prefixes)

    def feed(self, line: str) -> str:
        """One input line -> output (no prompt). Counts the command, applies the garbage fault."""
        stripped = line.replace("\x00", "").strip()
        if stripped:
            self.device.record(stripped)
        if self.device.fault == "garbage" and self.is_read(stripped):
            return junk(self.rng)
        if stripped and not isinstance(self, LinuxShell):  # bash shells answer per command of a list
            counted = self.device.counter_output(stripped)
            if counted is not None:
                return counted
        return self.handle(line.replace("\x00", ""))

    def handle(self, line: str) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def control(self, char: str) -> str | None:
        """Control character (Ctrl-C / Ctrl-D / Ctrl-Z). Returns output or None if ignored."""
        return None


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


# ---------------------------------------------------------------------------- EOS (eAPI)
EOS_VERSION = "4.31.2F"


class EapiError(Exception):
    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors


class EosEngine:
    """Runs one eAPI ``runCmds`` request against a device (config sessions included)."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.editor: tree.Editor | None = None
        self.session: str | None = None
        self.rng = random.Random()

    def run(self, cmds: list[Any], fmt: str) -> list[Any]:
        results: list[Any] = []
        for item in cmds:
            cmd = item["cmd"] if isinstance(item, dict) else str(item)
            cmd = cmd.strip()
            self.device.record(cmd)
            if self.device.fault == "garbage" and cmd.startswith("show"):
                text = junk(self.rng)
                results.append({"output": text} if fmt == "text" else {"garbage": text})
                continue
            counted = self.device.counter_output(cmd)
            if counted is not None:
                results.append(json.loads(counted) if fmt == "json" else {"output": counted})
                continue
            out = self.one(cmd)
            if isinstance(out, dict):
                if fmt == "text":
                    out = {"output": out.pop("_text", json.dumps(out, indent=2) + "\n")}
                else:
                    out.pop("_text", None)
                results.append(out)
            else:
                results.append({"output": out} if fmt == "text" else {"output": out})
        return results

    def _sessions(self) -> dict[str, Any]:
        pend = self.device.pending_commits
        return {
            name: {
                "state": "pendingCommitTimer" if name in pend else "pending",
                **({"commitBy": pend[name]["commitBy"]} if name in pend else {}),
                "completedTime": 0,
                "commitUser": "",
                "description": "",
                "instances": {},
            }
            for name in self.device.sessions
        }

    def one(self, cmd: str) -> dict[str, Any] | str:
        dev = self.device
        words = cmd.split()
        if not words:
            return {}
        with dev.lock:
            if cmd in ("enable", "disable") or cmd.startswith("terminal "):
                return {}
            if words[0] == "configure" and (len(words) == 1 or words[1] in ("terminal", "t")):
                self.editor, self.session = tree.Editor(dev.root, dev.grammar), None  # type: ignore[arg-type]
                return {}
            if words[:2] == ["configure", "session"] and len(words) >= 3:
                return self._session(words[2], words[3:])
            if words[:2] == ["configure", "replace"] and len(words) >= 3:
                text = self._read(words[2])
                if text is None:
                    raise EapiError(f"Error: file {words[2]} not found", ["File not found"])
                dev.root.children = tree.parse(text, dev.grammar).children  # type: ignore[arg-type]
                return {}
            if cmd == "end":
                self.editor, self.session = None, None
                return {}
            if cmd == "exit":
                if self.editor is not None and not self.editor.exit():
                    self.editor, self.session = None, None
                return {}
            if cmd in ("write", "write memory", "copy running-config startup-config"):
                dev.startup = dev.render()
                return {"_text": "Copy completed successfully.\n"}
            if words[0] == "copy" and len(words) == 3:
                text = self._read(words[1])
                if text is None:
                    raise EapiError(f"Error: {words[1]} not found", ["File not found"])
                if words[2] == "startup-config":
                    dev.startup = text
                else:
                    dev.files[words[2]] = text
                return {"_text": "Copy completed successfully.\n"}
            if self.session is not None and words[0] in ("commit", "abort"):
                return self._session(self.session, words)
            if self.editor is not None and cmd == "rollback clean-config":
                self.editor.root.children = []
                return {}
            if words[0] == "show":
                base, pipes = split_pipes(cmd)
                out = self.show(base)
                if pipes and isinstance(out, dict) and "_text" in out:
                    text = apply_pipes(out["_text"], [p for p in pipes if p != "json"])
                    out = {"_text": text + ("\n" if text else ""), "output": text}
                return out
            if self.editor is not None:
                refused = eos_refusal(cmd)
                if refused is not None:
                    raise EapiError(refused, [refused.lstrip("% ")])
                self.editor.apply(cmd)
                return {}
        raise EapiError(f"Invalid input (at token 0: '{words[0]}')", ["Invalid input"])

    def _read(self, name: str) -> str | None:
        if name in ("running-config", "system:running-config"):
            return self.device.render()
        if name in ("startup-config", "flash:startup-config"):
            return self.device.startup
        return self.device.files.get(name)

    def _session(self, name: str, rest: list[str]) -> dict[str, Any]:
        dev = self.device
        if not rest:
            if name not in dev.sessions:
                dev.sessions[name] = dev.root.copy()
            self.editor, self.session = tree.Editor(dev.sessions[name], dev.grammar), name  # type: ignore[arg-type]
            return {}
        if rest[0] == "abort":
            pend = dev.pending_commits.pop(name, None)
            if pend is not None:  # abort of a commit timer: back to the config before the commit
                pend["timer"].cancel()
                dev.root.children = pend["previous"]
            dev.sessions.pop(name, None)
            self.editor, self.session = None, None
            return {}
        if rest[0] == "commit":
            self.editor, self.session = None, None
            pend = dev.pending_commits.pop(name, None)
            if pend is not None:  # confirms a commit timer
                pend["timer"].cancel()
                dev.sessions.pop(name, None)
                return {}
            cand = dev.sessions.get(name)
            if cand is None:
                raise EapiError(f"% Session {name} does not exist", ["Session not found"])
            if len(rest) >= 3 and rest[1] == "timer" and dev.loop is not None:
                h, m, sec = ([0, 0] + [int(x) for x in rest[2].split(":")])[-3:]
                delay = h * 3600 + m * 60 + sec
                previous = [c.copy() for c in dev.root.children]
                dev.root.children = [c.copy() for c in cand.children]
                timer = dev.loop.call_later(delay * dev.time_scale, _eos_revert, dev, name)
                dev.timers.append(timer)
                dev.pending_commits[name] = {
                    "previous": previous,
                    "timer": timer,
                    "commitBy": time.time() - BOOT_TIME + delay,
                }
                return {}
            dev.sessions.pop(name, None)
            dev.root.children = cand.children
            return {}
        raise EapiError(f"Invalid input (at token 3: '{rest[0]}')", ["Invalid input"])

    def show(self, cmd: str) -> dict[str, Any] | str:
        dev = self.device
        words = cmd.split()
        if cmd.startswith("show running-config"):
            return {"_text": dev.render(), "output": dev.render()}
        if cmd.startswith("show startup-config"):
            return {"_text": dev.startup, "output": dev.startup}
        if cmd.startswith("show session-config"):
            name = self.session
            if len(words) >= 4 and words[2] == "named":
                name = words[3]
            if name is None or name not in dev.sessions:
                raise EapiError(f"% Session {name} does not exist", ["Session not found"])
            cand = dev.render(dev.sessions[name])
            if words[-1] == "diffs":
                diff = difflib.unified_diff(
                    dev.render().splitlines(),
                    cand.splitlines(),
                    fromfile="system:/running-config",
                    tofile=f"session:/{name}-session-config",
                    lineterm="",
                )
                text = "\n".join(diff)
                return {"_text": text + ("\n" if text else ""), "output": text}
            return {"_text": cand, "output": cand}
        if cmd.startswith("show configuration sessions"):
            sessions = self._sessions()
            text = "Maximum number of completed sessions: 1\nMaximum number of pending sessions: 5\n\n"
            text += "".join(f"  {n:<20} pending\n" for n in sessions)
            return {"sessions": sessions, "maxSavedSessions": 1, "maxOpenSessions": 5, "_text": text}
        if cmd.startswith("show version"):
            up = time.time() - BOOT_TIME
            data = {
                "mfgName": "Arista",
                "modelName": dev.facts["model"],
                "hardwareRevision": "11.00",
                "serialNumber": dev.facts["serial"],
                "systemMacAddress": "00:1c:73:00:00:01",
                "hwMacAddress": "00:1c:73:00:00:01",
                "configMacAddress": "00:00:00:00:00:00",
                "version": dev.facts["version"],
                "architecture": "x86_64",
                "internalVersion": f"{dev.facts['version']}-lab",
                "internalBuildId": "00000000-0000-0000-0000-000000000000",
                "imageFormatVersion": "3.0",
                "imageOptimization": "Default",
                "bootupTimestamp": BOOT_TIME,
                "uptime": up,
                "memTotal": 16000000,
                "memFree": 8000000,
                "isIntlVersion": False,
            }
            data["_text"] = (
                f"Arista {data['modelName']}\nHardware version: 11.00\n"
                f"Serial number: {data['serialNumber']}\nSystem MAC address: 001c.7300.0001\n\n"
                f"Software image version: {data['version']}\nArchitecture: x86_64\n"
                f"Uptime: {int(up)} seconds\nTotal memory: 16000000 kB\nFree memory: 8000000 kB\n"
            )
            return data
        if cmd == "show hostname":
            return {
                "hostname": dev.name,
                "fqdn": dev.name,
                "_text": f"Hostname: {dev.name}\nFQDN: {dev.name}\n",
            }
        if cmd.startswith("show interfaces"):
            names = [c.text.split(None, 1)[1] for c in dev.root.children if c.text.startswith("interface ")]
            ifs = {
                n: {
                    "name": n,
                    "lineProtocolStatus": "up",
                    "interfaceStatus": "connected",
                    "description": "",
                    "mtu": 9214,
                    "bandwidth": 400000000000,
                    "physicalAddress": "00:1c:73:00:00:01",
                    "lastStatusChangeTimestamp": BOOT_TIME,
                }
                for n in names
            }
            return {"interfaces": ifs, "_text": "".join(f"{n} is up, line protocol is up\n" for n in names)}
        return {"_text": ""}


def _eos_revert(dev: Device, name: str) -> None:
    with dev.lock:
        pend = dev.pending_commits.pop(name, None)
        if pend is not None:
            dev.root.children = pend["previous"]
        dev.sessions.pop(name, None)


# ---------------------------------------------------------------------------- Junos
class JunosShell(Shell):
    def __init__(self, device: Device, username: str) -> None:
        super().__init__(device, username)
        self.config_mode = False
        self.loading: list[str] | None = None
        self.confirm_exit = False

    def banner(self) -> str:
        return "--- JUNOS 23.4R1.10 Kernel 64-bit (roceconf lab)\n"

    def prompt(self) -> str:
        if self.loading is not None:
            return ""
        if self.confirm_exit:
            return "Exit with uncommitted changes? [yes,no] (yes) "
        if self.config_mode:
            return f"\n[edit]\n{self.username}@{self.host}# "
        return f"{self.username}@{self.host}> "

    def is_read(self, line: str) -> bool:
        return line.startswith(("show", "run show"))

    def control(self, char: str) -> str | None:
        if char == "\x04" and self.loading is not None:
            lines, self.loading = self.loading, None
            text = "\n".join(lines)
            if re.search(r"\{\s*$", text, re.M) and not re.search(r"^\s*(set|delete)\s", text, re.M):
                lines = junos_curly_to_set(text)  # load merge terminal of curly-brace text
            good, errors = junos_load_errors(lines, self.device.facts.get("model"))
            with self.device.lock:
                self._apply_lines(good)
            if errors:
                return "\n".join(errors) + f"\nload complete ({len(errors)} errors)"
            return "load complete"
        if char == "\x03":
            self.loading = None
            return ""
        return None

    def _apply_lines(self, lines: list[str]) -> None:
        cand = self.device.junos_candidate
        merged = junos_lines("\n".join(["\n".join(cand)] + lines))
        cand[:] = merged

    def handle(self, line: str) -> str:
        stripped = " ".join(line.split())
        if self.loading is not None:
            self.loading.append(stripped)
            return ""
        if self.confirm_exit:
            self.confirm_exit = False
            if stripped in ("", "yes", "y"):
                self.config_mode = False
                return "Exiting configuration mode"
            return ""
        if not stripped:
            return ""
        cmd, pipes = split_pipes(stripped)
        if cmd == "cli" or cmd.startswith("set cli "):
            if "screen-width" in cmd:
                return f"Screen width set to {cmd.split()[-1]}"
            if "screen-length" in cmd:
                return f"Screen length set to {cmd.split()[-1]}"
            if "complete-on-space" in cmd:
                return "Disabling complete-on-space" if cmd.endswith("off") else "Enabling complete-on-space"
            return ""
        if self.config_mode:
            return self._config(cmd, pipes)
        if cmd in ("configure", "configure private", "configure exclusive", "edit"):
            self.config_mode = True
            return "Entering configuration mode"
        if cmd in ("exit", "quit"):
            self.closed = True
            return ""
        if cmd.startswith("show"):
            return self.show(cmd, pipes, committed=True)
        return f"{' ' * 10}^\nunknown command."

    def show(self, cmd: str, pipes: list[str], committed: bool) -> str:
        dev = self.device
        filters = [p for p in pipes if not p.startswith(("display set", "no-more"))]
        if cmd.startswith("show configuration") or (not committed and cmd == "show"):
            with dev.lock:
                lines = list(dev.junos if committed else dev.junos_candidate)
            words = cmd.split()[2:] if committed else []
            if words:
                prefix = "set " + " ".join(words)
                lines = [ln for ln in lines if ln == prefix or ln.startswith(prefix + " ")]
            return apply_pipes("\n".join(lines), filters)
        if cmd.startswith("show version"):
            return lab_bom.junos_show_version(dev, self.host)
        if cmd.startswith("show system commit"):
            with dev.lock:
                n = len(dev.junos_history)
            return "\n".join(
                f"{i}   2026-11-30 00:00:00 UTC by {self.username} via cli" for i in range(n + 1)
            )
        return ""

    def _config(self, cmd: str, pipes: list[str]) -> str:
        dev = self.device
        words = cmd.split()
        if words[0] in ("set", "delete"):
            refused = junos_refusal(cmd, dev.facts.get("model"))
            if refused is not None:
                return refused  # the CLI refuses the line; the candidate keeps its configuration
            with dev.lock:
                self._apply_lines([cmd])
            return ""
        if cmd in ("load set terminal", "load merge terminal"):
            self.loading = []
            return "[Type ^D at a new line to end input]"
        if cmd == "show" and any(p.startswith("compare") for p in pipes):
            return self._compare()
        if cmd.startswith("show"):
            return self.show(cmd, pipes, committed=False)
        if words[0] == "run":
            return self.show(" ".join(words[1:]), pipes, committed=True)
        if words[0] == "commit":
            return self._commit(words[1:])
        if words[0] == "rollback":
            n = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
            with dev.lock:
                if n == 0:
                    dev.junos_candidate[:] = list(dev.junos)
                elif n <= len(dev.junos_history):
                    dev.junos_candidate[:] = list(dev.junos_history[-n])
                else:
                    return "error: Requested rollback configuration not found"
            return "load complete"
        if cmd in ("exit", "quit", "exit configuration-mode", "top"):
            if cmd == "top":
                return ""
            with dev.lock:
                changed = dev.junos_candidate != dev.junos
            if changed:
                self.confirm_exit = True
                return "The configuration has been changed but not committed"
            self.config_mode = False
            return "Exiting configuration mode"
        return f"{' ' * 10}^\nsyntax error."

    def _compare(self) -> str:
        with self.device.lock:
            old, new = self.device.junos, self.device.junos_candidate
            removed = [ln for ln in old if ln not in set(new)]
            added = [ln for ln in new if ln not in set(old)]
        if not removed and not added:
            return ""
        return "\n".join(["[edit]"] + [f"- {ln}" for ln in removed] + [f"+ {ln}" for ln in added])

    def _commit(self, args: list[str]) -> str:
        dev = self.device
        if args[:1] == ["check"]:
            return "configuration check succeeds"
        with dev.lock:
            pending = dev.pending_commits.pop("commit-confirmed", None)
            # a pending commit confirmed rolls back to the config before the first unconfirmed commit
            base = pending["previous"] if pending else list(dev.junos)
            for t in dev.timers:
                t.cancel()
            dev.timers.clear()
            if dev.junos_candidate != dev.junos:
                dev.junos_history.append(list(dev.junos))
                dev.junos = list(dev.junos_candidate)
            out = "commit complete"
            if args[:1] == ["confirmed"]:
                minutes = int(args[1]) if len(args) > 1 and args[1].isdigit() else 10
                dev.pending_commits["commit-confirmed"] = {"previous": base}
                if dev.loop is not None:
                    delay = minutes * 60 * dev.time_scale
                    dev.timers.append(dev.loop.call_later(delay, _junos_revert, dev, base))
                out = (
                    f"configuration check succeeds\ncommit confirmed will be automatically rolled back "
                    f"in {minutes} minutes unless confirmed\ncommit complete"
                )
            if "and-quit" in args:
                self.config_mode = False
                out += "\nExiting configuration mode"
        return out


def _junos_revert(dev: Device, previous: list[str]) -> None:
    with dev.lock:
        dev.pending_commits.pop("commit-confirmed", None)
        dev.junos_history.append(list(dev.junos))
        dev.junos = list(previous)
        dev.junos_candidate = list(previous)
        dev.timers.clear()


# ---------------------------------------------------------------------------- Linux shells
class LinuxShell(Shell):
    """A small bash: prompt, sudo, file upload (heredoc / echo / printf / base64), cat, rm."""

    #: Ask the platform (``command``) before the shell built-ins (hosts: the state answers first).
    command_first = False

    def __init__(self, device: Device, username: str) -> None:
        super().__init__(device, username)
        self.heredoc: tuple[str, str, bool, list[str]] | None = None  # (end marker, path, append, lines)
        self.continued: list[str] | None = None  # a command with an open quote spans lines
        self.root = False  # after `sudo -s` / `sudo -i` / `sudo su` (netmiko linux config mode)
        self.rc = 0  # exit status of the last command (`$?`)

    def prompt(self) -> str:
        if self.heredoc is not None or self.continued is not None:
            return "> "
        if self.root:
            return f"root@{self.host}:/home/{self.username}# "
        return f"{self.username}@{self.host}:~$ "

    def control(self, char: str) -> str | None:
        if char in ("\x03", "\x04"):
            self.heredoc = None
            self.continued = None
            return ""
        return None

    def handle(self, line: str) -> str:
        if self.heredoc is not None:
            marker, path, append, lines = self.heredoc
            if line.strip() == marker:
                self.heredoc = None
                self._write(path, "".join(ln + "\n" for ln in lines), append)
            else:
                lines.append(line)
            return ""
        if self.continued is not None:
            self.continued.append(line)
            line = "\n".join(self.continued)
            self.continued = None
        if _open_quote(line):
            self.continued = [line]
            return ""
        cmd = line.strip()
        if not cmd:
            return ""
        parts = _split_list(cmd)
        if len(parts) > 1:  # `a; b; c` runs each in turn, like bash
            out = ""
            for o in (self.handle(p) for p in parts):
                if o:
                    out += o if not out or out.endswith("\n") else "\n" + o
            return out.rstrip("\n")
        cmd = re.sub(r"\s+2>&1$", "", cmd)
        if re.fullmatch(r"(sudo\s+(-s|-i|su(\s+-)?)|su(\s+-)?(\s+root)?)", cmd):
            self.root = True
            return ""
        while cmd.startswith("sudo "):
            cmd = re.sub(r"^sudo\s+(-\S+\s+)*", "", cmd)
        first, second = (self.command, self.builtin) if self.command_first else (self.builtin, self.command)
        cmd = cmd.replace("$?", str(self.rc))
        self.rc = 0
        out = None
        if self.device.fault == "garbage" and self._reads(cmd):
            # a read answers junk, also inside the collector's `echo '#>>> cmd'; cmd 2>&1; ...` lists
            out = junk(self.rng)
        else:
            out = self.device.counter_output(cmd)
        if out is None:
            out = first(cmd)
        if out is None:
            out = second(cmd)
        if out is not None:
            if self.rc == 0 and _ERROR_OUT.match(out):
                self.rc = 1
            return out
        self.rc = 127
        return f"-bash: {cmd.split()[0]}: command not found"

    @staticmethod
    def _reads(cmd: str) -> bool:
        """A command that reads state (not echo/printf markers, not a write into a file)."""
        words = cmd.split()
        return bool(words) and words[0] not in ("echo", "printf", "mkdir", "modprobe", "mount") and ">" not in cmd

    def _write(self, path: str, text: str, append: bool) -> None:
        with self.device.lock:
            self.device.files[path] = (self.device.files.get(path, "") if append else "") + text

    def builtin(self, cmd: str) -> str | None:
        # heredoc:  cat > FILE <<'EOF'   /  cat <<'EOF' > FILE  /  tee FILE <<EOF
        m = re.match(r"^(?:cat|tee)\s*(>>?)?\s*(\S+)?\s*<<-?\s*['\"]?(\w+)['\"]?\s*(>>?)?\s*(\S+)?\s*$", cmd)
        if m and (m.group(2) or m.group(5)):
            path = m.group(2) or m.group(5)
            append = (m.group(1) or m.group(4) or "") == ">>"
            self.heredoc = (m.group(3), path, append, [])
            return ""
        m = re.match(r"^(?:echo|printf)\s+(\S+)\s*\|\s*base64\s+(?:-d|--decode)\s*(>>?)\s*(\S+)\s*$", cmd)
        if m:
            data = base64.b64decode(m.group(1).strip("'\"")).decode()
            self._write(m.group(3), data, m.group(2) == ">>")
            return ""
        redirect = re.match(r"^(.*?)\s*(>>?)\s*(\S+)\s*$", cmd, re.S)
        if redirect and cmd.split()[0] in ("echo", "printf"):
            body, op, path = redirect.groups()
            self._write(path, self._echo(body), op == ">>")
            return ""
        words = cmd.split()
        if words[0] in ("echo", "printf"):
            return self._echo(cmd)
        if words[0] == "cat" and len(words) > 1:
            with self.device.lock:
                outs = [self.device.files.get(p) for p in words[1:]]
            missing = [p for p, o in zip(words[1:], outs, strict=True) if o is None]
            if missing:
                return f"cat: {missing[0]}: No such file or directory"
            return "".join(o for o in outs if o).rstrip("\n")
        if words[0] == "rm":
            with self.device.lock:
                for p in words[1:]:
                    if not p.startswith("-"):
                        self.device.files.pop(p, None)
            return ""
        if words[0] == "ls":
            paths = [p for p in words[1:] if not p.startswith("-")]
            with self.device.lock:
                found = [p for p in paths if p in self.device.files]
            return "\n".join(found) if found else (f"ls: cannot access '{paths[0]}'" if paths else "")
        if words[0] == "hostname":
            return self.host
        if words[0] == "whoami":
            return self.username
        if words[0] == "uname":
            return f"Linux {self.host} 6.1.0-lab #1 SMP x86_64 GNU/Linux"
        if words[0] in ("true", "cd", "export", "unset", "stty", "set", "unalias", "bind"):
            return ""
        if words[0] in ("exit", "logout"):
            if self.root:
                self.root = False
            else:
                self.closed = True
            return ""
        return None

    @staticmethod
    def _echo(cmd: str) -> str:
        try:
            words = shlex.split(cmd)
        except ValueError:
            words = cmd.split()
        if not words:
            return ""
        if words[0] == "printf":
            fmt = words[1] if len(words) > 1 else ""
            args = words[2:]
            if fmt == "%s" and args:
                return "".join(args)
            return fmt.replace("\\n", "\n") + "".join(args)
        args = words[1:]
        newline = True
        if args and args[0] == "-n":
            newline, args = False, args[1:]
        if args and args[0] == "-e":
            args = args[1:]
        return " ".join(args) + ("\n" if newline else "")

    def command(self, cmd: str) -> str | None:
        return None


def _split_list(line: str) -> list[str]:
    """Split a bash command list on top-level ';' (quotes respected; heredocs are not lists)."""
    if ";" not in line or "<<" in line:
        return [line]
    parts, buf, quote = [], [], ""
    for ch in line:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = ""
        elif ch in ("'", '"'):
            quote = ch
            buf.append(ch)
        elif ch == ";":
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf).strip())
    return [p for p in parts if p]


_ERROR_OUT = re.compile(r"^(\S+: .*(No such file|cannot access|not found)|Error)")


def _open_quote(line: str) -> bool:
    try:
        shlex.split(line)
    except ValueError as exc:
        return "quotation" in str(exc)
    return False


class SonicShell(LinuxShell):
    def banner(self) -> str:
        return "Debian GNU/Linux 12 (SONiC roceconf lab)\n"

    def is_read(self, line: str) -> bool:
        return line.replace("sudo ", "").startswith(("show", "sonic-cfggen", "redis-cli"))

    def command(self, cmd: str) -> str | None:
        dev = self.device
        words = cmd.split()
        if cmd.startswith("show runningconfiguration"):
            with dev.lock:
                data = copy.deepcopy(dev.data)
            if len(words) > 2 and words[2] != "all":
                return ""
            return json.dumps(data, indent=4, sort_keys=True)
        if cmd.startswith("show startupconfiguration") or cmd == "cat /etc/sonic/config_db.json":
            with dev.lock:
                return dev.startup.rstrip("\n")
        if cmd.startswith("show version"):
            return lab_bom.sonic_show_version(dev)
        if words[:2] == ["config", "load"]:
            files = [w for w in words[2:] if not w.startswith("-")]
            paths = files[0].split(",") if files else ["/etc/sonic/config_db.json"]
            patches = []
            with dev.lock:
                for path in paths:
                    text = dev.startup if path == "/etc/sonic/config_db.json" else dev.files.get(path)
                    if text is None:
                        return f"Error: Path '{path}' does not exist."
                    try:
                        patches.append(json.loads(text))
                    except json.JSONDecodeError as exc:
                        return f"Error: {path}: invalid JSON: {exc}"
                merged = copy.deepcopy(dev.data)
                for patch in patches:
                    refused = sonic_load_refusal(merged, patch) if isinstance(patch, dict) else "not a map"
                    if refused is not None:
                        self.rc = 1
                        return refused  # nothing is written to CONFIG_DB
                    deep_merge(merged, patch)
                dev.data = merged
            return f"Running command: /usr/local/bin/sonic-cfggen -j {','.join(paths)} --write-to-db"
        if words[:2] == ["config", "reload"]:
            files = [w for w in words[2:] if not w.startswith("-")]
            with dev.lock:
                text = dev.files.get(files[0]) if files else dev.startup
                if text is None:
                    return f"Error: Path '{files[0]}' does not exist."
                data = json.loads(text) if text.strip() else {}
                refused = sonic_load_refusal({}, data) if files and data else None
                if refused is not None:
                    self.rc = 1
                    return refused.replace("config_input", files[0])  # config_file_yang_validation
                dev.data = data
            return "Running command: rm -rf /tmp/dropstat-*\nRunning command: /usr/local/bin/sonic-cfggen --write-to-db"
        if words[:2] == ["config", "save"]:
            with dev.lock:
                dev.startup = json.dumps(dev.data, indent=4, sort_keys=True) + "\n"
            return "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json"
        if words[:3] == ["config", "qos", "reload"]:
            return "Running command: /usr/local/bin/sonic-cfggen -d -t /usr/share/sonic/device/qos_config.j2 --write-to-db"
        if words[:1] == ["config"]:
            return "Error: the lab does not imitate this config command"
        return None


class NvueShell(LinuxShell):
    def banner(self) -> str:
        return "Welcome to NVIDIA Cumulus Linux (roceconf lab)\n"

    def is_read(self, line: str) -> bool:
        line = line.replace("sudo ", "")
        return line.startswith(("nv show", "nv config show", "nv config diff"))

    def command(self, cmd: str) -> str | None:
        dev = self.device
        words = cmd.split()
        if words[:1] != ["nv"]:
            return None
        if words[1:4] == ["show", "system", "-o"] or words[1:3] == ["show", "system"] and len(words) == 3:
            return lab_bom.nvue_show_system(dev, self.host)
        if words[1:3] == ["config", "show"] or words[1:3] == ["config", "diff"]:
            rev = "applied"
            for i, w in enumerate(words):
                if w in ("-r", "--rev") and i + 1 < len(words):
                    rev = words[i + 1]
            with dev.lock:
                if words[2] == "diff":
                    text = (
                        yaml.safe_dump(_nv_diff(dev.data, dev.pending), sort_keys=False)
                        if dev.pending != dev.data
                        else ""
                    )
                    return text.rstrip("\n")
                data = copy.deepcopy(dev.pending if rev == "pending" else dev.data)
            if "json" in words:
                return json.dumps(data, indent=2)
            return yaml.safe_dump([{"set": data}], sort_keys=False).rstrip("\n")
        if words[1:3] == ["config", "patch"] and len(words) > 3:
            with dev.lock:
                text = dev.files.get(words[3])
                if text is None:
                    return f"Error: {words[3]}: No such file or directory"
                try:
                    patch = yaml.safe_load(text)
                except yaml.YAMLError as exc:
                    return f"Error: invalid patch: {exc}"
                refused = nvue_patch_refusal(patch, dev.os_version)
                if refused is not None:
                    return f"Error: Invalid config [rev_id: {dev.revision}]\n  {refused}"
                nv_patch(dev.pending, patch)
            return ""
        if words[1:3] == ["config", "apply"]:
            with dev.lock:
                for t in dev.timers:
                    t.cancel()
                dev.timers.clear()
                previous = copy.deepcopy(dev.data)
                dev.data = copy.deepcopy(dev.pending)
                dev.revision += 1
                if "--confirm" in words:
                    secs = _duration(words[words.index("--confirm") + 1]) if words[-1] != "--confirm" else 600
                    loop = dev.loop
                    if loop is not None:
                        dev.timers.append(loop.call_later(secs * dev.time_scale, _nv_revert, dev, previous))
                    return f"applied [rev_id: {dev.revision}] (confirm within {secs}s or it is rolled back)"
            return f"applied [rev_id: {dev.revision}]"
        if words[1:3] == ["config", "confirm"]:
            with dev.lock:
                for t in dev.timers:
                    t.cancel()
                dev.timers.clear()
            return "confirmed"
        if words[1:3] == ["config", "detach"]:
            with dev.lock:
                dev.pending = copy.deepcopy(dev.data)
            return ""
        if words[1:3] == ["config", "save"]:
            with dev.lock:
                dev.startup = yaml.safe_dump(dev.data, sort_keys=False)
            return "saved"
        if words[1] in ("set", "unset"):
            parsed = nv_command_patch(words)
            if parsed is None:
                return "Error: incomplete command"
            op, patch = parsed
            refused = nvue_refusal(patch, dev.os_version) if op == "set" else None
            if refused is not None:
                return f"Error: Invalid config [rev_id: {dev.revision}]\n  {refused}"
            with dev.lock:
                if op == "set":
                    deep_merge(dev.pending, patch)
                else:
                    deep_unset(dev.pending, patch)
            return ""
        if words[1] == "show":
            with dev.lock:
                data: Any = copy.deepcopy(dev.data)
            for key in [w for w in words[2:] if not w.startswith("-") and w not in ("json", "yaml")]:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            return (
                json.dumps(data, indent=2)
                if "json" in words
                else yaml.safe_dump(data, sort_keys=False).rstrip()
            )
        return "Error: the lab does not imitate this nv command"


def _duration(word: str) -> int:
    m = re.fullmatch(r"(\d+)([smh]?)", word)
    if not m:
        return 600
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def _nv_diff(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    def added(a: Any, b: Any) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            out = {}
            for k, v in b.items():
                if k not in a:
                    out[k] = v
                else:
                    sub = added(a[k], v)
                    if sub is not None:
                        out[k] = sub
            return out or None
        return None if a == b else b

    def removed(a: Any, b: Any) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            out = {}
            for k, v in a.items():
                if k not in b:
                    out[k] = {}
                elif isinstance(v, dict):
                    sub = removed(v, b[k])
                    if sub:
                        out[k] = sub
            return out or None
        return None

    result = []
    s, u = added(old, new), removed(old, new)
    if s:
        result.append({"set": s})
    if u:
        result.append({"unset": u})
    return result


def _nv_revert(dev: Device, previous: dict[str, Any]) -> None:
    with dev.lock:
        dev.data = previous
        dev.pending = copy.deepcopy(previous)
        dev.revision += 1
        dev.timers.clear()


class HostShell(LinuxShell):
    """A Linux host with RDMA NICs: read-back commands answered by the platform's ``simulate``."""

    command_first = True

    def banner(self) -> str:
        return "Ubuntu 22.04 LTS (roceconf lab host)\n"

    def is_read(self, line: str) -> bool:
        return not line.startswith(("cat >", "echo", "printf", "exit", "true", "stty", "export"))

    def builtin(self, cmd: str) -> str | None:
        # NIC read-backs (`cat /sys/...`, `ls /sys/class/net/X/device/infiniband`) come from the host's
        # simulated NIC state first; uploaded files are served by the plain shell after that.
        words = cmd.split()
        if words and words[0] in ("cat", "ls") and "<<" not in cmd and ">" not in cmd:
            out = self.command(cmd)
            if out is not None:
                return out
        return super().builtin(cmd)

    def command(self, cmd: str) -> str | None:
        from roceconf.platforms import get

        try:
            plat = get(self.device.platform)
        except ImportError:
            return None
        m = re.fullmatch(r"(?:bash|sh)\s+(?:-\S+\s+)*(\S+)", cmd)
        if m:
            return self._run_script(plat, m.group(1))
        with self.device.lock:
            bom_out = lab_bom.host_answer(self.device, cmd)
        if bom_out is not None:
            return bom_out
        simulate = plat.simulate
        out = None
        if simulate is not None:
            with self.device.lock:
                state = self.device.host_state
                assert state is not None
                out = simulate(state, cmd)
        if out is None:
            try:
                argv = shlex.split(cmd)
            except ValueError:
                argv = cmd.split()
            refused = host_command_refusal(argv)
            if refused is not None:  # the tool's own parse error, before it touches the NIC
                self.rc = refused[1]
                return refused[0]
        return out

    def _run_script(self, plat: Any, path: str) -> str:
        """``bash FILE``: the lab does not execute the script; it parses it with the platform's parser
        and merges the settings it states into the host's state (what running it would leave behind)."""
        with self.device.lock:
            text = self.device.files.get(path)
        if text is None:
            self.rc = 127
            return f"bash: {path}: No such file or directory"
        out = ""
        refused = host_script_refusal(text)
        if refused is not None:
            # the command fails with the tool's message and status; under `set -e` bash stops there and
            # the script exits with that status, leaving what the lines before it set
            n, _cmd, message, code = refused
            if not re.search(r"^\s*set\s+-[a-z]*e", text, re.M):
                lines = text.splitlines()
                text = "\n".join(lines[: n - 1] + lines[n:]) + "\n"  # without -e bash goes on
            else:
                text = "\n".join(text.splitlines()[: n - 1]) + "\n"
                self.rc = code
            out = message
        stated = plat.parse(text).model_dump(
            mode="json", exclude_none=True, exclude={"warnings", "sources", "defaults"}
        )
        stated.pop("platform", None)
        stated.pop("hostname", None)
        with self.device.lock:
            state = self.device.host_state
            assert state is not None
            merged = deep_merge(state.model_dump(mode="json"), stated)
            self.device.host_state = type(state).model_validate(merged)
        return out


SHELLS: dict[str, type[Shell]] = {
    "nxos": NxosShell,
    "junos": JunosShell,
    "sonic": SonicShell,
    "nvue": NvueShell,
    "connectx": HostShell,
    "bnxt": HostShell,
    "linux-dcb": HostShell,
}
