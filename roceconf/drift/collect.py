"""Read actual device state: live (napalm, netmiko over SSH) or from a directory of saved configs.

Connection data comes from the user's Ansible inventory (``roceconf.inventory``: parsed and templated by
ansible-core itself, so group_vars, host_vars, lookups and Ansible Vault work as in a playbook); how a target
is reached (SSH keys, agent, jump host, eAPI over verified HTTPS) is ``roceconf.transport``. Credentials
never come from the intent. Secrets are kept out of every message this module produces.
"""

from __future__ import annotations

import base64
import logging
import os
import shlex
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roceconf import limits, platforms
from roceconf.counters.hostnic import END_MARK
from roceconf.inputfile import InputFileError, read_text
from roceconf.inventory import load_inventory
from roceconf.platforms.base import BUNDLE_MARK, split_outputs
from roceconf.sessionlog import add_secret, timed
from roceconf.state import DeviceState
from roceconf.transport import (
    NO_CREDENTIALS,
    CollectError,
    Target,
    napalm_optional_args,
    netmiko_params,
    tls_failure,
)

log = logging.getLogger("roceconf.collect")

# The client libraries log their own errors (pyeapi with a traceback) and, with no handler configured,
# Python's last-resort handler would print them on stderr next to roceconf's one-line reason. A NullHandler
# keeps them quiet; with -v / --debug they still reach the handlers roceconf installs.
for _name in ("pyeapi", "napalm", "netmiko", "paramiko"):
    logging.getLogger(_name).addHandler(logging.NullHandler())

#: host read-back commands sent per SSH round trip (as one bash command list)
CHUNK = 24

__all__ = ["CollectError", "Target", "load_inventory", "read_backup", "read_live", "read_state", "read_with_retries"]


# --------------------------------------------------------------------------------------------- live read
def read_live(target: Target, desired: DeviceState, timeout: float) -> str:
    """The text the platform parser reads, fetched from a live device."""
    plat = platforms.get(target.platform)
    _require_credentials(target)
    _probe(target, timeout)
    try:
        if plat.kind == "nic":
            return _netmiko_many(target, "linux", plat.commands_for(desired), timeout)
        driver = plat.napalm_driver
        if driver and (driver != "junos" or target.transport == "netconf"):
            return _napalm_running(target, driver, timeout)
        if plat.netmiko_device_type is None:
            raise CollectError(f"platform {plat.name} has no collector", retry=False)
        return _netmiko_many(
            target, plat.netmiko_device_type, list(plat.collect_commands), timeout, bundle=False
        )
    except CollectError:
        raise
    except Exception as e:  # napalm/netmiko raise many types; report them all as unknown with the reason
        raise CollectError(_reason(target, e), retry=_retryable(e)) from None


def _require_credentials(target: Target) -> None:
    add_secret(target.password)  # never in a log line, nor as HTTP basic auth
    if target.username and target.password:
        add_secret(base64.b64encode(f"{target.username}:{target.password}".encode()).decode())
    if not target.has_credentials():
        raise CollectError(NO_CREDENTIALS, retry=False)


def read_commands(
    target: Target,
    commands: list[str],
    timeout: float,
    transport: str = "cli",
    timing: dict[str, float] | None = None,
) -> dict[str, str]:
    """Outputs of read-only commands on a live device: ``{command: output}``.

    ``transport``: ``eapi-json`` (EOS eAPI through napalm, each result as JSON text), ``shell`` (a host: the
    commands are sent as bash lists, like the NIC read-back), ``cli`` (the platform's netmiko CLI session).
    Same credentials, probe, timeouts and error reasons as the config read-back. ``timing`` receives the
    wall-clock ``start`` / ``end`` of the commands themselves (after login) and, where commands are sent one
    at a time, the time each command was answered (key: the command), for rates over time."""
    timing = timing if timing is not None else {}
    plat = platforms.get(target.platform)
    _require_credentials(target)
    _probe(target, timeout)
    try:
        if transport == "eapi-json":
            return _napalm_cli_json(target, commands, timeout, timing)
        if transport == "shell":
            text = _netmiko_many(target, "linux", commands, timeout, timing=timing, end_mark=END_MARK)
            return {cmd: out for cmd, _line, out in split_outputs(text)}
        if plat.netmiko_device_type is None:
            raise CollectError(f"platform {plat.name} has no CLI collector", retry=False)
        return _netmiko_outputs(target, plat.netmiko_device_type, commands, timeout, timing)
    except CollectError:
        raise
    except Exception as e:  # napalm/netmiko raise many types; report them all as unknown with the reason
        raise CollectError(_reason(target, e), retry=_retryable(e)) from None


def _napalm_cli_json(
    target: Target, commands: list[str], timeout: float, timing: dict[str, float]
) -> dict[str, str]:
    import json

    from napalm import get_network_driver

    optional = napalm_optional_args(target, "eos", timeout)
    dev = get_network_driver("eos")(
        target.host,
        target.username,
        target.password or "",
        timeout=int(max(1, timeout)),
        optional_args=optional,
    )
    dev.open()
    try:
        timing["start"] = time.time()
        results: dict[str, Any] = {}
        for cmd in commands:  # one at a time, each with the time it was answered
            t = time.time()
            results.update(dev.cli([cmd], encoding="json"))
            timing[cmd] = (t + time.time()) / 2
        timing["end"] = time.time()
    finally:
        try:
            dev.close()
        except Exception:  # noqa: BLE001 - closing a broken session must not mask the result
            pass
    return {cmd: json.dumps(results.get(cmd)) for cmd in commands}


def _probe(target: Target, timeout: float) -> None:
    """Fail fast and clearly when nothing listens (connection refused / unreachable)."""
    if target.proxy_jump or target.extra.get("proxy_command") or target.extra.get("ssh_config_routes"):
        return  # reached through a jump host (or where the ssh config says): only that route can tell
    port = target.port or {"https": 443, "http": 80, "netconf": 830}.get(target.transport or "", 22)
    try:
        with socket.create_connection((target.host, port), timeout=timeout):
            pass
    except ConnectionRefusedError:
        raise CollectError(f"connection refused by {target.host}:{port}") from None
    except TimeoutError:
        raise CollectError(f"no answer from {target.host}:{port} within {timeout:g} s") from None
    except OSError as e:
        raise CollectError(f"cannot reach {target.host}:{port}: {e.strerror or e}") from None


def _reason(target: Target, e: BaseException) -> str:
    name = type(e).__name__
    text = " ".join(str(e).split())[:300]
    tls = tls_failure(target, text)
    if tls:
        return target.scrub(tls)
    low = (name + " " + text).lower()
    if "auth" in low or "permission denied" in low or "401" in low:
        return target.scrub(f"authentication failed ({name})")
    if "timeout" in low or "timed out" in low:
        return target.scrub(f"timed out ({name}: {text})")
    return target.scrub(f"{name}: {text}" if text else name)


def _retryable(e: BaseException) -> bool:
    low = (type(e).__name__ + str(e)).lower()
    return not ("auth" in low or "permission denied" in low or "401" in low or "certificate" in low)


def napalm_call(target: Target, driver: str, timeout: float, call: Callable[[Any], Any]) -> Any:
    """Open a napalm session to the target, run ``call(device)``, close it (closing errors are ignored)."""
    from napalm import get_network_driver

    optional = napalm_optional_args(target, driver, timeout)
    dev = get_network_driver(driver)(
        target.host,
        target.username,
        target.password or "",
        timeout=int(max(1, timeout)),
        optional_args=optional,
    )
    with timed(target.name, f"napalm {driver} open {target.host}:{target.port or 'default port'}", log):
        dev.open()
    try:
        return call(dev)
    finally:
        try:
            dev.close()
        except Exception:  # noqa: BLE001 - closing a broken session must not mask the result
            pass


def _napalm_running(target: Target, driver: str, timeout: float) -> str:
    def running(dev: Any) -> Any:
        with timed(target.name, "napalm get_config(retrieve='running')", log):
            return dev.get_config(retrieve="running")

    cfg = napalm_call(target, driver, timeout, running)
    text = cfg.get("running") or ""
    if not text.strip():
        raise CollectError("device returned an empty running configuration")
    return text


def netmiko_connect(target: Target, device_type: str, timeout: float) -> Any:
    """An SSH CLI session (netmiko): every timeout bounded; password, key file, agent, jump host."""
    from netmiko import ConnectHandler

    return ConnectHandler(**netmiko_params(target, device_type, timeout))


def close_quietly(conn: Any) -> None:
    """Close a session; closing a broken session must not mask the result."""
    try:
        conn.disconnect()
    except Exception:  # noqa: BLE001
        pass


def _netmiko_many(
    target: Target,
    device_type: str,
    commands: list[str],
    timeout: float,
    bundle: bool = True,
    timing: dict[str, float] | None = None,
    end_mark: str | None = None,
) -> str:
    with timed(target.name, f"netmiko {device_type} connect {target.host}:{target.port or 22}", log):
        conn = netmiko_connect(target, device_type, timeout)
    timing = timing if timing is not None else {}
    try:
        timing["start"] = time.time()
        if bundle:
            # hosts: many small reads; send them as bash command lists that print the bundle markers
            # themselves, CHUNK commands per round trip instead of one
            parts = []
            for i in range(0, len(commands), CHUNK):
                # end_mark: printed after each output, so an answer cut short (even inside its last
                # number) is told from a whole one (roceconf.counters.hostnic.complete)
                end = f" echo {shlex.quote(end_mark)};" if end_mark else ""
                line = " ".join(
                    f"echo {shlex.quote(BUNDLE_MARK + c)}; {c} 2>&1;{end}" for c in commands[i : i + CHUNK]
                )
                with timed(target.name, "send " + "; ".join(commands[i : i + CHUNK]), log):
                    parts.append(conn.send_command(line, read_timeout=timeout))
            timing["end"] = time.time()
            return "\n".join(p.strip("\n") for p in parts) + "\n"
        outputs = {}
        for cmd in commands:
            with timed(target.name, f"send {cmd!r}", log):
                outputs[cmd] = conn.send_command(cmd, read_timeout=timeout)
    finally:
        close_quietly(conn)
    return "\n".join(outputs.values())


def _netmiko_outputs(
    target: Target, device_type: str, commands: list[str], timeout: float, timing: dict[str, float]
) -> dict[str, str]:
    conn = netmiko_connect(target, device_type, timeout)
    try:
        timing["start"] = time.time()
        out = {}
        for cmd in commands:  # each with the time it was answered
            t = time.time()
            out[cmd] = conn.send_command(cmd, read_timeout=timeout)
            timing[cmd] = (t + time.time()) / 2
        timing["end"] = time.time()
        return out
    finally:
        close_quietly(conn)


def read_with_retries(
    target: Target,
    desired: DeviceState | None,
    timeout: float,
    retries: int = 2,
    backoff: float = 0.5,
    reader: Callable[[], Any] | None = None,
) -> tuple[Any, int]:
    """Read a device, retrying connection problems with exponential backoff. Returns (text, attempts).
    ``reader`` replaces the config read-back (e.g. counters: ``lambda: read_commands(...)``)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            if reader is not None:
                return reader(), attempt
            assert desired is not None
            return read_live(target, desired, timeout), attempt
        except CollectError as e:
            log.info("%s: attempt %d failed: %s", target.name, attempt, e)
            if not e.retry or attempt > retries:
                raise CollectError(
                    f"{e} (after {attempt} attempt{'s' if attempt > 1 else ''})", retry=False
                ) from None
            time.sleep(backoff * (2 ** (attempt - 1)))


# --------------------------------------------------------------------------------------------- offline
def read_backup(
    directory: str | Path, device: str, platform: str, root: Path | None = None
) -> tuple[str, Path]:
    """A saved running config named the way `roceconf render` names its output: DIR/<device>.<ext>
    (``root``: DIR resolved, when the caller reads many)."""
    from roceconf.outdir import contained

    ext = platforms.get(platform).extension
    try:
        p = contained(directory, f"{device}.{ext}", root)
    except OSError as e:
        raise CollectError(e.strerror or str(e), retry=False) from None
    if not os.path.lexists(p):
        raise CollectError(f"no saved config {p.name} in {directory}", retry=False)
    try:
        # only a regular file, size-capped: a FIFO or a device planted under the name is refused unread
        text = read_text(p, limits.MAX_CONFIG_BYTES, errors="replace", encoding="utf-8")
    except InputFileError as e:
        said = str(e) if e.code == "RC019" else f"no saved config {p.name} in {directory}: {e.reason}"
        raise CollectError(said, retry=False) from None
    if "\r" in text:  # what text mode reads (universal newlines)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, p


# --------------------------------------------------------------------------------------------- state
def read_state(
    target: Target, desired: DeviceState | None = None, timeout: float = 10.0, retries: int = 2
) -> tuple[DeviceState, str, int]:
    """Read one live device and parse it: (actual state, the text read, attempts). For a host, ``desired``
    names the NIC ports to read back (from the intent). Raises CollectError when nothing could be read."""
    if target.problem:
        raise CollectError(target.problem, retry=False)
    plat = platforms.get(target.platform)
    if desired is None:
        if plat.kind == "nic":
            raise CollectError(f"{target.name} is a {plat.name} host: give the intent that names its NICs")
        desired = DeviceState(platform=plat.name, hostname=target.name)
    text, attempts = read_with_retries(target, desired, timeout, retries)
    return plat.parse(text), text, attempts
