"""The loopback lab's Linux shells: SONiC, NVUE and the host NICs (mlnx_qos, dcb, sysfs)."""

from __future__ import annotations

import base64
import copy
import json
import re
import shlex
from typing import Any

import yaml

import roceconf.lab.bom as lab_bom
from roceconf.lab.device import Device, deep_merge, deep_unset, nv_command_patch, nv_patch
from roceconf.lab.refuse import (
    host_command_refusal,
    host_script_refusal,
    nvue_patch_refusal,
    nvue_refusal,
    sonic_load_refusal,
)
from roceconf.lab.shellbase import Shell, junk


# ---------------------------------------------------------------------------- Linux shells
class LinuxShell(Shell):
    """A small bash: prompt, sudo, file upload (heredoc / echo / printf / base64), cat, rm."""

    #: Ask the platform (``command``) before the shell built-ins (hosts: the state answers first).
    command_first = False
    answers_lists = True

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
