"""How roceconf reaches a device: the connection target and the napalm / netmiko arguments built from it.

One place for the transport settings the collector (``roceconf.drift.collect``) and the pusher
(``roceconf.apply``) share, so both connect the same way:

* SSH (netmiko, and napalm's SSH drivers, which hand these to netmiko): password and/or a private key file
  (``key_file``), the SSH agent when ``SSH_AUTH_SOCK`` is set (``allow_agent``), a jump host
  (``proxy_jump``, as ``ansible_ssh_common_args: -o ProxyJump=bastion`` says) through ``ssh -W``.
* eAPI over HTTPS (napalm ``eos`` -> pyeapi): the server certificate is verified by default, against the
  system CAs or ``ca_file``; ``verify=False`` is the explicit opt-out
  (``ansible_httpapi_validate_certs: false``). pyeapi itself would not verify (it creates an unverified
  context when given none), so an explicit ``ssl.SSLContext`` is always passed.

Secrets never appear in a message (``Target.scrub``).
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import ssl
from dataclasses import dataclass, field
from typing import Any


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
    #: ``ssh``, ``http`` / ``https`` (EOS eAPI) or ``netconf`` (Junos through napalm)
    transport: str | None = None
    #: SSH private key file (``ansible_ssh_private_key_file``)
    key_file: str | None = None
    #: use the SSH agent (default: when ``SSH_AUTH_SOCK`` is set, as ssh does)
    allow_agent: bool | None = None
    #: jump host(s) for SSH, ``[user@]host[:port][,...]`` (``ProxyJump`` of ``ansible_ssh_common_args``)
    proxy_jump: str | None = None
    #: verify the HTTPS server certificate (eAPI); False only when the inventory opts out explicitly
    verify: bool = True
    #: CA bundle for the HTTPS server certificate (``ansible_httpapi_ca_path``); None: the system CAs
    ca_file: str | None = None
    #: why the inventory host could not be turned into a target (no platform, a variable that does not
    #: resolve); such a host is reported unknown with this reason, never as missing
    problem: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Target:
        """From the connection parameters the Ansible modules share (device, platform, host, port, transport,
        username, password, key_file, validate_certs, ca_file)."""
        return cls(
            name=params["device"],
            platform=params["platform"],
            host=params["host"],
            port=params.get("port"),
            username=params.get("username"),
            password=params.get("password"),
            transport=params.get("transport"),
            key_file=params.get("key_file"),
            verify=params.get("validate_certs", True) is not False,
            ca_file=params.get("ca_file"),
        )

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}" if self.port else self.host

    def has_credentials(self) -> bool:
        """A username and something to log in with: a password, a key file or the SSH agent."""
        if not self.username:
            return False
        if self.password:
            return True
        return self.transport not in ("http", "https") and bool(self.key_file or self.agent())

    def agent(self) -> bool:
        if self.allow_agent is not None:
            return self.allow_agent
        return bool(os.environ.get("SSH_AUTH_SOCK"))

    def scrub(self, text: str) -> str:
        """Remove the password from any text we are about to show or log."""
        for secret in (self.password,):
            if secret:
                text = text.replace(secret, "********")
        return text


NO_CREDENTIALS = (
    "no credentials: set ansible_user and ansible_password (vault) or ansible_ssh_private_key_file (or an "
    "SSH agent) in the inventory, or ROCECONF_USERNAME / ROCECONF_PASSWORD"
)


# ------------------------------------------------------------------------------------------------ TLS
def ssl_context(target: Target) -> ssl.SSLContext:
    """The TLS context for eAPI: verifying (system CAs or ``ca_file``) unless the target opts out."""
    if not target.verify:
        return ssl._create_unverified_context()  # noqa: S323 - the inventory asked for it explicitly
    try:
        return ssl.create_default_context(cafile=target.ca_file)
    except (OSError, ssl.SSLError) as e:
        raise CollectError(
            f"cannot load the CA file {target.ca_file}: {getattr(e, 'strerror', None) or e}", retry=False
        ) from None


def tls_failure(target: Target, text: str) -> str | None:
    """A one-line explanation when an error text is a TLS certificate failure, else None."""
    low = text.lower()
    if "certificate_verify_failed" not in low and "certificate verify failed" not in low:
        return None
    detail = text.split("certificate verify failed:", 1)[-1].split("(_ssl")[0].strip(" :)") or "not trusted"
    against = f"the CA file {target.ca_file}" if target.ca_file else "the system CAs"
    return (
        f"TLS certificate of {target.where} not trusted ({detail}) by {against}: set ansible_httpapi_ca_path "
        "to the CA that signed it (or ansible_httpapi_validate_certs: false to skip verification)"
    )


# ------------------------------------------------------------------------------------------------ SSH
def proxy_command(target: Target) -> str | None:
    """The ``ssh -W`` command that reaches the target through its jump host(s), or None."""
    command = target.extra.get("proxy_command")
    if command:
        return str(command).replace("%h", target.host).replace("%p", str(target.port or 22))
    if not target.proxy_jump:
        return None
    hops = [h.strip() for h in target.proxy_jump.split(",") if h.strip()]
    last = hops[-1]
    args = ["ssh", "-o", "BatchMode=yes"]
    if len(hops) > 1:
        args += ["-J", ",".join(hops[:-1])]
    user_host, _, port = last.rpartition(":") if last.count(":") == 1 else (last, "", "")
    if port:
        args += ["-p", port]
    args += ["-W", f"{target.host}:{target.port or 22}", user_host]
    return shlex.join(args)


def apply_ssh_config(target: Target, path: str | None, env: Any = os.environ) -> None:
    """Read the OpenSSH client config that applies to an SSH target - ``path`` (``-F FILE`` of the inventory's
    ssh arguments) or, as ssh does, ``~/.ssh/config`` when it exists - and take from its block for the target's
    host what netmiko does not: ``User`` (when the inventory names none) and ``IdentityFile`` (when the inventory
    names no key). ``HostName``, ``Port``, ``ProxyJump`` and ``ProxyCommand`` are applied by netmiko itself
    (``ssh_config_file``). A named file that cannot be read makes the target a problem (unknown, never a
    guess)."""
    if path is None:
        home = env.get("HOME") or os.path.expanduser("~")
        default = os.path.join(home, ".ssh", "config")
        if not os.path.isfile(default):
            return
        path = default
    import paramiko

    try:
        with open(path, encoding="utf-8") as fh:
            cfg = paramiko.SSHConfig()
            cfg.parse(fh)
        found = cfg.lookup(target.host)
    except (OSError, UnicodeDecodeError, ValueError, paramiko.SSHException) as e:
        target.problem = f"cannot read the ssh config {path}: {getattr(e, 'strerror', None) or e}"
        return
    target.extra["ssh_config"] = path
    if any(k in found for k in ("proxycommand", "proxyjump")) or found.get("hostname", target.host) != target.host:
        target.extra["ssh_config_routes"] = True  # the config decides where the connection goes
    if not target.username and found.get("user"):
        target.username = found["user"]
    if not target.key_file:
        keys = [os.path.expanduser(k) for k in found.get("identityfile") or []]
        key = next((k for k in keys if os.path.isfile(k)), None)
        if key and "identityfile" in {k.lower() for k in _explicit_keys(cfg, target.host)}:
            target.key_file = key


def _explicit_keys(cfg: Any, host: str) -> set[str]:
    """The options a config states for ``host`` (paramiko adds an IdentityFile default of its own)."""
    out: set[str] = set()
    for block in getattr(cfg, "_config", []):
        if any(fnmatch.fnmatch(host, p) for p in block.get("host", []) if not p.startswith("!")):
            out.update(k for k in block.get("config", {}))
    return out


def netmiko_params(target: Target, device_type: str, timeout: float) -> dict[str, Any]:
    """ConnectHandler arguments: every timeout bounded, the key file / agent / jump host of the target."""
    params: dict[str, Any] = {
        "device_type": device_type,
        "host": target.host,
        "port": target.port or 22,
        "username": target.username,
        "password": target.password or "",
        "conn_timeout": timeout,
        "auth_timeout": timeout,
        "banner_timeout": timeout,
        "read_timeout_override": timeout,
        "fast_cli": True,
        "allow_agent": target.agent(),
        "use_keys": bool(target.key_file),
    }
    if target.key_file:
        params["key_file"] = target.key_file
    cmd = proxy_command(target)
    if cmd:
        import paramiko

        params["sock"] = paramiko.ProxyCommand(cmd)
    elif target.extra.get("ssh_config"):  # the inventory's own jump host wins over the config's, as with ssh -o
        params["ssh_config_file"] = target.extra["ssh_config"]
    return params


def napalm_optional_args(target: Target, driver: str, timeout: float) -> dict[str, Any]:
    """napalm ``optional_args`` for the driver: eAPI transport and TLS context, or the SSH settings."""
    optional: dict[str, Any] = {}
    if driver == "eos":
        transport = target.transport if target.transport in ("http", "https", "ssh") else "https"
        optional["transport"] = transport
        if transport == "https":
            optional["context"] = ssl_context(target)
    if target.port:
        optional["port"] = target.port
    if driver != "eos" or optional.get("transport") == "ssh":
        ssh = netmiko_params(target, "generic", timeout)
        optional.update(
            {
                "conn_timeout": timeout,
                "banner_timeout": timeout,
                "auth_timeout": timeout,
                "read_timeout_override": timeout,
                "allow_agent": ssh["allow_agent"],
                "use_keys": ssh["use_keys"],
            }
        )
        for key in ("key_file", "sock", "ssh_config_file"):
            if key in ssh:
                optional[key] = ssh[key]
    return optional
