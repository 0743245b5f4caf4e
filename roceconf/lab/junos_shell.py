"""The loopback lab's Junos shell (load set, commit confirmed, rollback)."""

from __future__ import annotations

import re

import roceconf.lab.bom as lab_bom
from roceconf.lab.device import Device, junos_curly_to_set, junos_lines
from roceconf.lab.refuse import junos_load_errors, junos_refusal
from roceconf.lab.shellbase import Shell, apply_pipes, split_pipes


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
