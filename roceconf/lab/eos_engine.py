"""The loopback lab's EOS engine (eAPI JSON-RPC and CLI, sessions and rollback)."""

from __future__ import annotations

import difflib
import json
import random
import time
from typing import Any

import roceconf.lab.tree as tree
from roceconf.lab.device import Device
from roceconf.lab.refuse import eos_refusal
from roceconf.lab.shellbase import BOOT_TIME, apply_pipes, junk, split_pipes

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
