"""The loopback lab: simulated devices on 127.0.0.1 served from one asyncio loop in a thread."""

from __future__ import annotations

import asyncio
import atexit
import base64
import binascii
import hmac
import json
import logging
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import asyncssh
import yaml

import roceconf.lab.tls as lab_tls
from roceconf.lab.device import FAULTS, Device
from roceconf.lab.eos_engine import EapiError, EosEngine
from roceconf.lab.refuse import junos_warm_up
from roceconf.lab.shellbase import Shell
from roceconf.lab.shells import SHELLS
from roceconf.lab.wiring import CABLING_SCENARIOS, Wiring
from roceconf.state import DeviceState
from roceconf.transport import Target

log = logging.getLogger("roceconf.lab")
HOST = "127.0.0.1"
_CONTROL = {"\x03", "\x04", "\x1a"}


# ------------------------------------------------------------------------------ SSH glue
class _SSHServer(asyncssh.SSHServer):
    def __init__(self, lab: Lab, device: Device) -> None:
        self.lab = lab
        self.device = device
        self.username = ""
        self.conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.lab._conns.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.conn is not None:
            self.lab._conns.discard(self.conn)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Key-only logins (GPU hosts, most production switches): the lab's generated client key."""
        creds = self.lab.credentials
        ok = (
            creds is not None
            and self.device.fault != "auth"
            and hmac.compare_digest(username.encode(), self.lab.username.encode())
            and key.public_data == creds.client_key.public_data
        )
        with self.device.lock:
            if ok:
                self.device.served.logins += 1
        self.username = username
        return ok

    def kbdint_auth_supported(self) -> bool:
        return False

    def validate_password(self, username: str, password: str) -> bool:
        ok = (
            self.device.fault != "auth"
            and hmac.compare_digest(username.encode(), self.lab.username.encode())
            and hmac.compare_digest(password.encode(), self.lab.password.encode())
        )
        with self.device.lock:
            if ok:
                self.device.served.logins += 1
            else:
                self.device.served.auth_failures += 1
        if not ok:
            log.info("%s: login refused for user %r", self.device.name, username)
        self.username = username
        return ok

    def session_requested(self) -> asyncssh.SSHServerSession:
        return _Session(self.device, SHELLS[self.device.platform](self.device, self.username))


class _Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """A PTY-like interactive session: echoes input, runs complete lines, writes output + prompt."""

    def __init__(self, device: Device, shell: Shell) -> None:
        self.device = device
        self.shell = shell
        self.chan: Any = None
        self.buf = ""
        self.skip_lf = False
        self.echo = True
        self.exec_command: str | None = None
        self.out: list[str] = []

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: Any, term_modes: Any) -> bool:
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.exec_command = command
        return True

    def session_started(self) -> None:
        if self.exec_command is not None:
            out = self.shell.feed(self.exec_command)
            self._write(out + ("\n" if out and not out.endswith("\n") else ""))
            self._flush()
            self.chan.exit(0)
            return
        self._write(self.shell.banner() + self.shell.prompt())
        self._flush()

    def _write(self, text: str) -> None:
        """Queue output; ``_flush`` sends it in one write (per input chunk, not per character)."""
        if text:
            self.out.append(text)

    def _flush(self) -> None:
        text, self.out = "".join(self.out), []
        if self.chan is None or not text or self.chan.is_closing():
            return
        try:
            self.chan.write(text.replace("\r\n", "\n").replace("\n", "\r\n"))
        except (asyncssh.Error, OSError, BrokenPipeError):
            pass

    def data_received(self, data: str, datatype: Any) -> None:
        try:
            self._consume(data)
        finally:
            self._flush()

    def _consume(self, data: str) -> None:
        for ch in data:
            if self.skip_lf and ch == "\n":
                self.skip_lf = False
                continue
            self.skip_lf = False
            if ch in ("\r", "\n"):
                self.skip_lf = ch == "\r"
                line, self.buf = self.buf, ""
                self._write("\n")
                self._run(line)
                if self.shell.closed:
                    return
            elif ch in _CONTROL:
                out = self.shell.control(ch)
                if out is not None:
                    self.buf = ""
                    self._write(
                        ("^C" if ch == "\x03" else "")
                        + "\n"
                        + (out + "\n" if out else "")
                        + self.shell.prompt()
                    )
            elif ch in ("\x7f", "\x08"):
                if self.buf:
                    self.buf = self.buf[:-1]
                    self._write("\b \b")
            elif ch == "\t" or ch == "\x00" or (ord(ch) < 32 and ch != "\x1b"):
                continue
            else:
                self.buf += ch
                self._write(ch)

    def _run(self, line: str) -> None:
        try:
            out = self.shell.feed(line)
        except Exception as exc:  # a lab bug must not kill the session
            log.exception("%s: command %r failed", self.device.name, line)
            out = f"% lab error: {exc}"
        if out:
            self._write(out if out.endswith("\n") else out + "\n")
        if self.shell.closed:
            self._write("logout\n")
            self._flush()
            try:
                self.chan.exit(0)
            except (asyncssh.Error, OSError):
                pass
            return
        self._write(self.shell.prompt())

    def eof_received(self) -> bool:
        return False

    def break_received(self, msec: int) -> bool:
        return True


# ------------------------------------------------------------------------------ eAPI glue
async def _serve_eapi(
    lab: Lab, device: Device, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Minimal HTTP/1.1 server answering ``POST /command-api`` (JSON-RPC runCmds) with basic auth."""
    try:
        while True:
            request = await reader.readline()
            if not request:
                return
            headers: dict[str, str] = {}
            while True:
                hline = await reader.readline()
                if hline in (b"\r\n", b"\n", b""):
                    break
                k, _, v = hline.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length", "0") or 0)
            body = await reader.readexactly(length) if length else b""
            method, path = (request.decode("latin-1").split() + ["", ""])[:2]
            keep = headers.get("connection", "").lower() == "keep-alive"
            status, payload = _eapi_response(lab, device, method, path, headers, body)
            data = payload.encode()
            reason = {200: "OK", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}[status]
            head = (
                f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\nConnection: {'keep-alive' if keep else 'close'}\r\n"
            )
            if status == 401:
                head += 'WWW-Authenticate: Basic realm="eAPI"\r\n'
            writer.write(head.encode() + b"\r\n" + data)
            await writer.drain()
            if not keep:
                return
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        return
    finally:
        writer.close()


def _eapi_response(
    lab: Lab, device: Device, method: str, path: str, headers: dict[str, str], body: bytes
) -> tuple[int, str]:
    if path.split("?")[0] != "/command-api":
        return 404, json.dumps({"error": "not found"})
    if method != "POST":
        return 405, json.dumps({"error": "method not allowed"})
    auth = headers.get("authorization", "")
    user = password = ""
    if auth.lower().startswith("basic "):
        try:
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            pass
    ok = (
        device.fault != "auth"
        and hmac.compare_digest(user.encode(), lab.username.encode())
        and hmac.compare_digest(password.encode(), lab.password.encode())
    )
    with device.lock:
        device.served.connections += 1
        if ok:
            device.served.logins += 1
        else:
            device.served.auth_failures += 1
    if not ok:
        return 401, "Unable to authenticate user: Bad username/password combination"
    try:
        req = json.loads(body or b"{}")
        params = req.get("params", {})
        cmds = params.get("cmds", [])
        fmt = params.get("format") or "json"
        rid = req.get("id")
    except (ValueError, AttributeError):
        return 200, json.dumps(
            {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": None}
        )
    engine = EosEngine(device)
    done: list[Any] = []
    for n, cmd in enumerate(cmds):
        try:
            done.extend(engine.run([cmd], fmt))
        except EapiError as exc:
            text = cmd["cmd"] if isinstance(cmd, dict) else cmd
            message = f"CLI command {n + 1} of {len(cmds)} '{text}' failed: invalid command"
            data = done + [{"errors": exc.errors or [str(exc)]}]
            return 200, json.dumps(
                {"jsonrpc": "2.0", "error": {"code": 1002, "message": message, "data": data}, "id": rid}
            )
    return 200, json.dumps({"jsonrpc": "2.0", "result": done, "id": rid})


# ------------------------------------------------------------------------------ the lab
class Lab:
    """Simulated devices on 127.0.0.1, served by one asyncio loop in a background thread.

    >>> with Lab(username="u", password="p") as lab:   # doctest: +SKIP
    ...     lab.add("leaf1", "nxos", "hostname leaf1\\n")
    ...     lab.port("leaf1")
    """

    def __init__(
        self, username: str, password: str, devices: Iterable[Device] = (), *, tls: bool = True
    ) -> None:
        """``tls``: serve eAPI over HTTPS with a certificate signed by the lab's own CA (``ca_file``);
        ``tls=False`` serves plain HTTP."""
        if not username or not password:
            raise ValueError("the lab needs a username and a password")
        self.username = username
        self.password = password
        self.devices: dict[str, Device] = {}
        #: the cables between the devices (``set_links``), answered as LLDP neighbours
        self.wiring = Wiring()
        self._listeners: dict[str, socket.socket] = {}
        self._accept_tasks: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._held: set[socket.socket] = set()
        self._conns: set[asyncssh.SSHServerConnection] = set()
        self._options: dict[str, asyncssh.SSHServerConnectionOptions] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._key: asyncssh.SSHKey | None = None
        self.tls = tls
        self.credentials: lab_tls.LabCredentials | None = None
        self._server_tls: Any = None
        self.started_in: float | None = None
        for dev in devices:
            if dev.platform == "junos":
                junos_warm_up(dev.facts.get("model"))
            self.devices[dev.name] = dev

    # -------------------------------------------------------------- lifecycle
    def __enter__(self) -> Lab:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._loop is not None

    def start(self) -> Lab:
        if self._loop is not None:
            return self
        t0 = time.perf_counter()
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="roceconf-lab", daemon=True)
        self._thread.start()
        ready.wait()
        self._loop = loop
        self._key = asyncssh.generate_private_key("ssh-ed25519")
        self.credentials = lab_tls.generate()
        self._server_tls = self.credentials.server_context() if self.tls else None
        self._call(self._start_all())
        _LIVE.add(self)
        self.started_in = time.perf_counter() - t0
        log.info("lab: %d devices up in %.2f s", len(self.devices), self.started_in)
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            self._call(self._stop_all(), timeout=10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(timeout=10)
            loop.close()
            self._loop = None
            self._thread = None
            _LIVE.discard(self)
            if self.credentials is not None:
                self.credentials.remove()
                self.credentials = None

    def _call(self, coro: Any, timeout: float = 60) -> Any:
        assert self._loop is not None
        fut: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return fut.result(timeout)

    async def _start_all(self) -> None:
        for dev in self.devices.values():
            await self._start_device(dev)

    async def _stop_all(self) -> None:
        for name in list(self._listeners):
            self._close_listener(name)
        for conn in list(self._conns):
            conn.abort()
        for sock in list(self._held):
            sock.close()
        self._held.clear()
        for dev in self.devices.values():
            with dev.lock:
                for t in dev.timers:
                    t.cancel()
                dev.timers.clear()
        tasks = [t for t in self._tasks if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        await asyncio.sleep(0)
        await asyncio.get_running_loop().shutdown_default_executor()

    # -------------------------------------------------------------- devices
    def add(
        self,
        name: str,
        platform: str,
        config: str | DeviceState | None = None,
        fault: str | None = None,
    ) -> Device:
        """Define a device (before or after start)."""
        if name in self.devices:
            raise ValueError(f"device {name!r} already in the lab")
        dev = Device(name, platform, config, fault)
        if platform == "junos":  # the schema the device resolves set lines in (roceconf/lab/refuse.py)
            junos_warm_up(dev.facts.get("model"))
        self.devices[name] = dev
        self._rewire()
        if self._loop is not None:
            self._call(self._start_device(dev))
        return dev

    def set_links(self, links: Iterable[tuple[str, str, str, str]],
                  speeds: dict[tuple[str, str], int] | None = None) -> None:
        """Lay the cables (``(a_device, a_port, b_device, b_port)``, e.g. the intent's links): every device
        answers its platform's LLDP commands with the far ends (roceconf.lab.wiring). ``speeds``: (device,
        port) -> Gb/s the port runs at, answered in its link counters (the intent's port speeds); a port not
        in it answers no speed."""
        per: dict[str, dict[str, int]] = {n: {} for n in self.devices}
        for (dev, port), gbps in (speeds or {}).items():
            if dev not in self.devices:
                raise ValueError(f"speed of {dev}:{port}: no device {dev!r} in the lab")
            per[dev][port] = int(gbps) * 10**9
        self.wiring.set_links(links)
        for n, d in self.devices.items():
            d.set_speeds(per[n])
        self._rewire()

    def _rewire(self) -> None:
        plats = {n: d.platform for n, d in self.devices.items()}
        for n, d in self.devices.items():
            seen = self.wiring.neighbours(n, plats)
            with d.lock:
                d.neighbours = seen

    async def _start_device(self, dev: Device) -> None:
        dev.loop = asyncio.get_running_loop()
        if dev.transport == "ssh" and dev.name not in self._options:
            lab = self

            def factory(d: Device = dev) -> asyncssh.SSHServer:
                return _SSHServer(lab, d)

            self._options[dev.name] = await asyncssh.SSHServerConnectionOptions.construct(
                server_host_keys=[self._key],
                server_factory=factory,
                allow_scp=False,
                login_timeout=30,
                keepalive_interval=0,
                line_editor=False,
                encoding="utf-8",
            )
        if dev.fault != "refuse":
            self._open_listener(dev)
        elif not dev.port:
            # reserve a port number so the inventory is stable; nothing listens on it
            probe = socket.socket()
            probe.bind((HOST, 0))
            dev.port = probe.getsockname()[1]
            probe.close()

    def _open_listener(self, dev: Device) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, dev.port))
        sock.listen(128)
        sock.setblocking(False)
        dev.port = sock.getsockname()[1]
        self._listeners[dev.name] = sock
        task = asyncio.get_running_loop().create_task(self._accept(dev, sock))
        self._accept_tasks[dev.name] = task

    def _close_listener(self, name: str) -> None:
        task = self._accept_tasks.pop(name, None)
        if task is not None:
            task.cancel()
        sock = self._listeners.pop(name, None)
        if sock is not None:
            sock.close()

    async def _accept(self, dev: Device, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(sock)
            except (OSError, asyncio.CancelledError):
                return
            with dev.lock:
                fault = dev.fault
                if fault != "hang" and dev.transport == "ssh":
                    dev.served.connections += 1
            if fault == "hang":
                self._held.add(conn)  # accepted, never answered
                continue
            if dev.transport == "eapi":
                task = loop.create_task(self._eapi_conn(dev, conn))
            else:
                task = loop.create_task(self._ssh_conn(dev, conn))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _ssh_conn(self, dev: Device, conn: socket.socket) -> None:
        try:
            await asyncssh.run_server(conn, options=self._options[dev.name])
        except (TimeoutError, asyncssh.Error, OSError, EOFError):
            pass
        except asyncio.CancelledError:
            conn.close()

    async def _eapi_conn(self, dev: Device, conn: socket.socket) -> None:
        if self._server_tls is None:
            reader, writer = await asyncio.open_connection(sock=conn)
        else:
            loop = asyncio.get_running_loop()
            reader = asyncio.StreamReader()
            protocol = asyncio.StreamReaderProtocol(reader)
            try:
                transport, _ = await loop.connect_accepted_socket(
                    lambda: protocol, sock=conn, ssl=self._server_tls, ssl_handshake_timeout=15
                )
            except (TimeoutError, OSError, ConnectionError):  # a client that rejected the cert
                conn.close()
                return
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        await _serve_eapi(self, dev, reader, writer)

    # -------------------------------------------------------------- faults
    def set_fault(self, name: str, fault: str | None) -> None:
        """Change a device's fault at runtime (``None`` heals it). Applies to new connections."""
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        dev = self.devices[name]
        with dev.lock:
            old, dev.fault = dev.fault, fault
        if self._loop is None or old == fault:
            return

        async def swap() -> None:
            if fault == "refuse":
                self._close_listener(name)
            elif old == "refuse":
                self._open_listener(dev)

        self._call(swap())

    # -------------------------------------------------------------- out-of-band access
    def device(self, name: str) -> Device:
        return self.devices[name]

    def port(self, name: str) -> int:
        return self.devices[name].port

    def address(self, name: str) -> tuple[str, int]:
        return HOST, self.devices[name].port

    def get_config(self, name: str) -> str:
        return self.devices[name].get_config()

    def set_config(self, name: str, text: str | DeviceState) -> None:
        self.devices[name].set_config(text)

    def edit(self, name: str, func: Callable[[str], str]) -> str:
        return self.devices[name].edit(func)

    def host_state(self, name: str) -> DeviceState:
        dev = self.devices[name]
        if not dev.is_host:
            raise ValueError(f"{name} is a {dev.platform} switch, not a host")
        with dev.lock:
            assert dev.host_state is not None
            return dev.host_state.model_copy(deep=True)

    def set_host_state(self, name: str, state: DeviceState) -> None:
        dev = self.devices[name]
        if not dev.is_host:
            raise ValueError(f"{name} is a {dev.platform} switch, not a host")
        dev.set_config(state)

    def stats(self, name: str) -> dict[str, int]:
        return self.devices[name].stats()

    def set_scenarios(self, items: Iterable[str]) -> None:
        """Counter scenarios, each ``NAME[@DEVICE[:PORT]]`` (see roceconf.lab.counters), and cabling scenarios
        (``miswire`` / ``crossed-rail``, roceconf.lab.wiring); replaces the previous ones (the cables go back
        to the laid links) and restarts the read counts. ValueError names the first bad item."""
        from roceconf.lab.counters import Scenario, needs, parse_scenario

        per: dict[str, list[Scenario]] = {n: [] for n in self.devices}
        self.wiring.reset()
        for text in items:
            if text.partition("@")[0] in CABLING_SCENARIOS:
                self._cabling_scenario(text)
                continue
            name, dev, port = parse_scenario(text)
            if dev is not None and dev not in self.devices:
                raise ValueError(f"scenario {text!r}: no device {dev!r} in the lab")
            for d in [dev] if dev else list(self.devices):
                device = self.devices[d]
                why = needs(name, device.is_host)
                if why:
                    if dev:
                        raise ValueError(f"scenario {text!r}: {why}")
                    continue
                if port is not None and port not in device.ports():
                    known = ", ".join(sorted(device.ports())) or "none"
                    raise ValueError(f"scenario {text!r}: {d} has no port {port!r} (ports: {known})")
                per[d].append(Scenario(name, port))
        for d, sc in per.items():
            self.devices[d].set_scenarios(sc)
        self._rewire()

    def _cabling_scenario(self, text: str) -> None:
        name, _, where = text.partition("@")
        dev, _, port = where.partition(":")
        if not dev or dev not in self.devices:
            raise ValueError(f"scenario {text!r}: give a device of the lab after '@' ({name}@DEVICE[:PORT])")
        if name == "crossed-rail" and not self.devices[dev].is_host:
            raise ValueError(f"scenario {text!r}: crossed-rail swaps a host's NIC cables; give a host")
        self.wiring.swap(dev, port or None, text)

    @property
    def ca_file(self) -> Path:
        """The CA certificate that signed the lab's eAPI certificate (while the lab runs)."""
        assert self.credentials is not None, "the lab is not running"
        return self.credentials.ca_file

    @property
    def client_key_file(self) -> Path:
        """An SSH private key every lab SSH server accepts for the lab's username (while the lab runs)."""
        assert self.credentials is not None, "the lab is not running"
        return self.credentials.client_key_file

    def target(self, name: str, *, key: bool = False) -> Target:
        """The connection target of a lab device: eAPI over verified HTTPS (or HTTP without tls), SSH with
        the password or (``key=True``) the lab's client key only."""
        dev = self.devices[name]
        eapi = dev.transport == "eapi"
        return Target(
            name=name,
            platform=dev.platform,
            host=HOST,
            port=dev.port,
            username=self.username,
            password=None if key and not eapi else self.password,
            transport=("https" if self.tls else "http") if eapi else "ssh",
            key_file=str(self.client_key_file) if key and not eapi else None,
            allow_agent=False,
            ca_file=str(self.ca_file) if eapi and self.tls else None,
        )

    def inventory(self) -> dict[str, Any]:
        """Ansible-style inventory: ``all.hosts`` plus one group per platform."""
        hosts: dict[str, Any] = {}
        groups: dict[str, Any] = {}
        for dev in sorted(self.devices.values(), key=lambda d: d.name):
            entry: dict[str, Any] = {
                "ansible_host": HOST,
                "ansible_port": dev.port,
                "roceconf_platform": dev.platform,
            }
            entry.update(_ANSIBLE.get(dev.platform, {}))
            if dev.transport == "eapi":
                entry["ansible_httpapi_port"] = dev.port
                entry["ansible_httpapi_use_ssl"] = self.tls
                if self.tls:
                    entry["ansible_httpapi_validate_certs"] = True
                    entry["ansible_httpapi_ca_path"] = str(self.ca_file)
            hosts[dev.name] = entry
            groups.setdefault(dev.platform.replace("-", "_"), {"hosts": {}})["hosts"][dev.name] = None
        return {"all": {"hosts": hosts, "children": groups}}

    def write_inventory(self, path: str | Path) -> Path:
        from roceconf.outdir import write_file

        path = Path(path)
        # atomically, and never through a link planted in the directory (roceconf.outdir)
        write_file(path, yaml.safe_dump(self.inventory(), sort_keys=False, default_flow_style=False))
        return path


#: Connection variables for Ansible where a collection can drive the simulated CLI.
_ANSIBLE: dict[str, dict[str, Any]] = {
    "nxos": {"ansible_connection": "ansible.netcommon.network_cli", "ansible_network_os": "cisco.nxos.nxos"},
    "junos": {
        "ansible_connection": "ansible.netcommon.network_cli",
        "ansible_network_os": "junipernetworks.junos.junos",
    },
    "eos": {
        "ansible_connection": "ansible.netcommon.httpapi",
        "ansible_network_os": "arista.eos.eos",
    },
}

_LIVE: weakref.WeakSet[Lab] = weakref.WeakSet()


@atexit.register
def _stop_live_labs() -> None:
    for lab in list(_LIVE):
        try:
            lab.stop()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass
