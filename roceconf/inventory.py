"""Users' Ansible inventories as they are: connection targets from the variables Ansible itself uses.

The CLI (``roceconf drift --inventory``) reads the inventory with ansible-core's own parser and resolves
every host variable with ansible-core's own ``Templar`` (``{{ mgmt_net }}.11``, ``lookup(...)``, vault); the
collection's modules get the same variables from their action plugin (templated by Ansible). Both hand them
to :func:`target_from_vars`, so the CLI and the playbooks always resolve a host to the same target.

What is read (nothing roceconf-specific is needed on a switch):

* platform: ``roceconf_platform`` (hosts, or to override), else ``ansible_network_os`` mapped by the
  platforms (``Platform.ansible_network_os``: ``arista.eos.eos`` -> eos, ``cisco.nxos.nxos`` -> nxos,
  ``junipernetworks.junos.junos`` -> junos, ``nvidia.nvue.*`` -> nvue, ``dellemc.enterprise_sonic.sonic`` /
  ``sonic`` -> sonic), else the older ``platform`` variable when it names a roceconf platform;
* address: ``ansible_host`` (default the inventory name);
* transport: ``ansible_connection`` - ``ansible.netcommon.httpapi`` on EOS is eAPI over HTTPS when
  ``ansible_httpapi_use_ssl`` is true (HTTP otherwise, as the httpapi plugin does), ``netconf`` on Junos is
  napalm's NETCONF driver, anything else is SSH; ``roceconf_transport`` overrides;
* port: ``ansible_httpapi_port`` for eAPI, ``ansible_port`` / ``ansible_ssh_port`` for SSH and NETCONF;
* TLS: ``ansible_httpapi_validate_certs`` (default true, as in ansible.netcommon), ``ansible_httpapi_ca_path``;
* credentials: ``ansible_user``, ``ansible_password`` (vault), ``ansible_ssh_private_key_file``, the SSH agent
  (``SSH_AUTH_SOCK``; ``roceconf_ssh_agent: false`` turns it off), ``ProxyJump`` / ``-J`` /
  ``ProxyCommand`` in ``ansible_ssh_common_args`` / ``ansible_ssh_extra_args``; ``ROCECONF_USERNAME`` /
  ``ROCECONF_PASSWORD`` only where the inventory has none;
* LLDP agent of a host (``roceconf cabling``): ``roceconf_lldp_agent`` - ``lldpd`` (default: ``lldpctl -f json``)
  or ``lldptool`` (open-lldp: ``lldptool -t -n -i PORT`` for each of the intent's ports of the host).

The variable names follow ansible.netcommon's httpapi / network_cli / netconf connection plugins and
ansible-core's ssh connection plugin (their documented ``vars:``).

A host that cannot be mapped keeps its name and the reason (``Target.problem``), e.g.
``leaf7: no platform: set ansible_network_os or roceconf_platform``; it is never reported as missing.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from roceconf import limits, platforms
from roceconf.transport import CollectError, Target, apply_ssh_config

#: Every host variable :func:`target_from_vars` reads (the action plugin passes exactly these).
CONNECTION_VARS: tuple[str, ...] = (
    "roceconf_platform",
    "roceconf_transport",
    "roceconf_ssh_agent",
    "roceconf_lldp_agent",
    "platform",
    "transport",
    "ansible_network_os",
    "ansible_host",
    "ansible_connection",
    "ansible_port",
    "ansible_ssh_port",
    "ansible_httpapi_port",
    "ansible_httpapi_use_ssl",
    "ansible_httpapi_validate_certs",
    "ansible_httpapi_ca_path",
    "ansible_user",
    "ansible_ssh_user",
    "ansible_password",
    "ansible_ssh_pass",
    "ansible_ssh_password",
    "ansible_httpapi_pass",
    "ansible_httpapi_password",
    "ansible_ssh_private_key_file",
    "ansible_private_key_file",
    "ansible_ssh_common_args",
    "ansible_ssh_extra_args",
)

#: The variables among them that hold a secret (the action plugin passes them apart, never logged).
SECRET_VARS: tuple[str, ...] = (
    "ansible_password",
    "ansible_ssh_pass",
    "ansible_ssh_password",
    "ansible_httpapi_pass",
    "ansible_httpapi_password",
)

NO_PLATFORM = "no platform: set ansible_network_os or roceconf_platform"

_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f"}


def _bool(value: Any, default: bool) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return default


def platform_for_network_os(network_os: str) -> str | None:
    """The roceconf platform an ``ansible_network_os`` value means, or None."""
    value = network_os.strip()
    for plat in platforms.all_platforms():
        if any(fnmatchcase(value, pattern) for pattern in plat.ansible_network_os):
            return plat.name
    return None


def ssh_proxy(args: str) -> tuple[str | None, str | None]:
    """(ProxyJump, ProxyCommand) named in ssh arguments (``-J h``, ``-o ProxyJump=h``, ``-oProxyCommand=..``)."""
    try:
        words = shlex.split(args)
    except ValueError:
        return None, None
    jump = command = None
    i = 0
    while i < len(words):
        w = words[i]
        opt = None
        if w == "-J" and i + 1 < len(words):
            jump, i = words[i + 1], i + 2
            continue
        if w.startswith("-J") and len(w) > 2:
            jump = w[2:]
        elif w == "-o" and i + 1 < len(words):
            opt, i = words[i + 1], i + 1
        elif w.startswith("-o") and len(w) > 2:
            opt = w[2:]
        if opt:
            key, _, value = opt.replace("=", " ", 1).partition(" ")
            if key.lower() == "proxyjump" and value.strip().lower() != "none":
                jump = value.strip()
            elif key.lower() == "proxycommand" and value.strip().lower() != "none":
                command = value.strip()
        i += 1
    return jump, command


def ssh_config_arg(args: str) -> str | None:
    """The OpenSSH client config file named in ssh arguments (``-F FILE``, ``-FFILE``), or None."""
    try:
        words = shlex.split(args)
    except ValueError:
        return None
    found = None
    for i, w in enumerate(words):
        if w == "-F" and i + 1 < len(words):
            found = words[i + 1]
        elif w.startswith("-F") and len(w) > 2:
            found = w[2:]
    return found


class VaultUnreadable(CollectError):
    """A vaulted variable that cannot be decrypted: the whole run stops with one line (exit 2)."""


def _vault_failure(host: str, var: str, e: BaseException) -> VaultUnreadable | None:
    name = type(e).__name__
    if "Vault" not in name and "vault" not in str(e).lower() and not isinstance(e, ReferenceError):
        return None
    given = os.environ.get("ROCECONF_VAULT_PASSWORD_FILE") or os.environ.get("ANSIBLE_VAULT_PASSWORD_FILE")
    why = "wrong vault password" if given else "no vault password (set ROCECONF_VAULT_PASSWORD_FILE)"
    return VaultUnreadable(f"cannot decrypt {var} of {host}: {why} ({name})", retry=False)


def target_from_vars(
    name: str,
    hostvars: Mapping[str, Any],
    template: Callable[[Any], Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Target:
    """The connection target of one inventory host from its variables.

    ``template`` resolves a raw value (the CLI passes ansible-core's Templar; the action plugin passes values
    Ansible already templated). Never raises for a host problem: the target carries ``problem``.
    """
    env = os.environ if env is None else env

    def get(key: str) -> Any:
        if key not in hostvars or hostvars[key] is None:
            return None
        value = hostvars[key]
        if template is not None:
            try:
                value = template(value)
            except Exception as e:  # noqa: BLE001 - Ansible raises many types; name the variable
                vault = _vault_failure(name, key, e)
                if vault is not None:
                    raise vault from None
                first = (str(e).splitlines() or [type(e).__name__])[0]
                raise CollectError(f"cannot resolve {key}: {first}", retry=False) from None
        return value

    def text(key: str) -> str | None:
        value = get(key)
        if value is None:
            return None
        try:
            text = str(value)  # a vaulted value decrypts on str()
        except Exception as e:  # noqa: BLE001 - AnsibleVaultError (wrong password), ReferenceError (none)
            vault = _vault_failure(name, key, e)
            if vault is not None:
                raise vault from None
            raise
        return text or None

    def first(*keys: str) -> str | None:
        for k in keys:
            v = text(k)
            if v is not None:
                return v
        return None

    try:
        plat = _platform(name, text)
        host = text("ansible_host") or name
        connection = (text("ansible_connection") or "").rsplit(".", 1)[-1] or None
        p = platforms.get(plat)
        transport = first("roceconf_transport")
        legacy = text("transport")
        if transport is None and legacy in ("ssh", "http", "https", "netconf"):
            transport = legacy
        if transport is None:
            if p.napalm_driver == "eos":  # eAPI, as ansible.netcommon.httpapi reaches it
                if connection in (None, "httpapi"):
                    use_ssl = _bool(get("ansible_httpapi_use_ssl"), connection is None)
                    transport = "https" if use_ssl else "http"
                else:
                    transport = "ssh"
            elif p.napalm_driver == "junos" and connection == "netconf":
                transport = "netconf"
            else:
                transport = "ssh"
        if transport in ("http", "https"):
            port = text("ansible_httpapi_port") or (
                text("ansible_port") if connection in (None, "httpapi") else None
            )
        else:
            port = text("ansible_ssh_port") or (text("ansible_port") if connection != "httpapi" else None)
        jump = command = config = None
        for key in ("ansible_ssh_common_args", "ansible_ssh_extra_args"):
            args = text(key)
            if args:
                j, c = ssh_proxy(args)
                jump, command = j or jump, c or command
                config = ssh_config_arg(args) or config
        key_file = first("ansible_ssh_private_key_file", "ansible_private_key_file")
        agent = get("roceconf_ssh_agent")
        target = Target(
            name=name,
            platform=plat,
            host=host,
            port=int(port) if port else None,
            username=first("ansible_user", "ansible_ssh_user") or None,
            password=first(
                "ansible_password",
                "ansible_ssh_pass",
                "ansible_ssh_password",
                "ansible_httpapi_pass",
                "ansible_httpapi_password",
            )
            or env.get("ROCECONF_PASSWORD")
            or None,
            transport=transport,
            key_file=os.path.expanduser(key_file) if key_file else None,
            allow_agent=None if agent is None else _bool(agent, True),
            proxy_jump=jump,
            verify=_bool(get("ansible_httpapi_validate_certs"), True),
            ca_file=text("ansible_httpapi_ca_path"),
        )
        if command:
            target.extra["proxy_command"] = command
        agent_lldp = text("roceconf_lldp_agent")
        if agent_lldp is not None:
            if agent_lldp not in ("lldpd", "lldptool"):
                raise ValueError(f"roceconf_lldp_agent {agent_lldp!r}: lldpd or lldptool")
            target.extra["lldp_agent"] = agent_lldp
        if transport == "ssh":  # the OpenSSH client config, as ssh reads it (-F FILE, else ~/.ssh/config)
            apply_ssh_config(target, os.path.expanduser(config) if config else None, env)
        if not target.username:
            target.username = env.get("ROCECONF_USERNAME") or None
        return target
    except VaultUnreadable:
        raise
    except CollectError as e:
        return Target(name=name, platform="", host=name, problem=str(e))
    except ValueError as e:
        return Target(name=name, platform="", host=name, problem=f"bad connection variable: {e}")


def _platform(name: str, text: Callable[[str], str | None]) -> str:
    explicit = text("roceconf_platform")
    if explicit is not None:
        if explicit not in platforms.NAMES:
            raise CollectError(
                f"roceconf_platform {explicit!r} is not a platform (known: {', '.join(platforms.NAMES)})",
                retry=False,
            )
        return explicit
    network_os = text("ansible_network_os")
    if network_os is not None:
        mapped = platform_for_network_os(network_os)
        if mapped is None:
            raise CollectError(
                f"ansible_network_os {network_os} is not a roceconf platform: set roceconf_platform "
                f"({', '.join(platforms.NAMES)})",
                retry=False,
            )
        return mapped
    legacy = text("platform")
    if legacy in platforms.NAMES:
        return legacy  # type: ignore[return-value]
    raise CollectError(NO_PLATFORM, retry=False)


# --------------------------------------------------------------------------------------------- reading
def load_inventory(path: str | Path) -> dict[str, Target]:
    """Hosts of an Ansible inventory (YAML/INI/directory/plugin) as targets, read and templated by
    ansible-core. A host that cannot be mapped is a target with ``problem`` set."""
    from ansible.errors import AnsibleError
    from ansible.inventory.manager import InventoryManager
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar
    from ansible.vars.manager import VariableManager

    p = Path(path)
    if not p.exists():
        raise CollectError(f"inventory {path} not found", retry=False)
    _check_sources(p)
    _init_plugins()
    loader = DataLoader()
    # relative lookups (lookup('file', ...)) and playbook-level group_vars resolve against the inventory's
    # folder (an absolute path: ansible-core caches what a relative base directory meant the first time)
    loader.set_basedir(str((p if p.is_dir() else p.parent).resolve()))
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
    out: dict[str, Target] = {}
    for h in hosts:
        try:
            v = vm.get_vars(host=h)
        except AnsibleError as e:
            out[h.name] = Target(
                h.name, "", h.name, problem=f"cannot read its variables: {str(e).splitlines()[0]}"
            )
            continue
        templar = Templar(loader=loader, variables=v)
        out[h.name] = target_from_vars(h.name, v, template=templar.template)
    return out


def _init_plugins() -> None:
    """ansible-core's plugin and collection loaders (lookups in host variables need them), once."""
    from ansible.utils.collection_loader import AnsibleCollectionConfig

    if AnsibleCollectionConfig.collection_finder is None:
        from ansible.plugins.loader import init_plugin_loader

        init_plugin_loader()


def _check_sources(p: Path) -> None:
    """Every file ansible-core would read for inventory ``p`` (the file, or the files of the directory,
    and the group_vars / host_vars beside it) is a regular file within the cap: a FIFO would hang the
    read, ``/dev/zero`` would exhaust memory. Raises CollectError naming the file."""
    from roceconf.inputfile import InputFileError, check_file

    base = p if p.is_dir() else p.parent
    files: list[Path] = [] if p.is_dir() else [p]
    roots = [p] if p.is_dir() else []
    roots += [base / "group_vars", base / "host_vars"]
    seen = 0
    for root in roots:
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.startswith("."):
                    files.append(Path(dirpath) / name)
            seen += len(filenames) + len(dirnames)
            if seen > 100_000:
                raise CollectError(f"inventory {p}: more than 100000 files", retry=False)
    try:
        for f in files:
            check_file(f, limits.MAX_INVENTORY_BYTES)
    except InputFileError as e:
        raise CollectError(f"cannot read inventory {e}", retry=False) from None


def _use_vault_password_file(loader: Any, vault_file: str) -> None:
    """Make the vault password available to the loader and to ansible-core's process-wide vault context
    (which decrypts vaulted values on access). Safe to call more than once in a process."""
    from ansible.errors import AnsibleError
    from ansible.parsing.vault import VaultSecretsContext, get_file_vault_secret

    from roceconf.inputfile import InputFileError, check_file

    try:  # a FIFO, a device or a huge file would hang or exhaust the loader: refuse it before Ansible opens it
        check_file(vault_file, limits.MAX_VAULT_PASSWORD_BYTES)
    except InputFileError as e:
        raise CollectError(f"cannot read the vault password file {e}", retry=False) from None
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
