"""Read actual device state: live (napalm, netmiko over SSH) or from a directory of saved configs.

Connection data comes from an Ansible inventory (parsed by ansible-core itself, so group_vars, host_vars and
Ansible Vault work as in a playbook). Credentials come from ROCECONF_USERNAME / ROCECONF_PASSWORD or from the
inventory's ansible_user / ansible_password (which may be vaulted); never from the intent. Secrets are kept
out of every message this module produces.
"""

from __future__ import annotations

import base64
import contextlib
import io
import logging
import os
import shlex
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roceconf import platforms
from roceconf.platforms.base import BUNDLE_MARK, split_outputs
from roceconf.sessionlog import add_secret, timed
from roceconf.state import DeviceState

log = logging.getLogger("roceconf.collect")

#: host read-back commands sent per SSH round trip (as one bash command list)
CHUNK = 24


class CollectError(Exception):
    """A device could not be read; the message is safe to show (no secrets)."""

    def __init__(self, message: str, retry: bool = True):
        super().__init__(message)
        self.retry = retry


@dataclass
class Target:
    name: str
    platform: str
    host: str
    port: int | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    transport: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Target:
        """From the connection parameters the Ansible modules share (device, platform, host, port, transport,
        username, password)."""
        return cls(
            name=params["device"],
            platform=params["platform"],
            host=params["host"],
            port=params.get("port"),
            username=params.get("username"),
            password=params.get("password"),
            transport=params.get("transport"),
        )

    def scrub(self, text: str) -> str:
        """Remove the password (and the username) from any text we are about to show or log."""
        for secret in (self.password,):
            if secret:
                text = text.replace(secret, "********")
        return text


# --------------------------------------------------------------------------------------------- inventory
def load_inventory(path: str | Path) -> dict[str, Target]:
    """Hosts of an Ansible inventory (YAML/INI/directory) as collection targets, using ansible-core's parser."""
    from ansible.errors import AnsibleError
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.vars.manager import VariableManager

    p = Path(path)
    if not p.exists():
        raise CollectError(f"inventory {path} not found", retry=False)
    loader = DataLoader()
    vault_file = os.environ.get("ROCECONF_VAULT_PASSWORD_FILE") or os.environ.get(
        "ANSIBLE_VAULT_PASSWORD_FILE"
    )
    if vault_file:
        _use_vault_password_file(loader, vault_file)
    from ansible import constants as C

    try:
        # a source that no inventory plugin can parse is an error, not an empty fleet
        C.INVENTORY_ANY_UNPARSED_IS_FAILED = True  # type: ignore[attr-defined]
        with contextlib.redirect_stderr(io.StringIO()):
            inv = InventoryManager(loader=loader, sources=[str(p)])
        vm = VariableManager(loader=loader, inventory=inv)
        hosts = inv.get_hosts()
    except AnsibleError as e:
        raise CollectError(f"cannot read inventory {path}: {str(e).splitlines()[0]}", retry=False) from None
    if not hosts:
        raise CollectError(f"inventory {path} defines no hosts (or could not be parsed)", retry=False)
    env_user = os.environ.get("ROCECONF_USERNAME")
    env_pass = os.environ.get("ROCECONF_PASSWORD")
    out: dict[str, Target] = {}
    for h in hosts:
        try:
            v = vm.get_vars(host=h)
        except AnsibleError as e:
            raise CollectError(
                f"cannot read variables of {h.name}: {str(e).splitlines()[0]}", retry=False
            ) from None
        plat = v.get("roceconf_platform") or v.get("platform")
        if plat is None:
            continue
        port = v.get("ansible_port") or v.get("ansible_httpapi_port")
        out[h.name] = Target(
            name=h.name,
            platform=str(plat),
            host=str(v.get("ansible_host", h.name)),
            port=int(port) if port is not None else None,
            username=env_user or _secret(h.name, "ansible_user", lambda v=v: v.get("ansible_user")),
            password=env_pass
            or _secret(
                h.name, "ansible_password", lambda v=v: v.get("ansible_password") or v.get("ansible_ssh_pass")
            ),
            transport=v.get("roceconf_transport") or v.get("transport"),
        )
    return out


def _secret(host: str, var: str, value: Callable[[], Any]) -> str | None:
    """A (possibly vaulted) inventory value as text; a vault that cannot be opened is one clear error."""
    try:
        return _plain(value())
    except Exception as e:  # noqa: BLE001 - AnsibleVaultError (wrong password), ReferenceError (none given)
        given = os.environ.get("ROCECONF_VAULT_PASSWORD_FILE") or os.environ.get("ANSIBLE_VAULT_PASSWORD_FILE")
        why = (
            "wrong vault password" if given else "no vault password (set ROCECONF_VAULT_PASSWORD_FILE)"
        )
        raise CollectError(
            f"cannot decrypt {var} of {host}: {why} ({type(e).__name__})", retry=False
        ) from None


def _use_vault_password_file(loader: Any, vault_file: str) -> None:
    """Make the vault password available to the loader and to ansible-core's process-wide vault context
    (which decrypts vaulted values on access). Safe to call more than once in a process."""
    from ansible.errors import AnsibleError
    from ansible.parsing.vault import VaultSecretsContext, get_file_vault_secret

    try:
        secret = get_file_vault_secret(filename=vault_file, loader=loader)
        secret.load()
    except AnsibleError as e:
        raise CollectError(
            f"cannot read the vault password file: {str(e).splitlines()[0]}", retry=False
        ) from None
    secrets = [("default", secret)]
    loader.set_vault_secrets(secrets)
    ctx = VaultSecretsContext.current(optional=True)
    if ctx is None:
        VaultSecretsContext.initialize(VaultSecretsContext(secrets))
    else:
        ctx.secrets = secrets + [s for s in ctx.secrets if s[1] is not secret]


def _plain(value: Any) -> str | None:
    if value is None:
        return None
    return str(value)  # AnsibleVaultEncryptedUnicode decrypts on str()


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
    if not target.username or not target.password:
        raise CollectError(
            "no credentials: set ROCECONF_USERNAME / ROCECONF_PASSWORD or ansible_user / "
            "ansible_password (vault) in the inventory",
            retry=False,
        )


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
            text = _netmiko_many(target, "linux", commands, timeout, timing=timing)
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

    optional: dict[str, Any] = {
        "transport": target.transport if target.transport in ("http", "https") else "https"
    }
    if target.port:
        optional["port"] = target.port
    dev = get_network_driver("eos")(
        target.host, target.username, target.password, timeout=int(max(1, timeout)), optional_args=optional
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
    port = target.port or (443 if target.transport == "https" else 80 if target.transport == "http" else 22)
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
    low = (name + " " + text).lower()
    if "auth" in low or "permission denied" in low or "401" in low:
        return target.scrub(f"authentication failed ({name})")
    if "timeout" in low or "timed out" in low:
        return target.scrub(f"timed out ({name}: {text})")
    return target.scrub(f"{name}: {text}" if text else name)


def _retryable(e: BaseException) -> bool:
    low = (type(e).__name__ + str(e)).lower()
    return not ("auth" in low or "permission denied" in low or "401" in low)


def napalm_call(target: Target, driver: str, timeout: float, call: Callable[[Any], Any]) -> Any:
    """Open a napalm session to the target, run ``call(device)``, close it (closing errors are ignored)."""
    from napalm import get_network_driver

    optional: dict[str, Any] = {}
    if driver == "eos":
        optional["transport"] = target.transport if target.transport in ("http", "https") else "https"
        if target.port:
            optional["port"] = target.port
    elif target.port:
        optional["port"] = target.port
    if driver in ("nxos_ssh", "junos", "ios"):
        optional.update(
            {
                "conn_timeout": timeout,
                "banner_timeout": timeout,
                "auth_timeout": timeout,
                "read_timeout_override": timeout,
            }
        )
    dev = get_network_driver(driver)(
        target.host, target.username, target.password, timeout=int(max(1, timeout)), optional_args=optional
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
    """An SSH CLI session (netmiko) with every timeout bounded and no agent or key lookups."""
    from netmiko import ConnectHandler

    return ConnectHandler(
        device_type=device_type,
        host=target.host,
        port=target.port or 22,
        username=target.username,
        password=target.password,
        conn_timeout=timeout,
        auth_timeout=timeout,
        banner_timeout=timeout,
        read_timeout_override=timeout,
        fast_cli=True,
        allow_agent=False,
        use_keys=False,
    )


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
                line = " ".join(
                    f"echo {shlex.quote(BUNDLE_MARK + c)}; {c} 2>&1;" for c in commands[i : i + CHUNK]
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
def read_backup(directory: str | Path, device: str, platform: str) -> tuple[str, Path]:
    """A saved running config named the way `roceconf render` names its output: DIR/<device>.<ext>."""
    from roceconf.outdir import contained

    ext = platforms.get(platform).extension
    try:
        p = contained(directory, f"{device}.{ext}")
    except OSError as e:
        raise CollectError(e.strerror or str(e), retry=False) from None
    if not p.is_file():
        raise CollectError(f"no saved config {p.name} in {directory}", retry=False)
    try:
        return p.read_text(encoding="utf-8", errors="replace"), p
    except OSError as e:
        raise CollectError(f"cannot read {p}: {e.strerror}", retry=False) from None
