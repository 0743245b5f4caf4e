"""One simulated device: its stored configuration, fault, counters and file system."""

from __future__ import annotations

import copy
import json
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import yaml

import roceconf.lab.bom as lab_bom
import roceconf.lab.tree as tree
from roceconf.lab.counters import LabCounters, PortProfile, Scenario, profiles, rdma_devices
from roceconf.neighbors import Neighbor
from roceconf.state import DeviceState

#: Faults a device can be given (``None`` = healthy).
FAULTS = ("refuse", "auth", "hang", "garbage")
SWITCH_PLATFORMS = ("eos", "nxos", "junos", "sonic", "nvue")
HOST_PLATFORMS = ("connectx", "bnxt", "linux-dcb")
PLATFORMS = SWITCH_PLATFORMS + HOST_PLATFORMS


def deep_merge(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Merge ``patch`` into ``base`` in place (dicts recursively, everything else replaced)."""
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def deep_unset(base: dict[str, Any], patch: Any) -> None:
    """Remove what ``patch`` names: a leaf (or empty dict / None) removes the key, a dict recurses."""
    if not isinstance(patch, dict):
        return
    for key, value in patch.items():
        if key not in base:
            continue
        if isinstance(value, dict) and value and isinstance(base[key], dict):
            deep_unset(base[key], value)
        else:
            del base[key]


def nv_patch(pending: dict[str, Any], patch: Any) -> None:
    """Apply an NVUE patch: a list of ``set:`` / ``unset:`` items, one such item, or a plain tree."""
    if isinstance(patch, list):
        for item in patch:
            if isinstance(item, dict):
                if "set" in item:
                    deep_merge(pending, item["set"] or {})
                if "unset" in item:
                    deep_unset(pending, item["unset"] or {})
    elif isinstance(patch, dict):
        if patch and set(patch) <= {"set", "unset"}:
            nv_patch(pending, [patch])
        else:
            deep_merge(pending, patch)


#: NVUE objects that ``nv set`` creates without a value (``nv set interface swp1 qos pfc-watchdog``).
_NV_BARE = frozenset({"pfc-watchdog"})


def nv_command_patch(words: list[str]) -> tuple[str, dict[str, Any]] | None:
    """``nv set a b c value`` / ``nv unset a b`` -> ("set"|"unset", nested dict)."""
    if len(words) < 3 or words[0] != "nv" or words[1] not in ("set", "unset"):
        return None
    op = words[1]
    bare = op == "unset" or words[-1] in _NV_BARE
    path = words[2:] if bare else words[2:-1]
    value: Any = {} if bare else _scalar(words[-1])
    if not path:
        return None
    patch: dict[str, Any] = {}
    node = patch
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return op, patch


def _scalar(word: str) -> Any:
    if re.fullmatch(r"-?\d+", word):
        return int(word)
    return word


def _load_tree_data(text: str) -> dict[str, Any]:
    """NVUE text: an applied tree (YAML/JSON), a patch (``- set:`` list) or ``nv set`` lines."""
    tree_: dict[str, Any] = {}
    if not text.strip():
        return tree_
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, (dict, list)):
        nv_patch(tree_, data)
        return tree_
    for line in text.splitlines():
        line = re.sub(r"^\S*[$#]\s+", "", line.strip())  # drop a copied shell prompt
        parsed = nv_command_patch(line.split())
        if parsed is None:
            continue
        op, patch = parsed
        if op == "set":
            deep_merge(tree_, patch)
        else:
            deep_unset(tree_, patch)
    return tree_


@dataclass
class Served:
    """What a device has served since it was defined (``Device.stats``)."""

    connections: int = 0
    logins: int = 0
    auth_failures: int = 0
    commands: int = 0


class Device:
    """State of one lab device. Every mutation happens under ``lock``."""

    def __init__(
        self,
        name: str,
        platform: str,
        config: str | DeviceState | None = None,
        fault: str | None = None,
    ) -> None:
        if platform not in PLATFORMS:
            raise ValueError(f"unknown lab platform {platform!r}; known: {', '.join(PLATFORMS)}")
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self.name = name
        self.platform = platform
        self.fault = fault
        self.lock = threading.RLock()
        self.port = 0
        self.served = Served()
        self.history: deque[str] = deque(maxlen=2000)
        #: Files on the device (NX-OS bootflash, EOS flash, Linux paths).
        self.files: dict[str, str] = {}
        # platform stores
        self.grammar = tree.GRAMMARS.get(platform)
        self.root = tree.Node("")
        self.startup = ""
        self.sessions: dict[str, tree.Node] = {}  # EOS config sessions
        self.junos: list[str] = []
        self.junos_candidate: list[str] = []
        self.junos_history: list[list[str]] = []
        self.data: dict[str, Any] = {}  # sonic CONFIG_DB / nvue applied
        self.pending: dict[str, Any] = {}  # nvue pending revision
        self.revision = 1
        self.host_state: DeviceState | None = None
        #: bill-of-materials facts the device answers with (model, OS version, NIC firmware, ...)
        self.facts: dict[str, Any] = lab_bom.default_facts(platform, name)
        #: Pending commit-confirmed timers (cancelled on stop).
        self.timers: list[Any] = []
        #: The lab's event loop once the device is served (for commit-confirmed timers).
        self.loop: Any = None
        #: Factor on commit-confirm / commit-timer delays (tests shrink minutes to milliseconds).
        self.time_scale = 1.0
        #: OS release the device runs (None: the newest documented; NVUE syntax depends on it).
        self.os_version: str | None = None
        #: EOS sessions committed with a timer: name -> {previous, timer, commitBy}.
        self.pending_commits: dict[str, dict[str, Any]] = {}
        #: Moving counters (see roceconf.lab.counters); scenarios via ``set_scenarios``.
        self.counters = LabCounters(is_host=self.is_host)
        self._profiles: tuple[str, dict[str, PortProfile], dict[str, str | None]] | None = None
        #: LLDP neighbours the device sees (set by the lab from its cables, roceconf.lab.wiring)
        self.neighbours: list[Neighbor] = []
        self.set_config(config if config is not None else "")
        self.startup = self.get_config()

    # ------------------------------------------------------------------ helpers
    @property
    def is_host(self) -> bool:
        return self.platform in HOST_PLATFORMS

    @property
    def transport(self) -> str:
        return "eapi" if self.platform == "eos" else "ssh"

    def record(self, command: str) -> None:
        with self.lock:
            self.served.commands += 1
            self.history.append(command)

    def ports(self) -> dict[str, PortProfile]:
        """Ports of the running configuration with their lossless / ECN priorities (cached per config)."""
        return self._counter_view()[0]

    def _counter_view(self) -> tuple[dict[str, PortProfile], dict[str, str | None]]:
        with self.lock:
            text = self.get_config()
            if self._profiles is None or self._profiles[0] != text:
                rdma = rdma_devices(text) if self.is_host else {}
                self._profiles = (text, profiles(self.platform, text, self.is_host), rdma)
            return self._profiles[1], self._profiles[2]

    def counter_output(self, command: str) -> str | None:
        """The output of a counter command (the platform's ``counters.simulate`` over the moving counters) or
        of an LLDP command (the platform's ``lldp.simulate`` over the device's cables), or None when
        ``command`` is neither."""
        from roceconf.platforms import counters, lldp

        cmd = " ".join(command.split())
        while cmd.startswith("sudo "):
            cmd = cmd[5:]
        with self.lock:
            seen = lldp(self.platform).simulate(cmd, list(self.neighbours), self.name)
        if seen is not None:
            return seen
        spec = counters(self.platform)
        if spec.simulate({}, cmd, {}) is None:
            return None
        with self.lock:
            ports, rdma = self._counter_view()
            return spec.simulate(self.counters.read(cmd, ports), cmd, rdma)

    def set_scenarios(self, scenarios: list[Scenario]) -> None:
        with self.lock:
            self.counters.set_scenarios(scenarios)

    def set_speeds(self, speeds: dict[str, int]) -> None:
        """The speed (bits/s) each cabled port runs at (``Lab.set_links``)."""
        with self.lock:
            self.counters.speeds = dict(speeds)

    def stats(self) -> dict[str, int]:
        return asdict(self.served)

    # ------------------------------------------------------------- config text
    def render(self, root: tree.Node | None = None) -> str:
        assert self.grammar is not None
        return tree.render(root or self.root, self.grammar, bang=self.platform == "eos")

    def get_config(self) -> str:
        """The running configuration as the platform's text (hosts: DeviceState JSON)."""
        with self.lock:
            if self.grammar is not None:
                return self.render()
            if self.platform == "junos":
                return "".join(line + "\n" for line in self.junos)
            if self.platform == "sonic":
                return json.dumps(self.data, indent=4, sort_keys=True) + "\n"
            if self.platform == "nvue":
                return yaml.safe_dump(self.data, sort_keys=False, default_flow_style=False)
            assert self.host_state is not None
            return self.host_state.model_dump_json(indent=2) + "\n"

    def set_config(self, config: str | DeviceState) -> None:
        """Replace the running configuration (text of the platform, or a DeviceState for hosts)."""
        with self.lock:
            if self.is_host:
                self.host_state = _host_state(self.platform, config)
                return
            if not isinstance(config, str):
                raise TypeError(f"{self.name}: a {self.platform} config is text")
            if self.grammar is not None:
                self.root.children = tree.parse(config, self.grammar).children
                self.sessions.clear()
            elif self.platform == "junos":
                self.junos = junos_lines(config)
                self.junos_candidate = list(self.junos)
            elif self.platform == "sonic":
                self.data = json.loads(config) if config.strip() else {}
            elif self.platform == "nvue":
                self.data = _load_tree_data(config)
                self.pending = copy.deepcopy(self.data)

    def edit(self, func: Callable[[str], str]) -> str:
        """Out-of-band edit: ``func(old_text) -> new_text``. Returns the new text."""
        with self.lock:
            new = func(self.get_config())
            self.set_config(new)
            return self.get_config()


_JUNOS_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+')


def junos_curly_to_set(text: str) -> list[str]:
    """Hierarchical (curly-brace) Junos configuration -> ``set`` lines, lists expanded like
    ``show configuration | display set`` does."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    out: list[str] = []
    path: list[str] = []
    words: list[str] = []
    in_list: list[str] | None = None
    list_open = False
    for tok in _JUNOS_TOKEN.findall(text):
        if list_open:
            if tok == "]":
                words.append("\0")  # marker: one set line per list item
                list_open = False
            else:
                in_list.append(tok)  # type: ignore[union-attr]
            continue
        if tok == "[":
            in_list, list_open = [], True
        elif tok == "{":
            path.append(" ".join(w for w in words if not w.endswith(":")))
            words = []
        elif tok == "}":
            if path:
                path.pop()
            words = []
        elif tok == ";":
            clean = [w for w in words if w not in ("inactive:", "replace:", "protect:")]
            if "\0" in clean and in_list is not None:
                i = clean.index("\0")
                for item in in_list:
                    out.append("set " + " ".join(path + clean[:i] + [item] + clean[i + 1 :]))
            elif clean:
                out.append("set " + " ".join(path + clean))
            words, in_list = [], None
        else:
            words.append(tok)
    return [" ".join(line.split()) for line in out]


def junos_lines(text: str) -> list[str]:
    """Set-format text (or curly-brace text) -> ordered unique ``set`` lines (``delete`` applied)."""
    out: dict[str, None] = {}
    if re.search(r"\{\s*$", text, re.M) and not re.search(r"^\s*set\s", text, re.M):
        text = "\n".join(junos_curly_to_set(text))
    for raw in text.replace("\r", "\n").split("\n"):
        line = " ".join(raw.split())
        if line.startswith("set "):
            out[line] = None
        elif line.startswith("delete "):
            prefix = "set " + line[len("delete ") :]
            for old in [k for k in out if k == prefix or k.startswith(prefix + " ")]:
                del out[old]
    return list(out)


def _host_state(platform: str, config: str | DeviceState) -> DeviceState:
    if isinstance(config, DeviceState):
        return config.model_copy(deep=True)
    text = config.strip()
    if not text:
        return DeviceState(platform=platform)
    if text.startswith("{"):
        return DeviceState.model_validate_json(text)
    from roceconf.platforms import get

    return get(platform).parse(config)
