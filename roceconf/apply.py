"""Push a rendered config to one device: compare first, commit only a real difference, verify, roll back.

One function, :func:`apply_config`, used by the ``roceconf_apply`` Ansible module. The way a config is pushed
is named by the platform module (``Platform.apply_method``):

``napalm`` (EOS over eAPI, NX-OS over SSH with ``nxos_ssh``)
    ``load_merge_candidate`` -> ``compare_config`` -> ``commit_config``; then, from a new session, the same
    candidate is loaded again and must compare empty, otherwise napalm ``rollback()`` restores the
    configuration saved by the commit. napalm's EOS ``commit_config(revert_in=...)`` needs ``configure
    session ... commit timer``; NX-OS has no commit-confirm in napalm, so both use verify-or-rollback.
``junos-cli`` (Junos CLI over SSH, netmiko ``juniper_junos``)
    ``configure``, the ``set``/``delete`` lines, ``show | compare``; ``rollback 0`` when there is no
    difference, in check mode or on an error; otherwise ``commit confirmed N`` (minutes), then ``commit``
    from a new session (a switch that became unreachable is not confirmed and rolls back by itself).
``nvue-patch`` (Cumulus Linux NVUE over SSH)
    upload the YAML patch, ``nv config detach``, ``nv config patch F``, ``nv config diff``; ``nv config
    detach`` when empty, in check mode or on an error; otherwise ``nv config apply --confirm Ns -y``, then
    ``nv config apply -y`` from a new session to confirm (otherwise NVUE rolls back after N seconds).
``sonic-config-load`` (community SONiC, bash over SSH)
    the diff is computed here: the running CONFIG_DB (``show runningconfiguration all``) before and after a
    merge of the fragment; then upload, ``sudo config load F -y``, verify that every field of the fragment
    is in the running CONFIG_DB, and only then ``sudo config save -y``. SONiC has no commit-confirm: when
    the verification fails nothing is saved and the message says how to restore the saved config.
    ``config qos reload`` is deliberately not run: it regenerates the QoS tables from the platform's
    templates and would overwrite the tables just loaded.
``script`` (host NIC)
    the playbook runs the script with ``ansible.builtin.script``; this function only compares the host's
    read-back with the state the script sets (check mode) and, outside check mode, uploads the script and
    runs it with ``sudo bash`` over SSH, then reads back again.

Secrets never appear in a result or an exception message (``Target.scrub``).
"""

from __future__ import annotations

import base64
import copy
import difflib
import json
import math
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roceconf import platforms
from roceconf.drift.collect import Target, close_quietly, netmiko_connect
from roceconf.jsontext import fields_of
from roceconf.platforms.base import Platform
from roceconf.state import DeviceState
from roceconf.transport import NO_CREDENTIALS, napalm_optional_args

METHODS = ("napalm", "junos-cli", "nvue-patch", "sonic-config-load", "script")


class ApplyError(Exception):
    """The config could not be pushed (or verified); the message is safe to show."""


@dataclass
class ApplyResult:
    changed: bool
    diff: str = ""
    committed: bool = False
    messages: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**fields_of(self), "messages": list(self.messages)}


def apply_method(plat: Platform) -> str:
    """How a platform's rendered config is pushed (``Platform.apply_method`` or the fallback)."""
    if plat.apply_method in METHODS:
        return plat.apply_method
    raise ApplyError(f"platform {plat.name} has no apply method (Platform.apply_method)")


def apply_config(
    target: Target,
    platform: Platform | str,
    text: str,
    *,
    check: bool,
    timeout: float = 30.0,
    confirm_seconds: int | None = 120,
) -> ApplyResult:
    """Push ``text`` (a rendered config) to ``target``. ``check``: compare and discard, change nothing.
    ``confirm_seconds``: commit-confirm window where the platform has one (None: plain commit)."""
    plat = platforms.get(platform) if isinstance(platform, str) else platform
    if target.platform != plat.name:
        raise ApplyError(f"{target.name}: inventory says platform {target.platform}, config is {plat.name}")
    if not target.has_credentials():
        raise ApplyError(f"{target.name}: {NO_CREDENTIALS}")
    if not text.strip():
        raise ApplyError(f"{target.name}: the rendered config is empty")
    method = apply_method(plat)
    fn = _METHODS[method]
    try:
        return fn(target, plat, text, check, timeout, confirm_seconds)
    except ApplyError as e:
        raise ApplyError(target.scrub(str(e))) from None
    except Exception as e:  # napalm / netmiko raise many types; report them without secrets
        msg = " ".join(str(e).split())[:500]
        raise ApplyError(target.scrub(f"{target.name}: {type(e).__name__}: {msg}")) from None


# ------------------------------------------------------------------------------------------- napalm
def _napalm(
    target: Target, plat: Platform, text: str, check: bool, timeout: float, confirm: int | None
) -> ApplyResult:
    from napalm import get_network_driver

    driver = plat.napalm_driver
    assert driver is not None
    config = _strip_comments(text, plat)

    def session() -> Any:
        dev = get_network_driver(driver)(
            target.host,
            target.username,
            target.password or "",
            timeout=int(max(1, timeout)),
            optional_args=napalm_optional_args(target, driver, timeout),
        )
        dev.open()
        return dev

    def close(dev: Any) -> None:
        try:
            dev.close()
        except Exception:  # noqa: BLE001 - closing must not mask the result
            pass

    res = ApplyResult(changed=False)
    dev = session()
    try:
        if plat.negate_stale is not None:
            config = _with_negations(dev, plat.parse, plat.negate_stale, config, target.name)
        dev.load_merge_candidate(config=config)
        diff = dev.compare_config().strip()
        if not diff or check:
            dev.discard_config()
            if diff:
                res.changed, res.diff = True, diff + "\n"
                res.messages.append("check mode: candidate compared and discarded")
            else:
                res.messages.append("no difference: nothing to commit")
            return res
        res.changed, res.diff = True, diff + "\n"
        dev.commit_config()
        res.committed = True
        res.messages.append("committed (napalm commit_config)")
    finally:
        close(dev)
    # verify from a NEW session: the device answers, the same merge is now a no-op and the lines the config
    # negates are gone; otherwise restore the configuration napalm saved before the commit. A merge diff
    # always lists 'no ...' lines (nothing in a running config matches them), so they are checked apart.
    positive, negated = _split_negations(config)
    dev = session()
    try:
        dev.load_merge_candidate(config=positive)
        left = dev.compare_config().strip()
        dev.discard_config()
        if not left and negated:
            running = dev.get_config(retrieve="running").get("running", "")
            left = "\n".join(f"{head}: {body}" for head, body in negated if _in_block(running, head, body))
        if left:
            dev.rollback()
            raise ApplyError(
                f"{target.name}: after the commit the device still differs from the config "
                f"({_first_lines(left)}); rolled back to the configuration before the commit"
            )
        res.messages.append("verified from a new session: a second compare shows no difference")
        return res
    finally:
        close(dev)


def _with_negations(
    dev: Any,
    parse: Callable[[str], DeviceState],
    negate: Callable[[str, list[int], str], str],
    config: str,
    name: str,
) -> str:
    """A merge keeps what the running config has beyond ``config`` (an interface-level
    ``priority-flow-control priority 3 drop``): prepend the platform's ``no`` commands for the running lines
    behind every value that differs from what ``config`` states."""
    from roceconf.drift.compare import Policy, compare

    running = dev.get_config(retrieve="running").get("running", "")
    actual = parse(running)
    items = compare(parse(config), actual, Policy(), name)
    lines = sorted({n for it in items for n in actual.lines_of(it.field)})
    return negate(running, lines, config) + config


def _split_negations(config: str) -> tuple[str, list[tuple[str, str]]]:
    """(the config without its 'no X' lines, [(top-level header, X)] for each of them)."""
    keep: list[str] = []
    negated: list[tuple[str, str]] = []
    head = ""
    for line in config.splitlines():
        body = line.strip()
        if line[:1] not in (" ", "\t"):
            head = body
        if line[:1] in (" ", "\t") and body.startswith("no ") and head:
            negated.append((head, body[3:]))
            continue
        keep.append(line)
    return "\n".join(keep) + "\n", negated


def _in_block(running: str, head: str, body: str) -> bool:
    """Is ``body`` a line (at any depth) of the top-level block ``head`` of a running config?"""
    inside = False
    for line in running.splitlines():
        if line[:1] not in (" ", "\t") and line.strip():
            inside = line.strip() == head
        elif inside and line.strip() == body:
            return True
    return False


def _strip_comments(text: str, plat: Platform) -> str:
    """Comment lines of the rendered file are documentation, not configuration."""
    marks = ("!",) if plat.name == "eos" else ("!", "#")
    out = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(marks)]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------- SSH helpers
def _first_lines(text: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    more = f" ... (+{len(lines) - n} lines)" if len(lines) > n else ""
    return "; ".join(lines[:n]) + more


_ERROR_WORDS = ("error", "invalid", "not found", "no such file", "syntax error", "unknown command")


def _check_output(target: Target, cmd: str, out: str) -> str:
    low = out.lower()
    if any(w in low for w in _ERROR_WORDS):
        raise ApplyError(f"{target.name}: '{cmd}' failed: {_first_lines(out)}")
    return out


def _upload(conn: Any, target: Target, path: str, text: str, timeout: float) -> None:
    """Write ``text`` to ``path`` on a Linux shell: base64 in lines of 1000 characters (under the 4 KiB
    canonical-mode line limit of a PTY), each decoded and appended."""
    data = base64.b64encode(text.encode()).decode()
    chunks = [data[i : i + 1000] for i in range(0, len(data), 1000)] or [""]
    for n, chunk in enumerate(chunks):
        op = ">" if n == 0 else ">>"
        cmd = f"echo {chunk} | base64 -d {op} {shlex.quote(path)}"
        _check_output(target, "upload", conn.send_command(cmd, read_timeout=timeout))


def _confirm_session(target: Target, device_type: str, timeout: float, step: str, fallback: str) -> Any:
    """A NEW session to confirm a timed commit: proves the device is still reachable after the change.
    If it is not, the change is left unconfirmed, and the device rolls it back by itself."""
    try:
        return netmiko_connect(target, device_type, timeout)
    except Exception as e:  # noqa: BLE001
        raise ApplyError(
            f"{target.name}: not reachable after '{step}' ({type(e).__name__}); not confirmed: {fallback}"
        ) from None


# ------------------------------------------------------------------------------------------- Junos
def _junos(
    target: Target, plat: Platform, text: str, check: bool, timeout: float, confirm: int | None
) -> ApplyResult:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("set ", "delete "))]
    if not lines:
        raise ApplyError(f"{target.name}: the rendered config has no set/delete lines")
    device_type = plat.netmiko_device_type or "juniper_junos"
    res = ApplyResult(changed=False)
    minutes = max(1, math.ceil(confirm / 60)) if confirm else 0
    conn = netmiko_connect(target, device_type, timeout)
    try:

        def cfg(cmd: str, wait: float = timeout) -> str:
            return conn.send_command(cmd, expect_string=r"#", read_timeout=wait)

        conn.config_mode()
        try:
            for ln in lines:
                _check_output(target, ln, cfg(ln))
            diff = cfg("show | compare").strip()
            if not diff or check:
                cfg("rollback 0")
                conn.exit_config_mode()
                if diff:
                    res.changed, res.diff = True, diff + "\n"
                    res.messages.append("check mode: candidate compared and rolled back (rollback 0)")
                else:
                    res.messages.append("no difference: nothing to commit")
                return res
            res.changed, res.diff = True, diff + "\n"
            out = cfg(f"commit confirmed {minutes}" if minutes else "commit", max(timeout, 120))
            _check_output(target, "commit", out)
            if "commit complete" not in out:
                raise ApplyError(f"{target.name}: commit failed: {_first_lines(out)}")
        except Exception:
            if not res.committed:  # leave no half-loaded candidate behind
                try:
                    cfg("rollback 0")
                    conn.exit_config_mode()
                except Exception:  # noqa: BLE001 - the original error matters more
                    pass
            raise
        res.committed = True
        if not minutes:
            res.messages.append("commit")
            conn.exit_config_mode()
            return res
        res.messages.append(f"commit confirmed {minutes} (rolled back unless confirmed)")
        conn.exit_config_mode()
    finally:
        close_quietly(conn)
    conn = _confirm_session(
        target,
        device_type,
        timeout,
        "commit confirmed",
        f"Junos rolls the change back within {minutes} minute(s)",
    )
    try:
        conn.config_mode()
        out = conn.send_command("commit", expect_string=r"#", read_timeout=max(timeout, 120))
        _check_output(target, "commit", out)
        if "commit complete" not in out:
            raise ApplyError(f"{target.name}: confirming commit failed: {_first_lines(out)}")
        conn.exit_config_mode()
        res.messages.append("commit (confirmed from a new session)")
        return res
    finally:
        close_quietly(conn)


# ------------------------------------------------------------------------------------------- NVUE
def _nvue(
    target: Target, plat: Platform, text: str, check: bool, timeout: float, confirm: int | None
) -> ApplyResult:
    path = f"/tmp/roceconf-{target.name}.yaml"
    device_type = plat.netmiko_device_type or "linux"
    res = ApplyResult(changed=False)
    conn = netmiko_connect(target, device_type, timeout)
    try:

        def run(cmd: str) -> str:
            return _check_output(target, cmd, conn.send_command(cmd, read_timeout=timeout))

        _upload(conn, target, path, text, timeout)
        try:
            run("nv config detach")
            run(f"nv config patch {path}")
            diff = conn.send_command("nv config diff", read_timeout=timeout).strip()
            if not diff or check:
                run("nv config detach")
                if diff:
                    res.changed, res.diff = True, diff + "\n"
                    res.messages.append("check mode: patch compared and detached")
                else:
                    res.messages.append("no difference: nothing to apply")
                return res
            res.changed, res.diff = True, diff + "\n"
            run(f"nv config apply --confirm {int(confirm)}s -y" if confirm else "nv config apply -y")
            res.committed = True
        except Exception:
            if not res.committed:  # leave no pending revision behind
                try:
                    conn.send_command("nv config detach", read_timeout=timeout)
                except Exception:  # noqa: BLE001
                    pass
            raise
        finally:
            try:
                conn.send_command(f"rm -f {path}", read_timeout=timeout)
            except Exception:  # noqa: BLE001
                pass
        if not confirm:
            res.messages.append("nv config apply")
            return res
        res.messages.append(f"nv config apply --confirm {int(confirm)}s (rolled back unless confirmed)")
    finally:
        close_quietly(conn)
    conn = _confirm_session(
        target,
        device_type,
        timeout,
        "nv config apply --confirm",
        f"NVUE rolls the change back within {int(confirm)} s",
    )
    try:
        out = conn.send_command("nv config apply -y", read_timeout=timeout)
        _check_output(target, "nv config apply", out)
        res.messages.append("nv config apply (confirmed from a new session)")
        return res
    finally:
        close_quietly(conn)


# ------------------------------------------------------------------------------------------- SONiC
def _merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """CONFIG_DB merge as ``config load`` does it: table/key/field, fields replaced."""
    out = copy.deepcopy(base)
    for table, keys in patch.items():
        if not isinstance(keys, dict):
            out[table] = copy.deepcopy(keys)
            continue
        tbl = out.setdefault(table, {})
        for key, fields in keys.items():
            if isinstance(fields, dict) and isinstance(tbl.get(key), dict):
                tbl[key].update(copy.deepcopy(fields))
            else:
                tbl[key] = copy.deepcopy(fields)
    return out


def _json_lines(data: dict[str, Any]) -> list[str]:
    return json.dumps(data, indent=4, sort_keys=True).splitlines()


def _sonic(
    target: Target, plat: Platform, text: str, check: bool, timeout: float, confirm: int | None
) -> ApplyResult:
    try:
        fragment = json.loads(text)
    except ValueError as e:
        raise ApplyError(f"{target.name}: the rendered SONiC config is not JSON: {e}") from None
    if not isinstance(fragment, dict):
        raise ApplyError(f"{target.name}: the rendered SONiC config is not a CONFIG_DB object")
    path = f"/tmp/roceconf-{target.name}.json"
    conn = netmiko_connect(target, plat.netmiko_device_type or "linux", timeout)
    res = ApplyResult(changed=False)

    def running() -> dict[str, Any]:
        out = conn.send_command("show runningconfiguration all", read_timeout=timeout)
        start = out.find("{")
        try:
            data = json.loads(out[start:]) if start >= 0 else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ApplyError(f"{target.name}: cannot read the running CONFIG_DB: {_first_lines(out)}")
        return data

    try:
        before = running()
        after = _merge(before, fragment)
        if after == before:
            res.messages.append("no difference: nothing to load")
            return res
        res.changed = True
        res.diff = (
            "\n".join(
                difflib.unified_diff(
                    _json_lines(before),
                    _json_lines(after),
                    "running CONFIG_DB",
                    "after config load",
                    lineterm="",
                )
            )
            + "\n"
        )
        if check:
            res.messages.append("check mode: merge computed, nothing loaded")
            return res
        _upload(conn, target, path, text, timeout)
        out = conn.send_command(f"sudo config load {path} -y", read_timeout=max(timeout, 120))
        _check_output(target, "config load", out)
        res.committed = True
        res.messages.append(f"sudo config load {path} -y")
        now = running()
        if _merge(now, fragment) != now:
            raise ApplyError(
                f"{target.name}: after config load the running CONFIG_DB does not hold the fragment; "
                "nothing was saved: 'sudo config reload -y' restores the saved configuration (disruptive)"
            )
        res.messages.append("verified: every field of the fragment is in the running CONFIG_DB")
        _check_output(target, "config save", conn.send_command("sudo config save -y", read_timeout=timeout))
        res.messages.append("sudo config save -y")
        conn.send_command(f"rm -f {path}", read_timeout=timeout)
        return res
    finally:
        close_quietly(conn)


# ------------------------------------------------------------------------------------------- host NIC
def _script(
    target: Target, plat: Platform, text: str, check: bool, timeout: float, confirm: int | None
) -> ApplyResult:
    from roceconf.drift.collect import read_live
    from roceconf.drift.compare import Policy, compare

    desired = plat.parse(text)
    desired.warnings.clear()

    def drift() -> list[str]:
        actual = plat.parse(read_live(target, desired, timeout))
        items = compare(desired, actual, Policy(is_host=True), target.name, None)
        return [
            f"{i.field}: {i.actual!r} -> {i.expected!r}"
            for i in items
            if i.severity in ("critical", "warning")
        ]

    res = ApplyResult(changed=False)
    before = drift()
    if not before:
        res.messages.append("no difference: the host already reads back the script's settings")
        return res
    res.changed, res.diff = True, "\n".join(before) + "\n"
    if check:
        res.messages.append("check mode: read-back compared, script not run")
        return res
    path = f"/tmp/roceconf-{target.name}.sh"
    conn = netmiko_connect(target, "linux", timeout)
    try:
        _upload(conn, target, path, text, timeout)
        out = conn.send_command(f"sudo bash {path}; echo roceconf-rc=$?", read_timeout=max(timeout, 120))
        if "roceconf-rc=0" not in out:
            raise ApplyError(f"{target.name}: the NIC script failed: {_first_lines(out, 5)}")
        res.committed = True
        res.messages.append(f"sudo bash {path}")
    finally:
        close_quietly(conn)
    time.sleep(0.5)
    left = drift()
    if left:
        raise ApplyError(f"{target.name}: after the script the host still differs: {'; '.join(left[:3])}")
    return res


_METHODS = {
    "napalm": _napalm,
    "junos-cli": _junos,
    "nvue-patch": _nvue,
    "sonic-config-load": _sonic,
    "script": _script,
}

__all__ = ["METHODS", "ApplyError", "ApplyResult", "apply_config", "apply_method"]
