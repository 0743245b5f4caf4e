"""Bill of materials: what the acceptance result was measured on, and what changed since.

``collect`` reads every device of the inventory (same targets, credentials, workers and timeouts as drift):
switch model, OS and version; host kernel, NIC driver and firmware, rdma-core / OFED, NCCL, GPU driver and CUDA
(the commands are in each platform's ``bom.py``), plus the SHA-256 of the config roceconf renders for the device
from the intent. ``record`` stores an accepted verdict with its BOM; ``stale`` lists every difference between a
baseline and the fabric now as a finding that asks for the acceptance test to be re-run.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from roceconf import jsontext, limits, platforms
from roceconf.diagnostics import BadInput
from roceconf.drift.collect import (
    CollectError,
    Target,
    _netmiko_many,
    _probe,
    _reason,
    close_quietly,
    load_inventory,
    napalm_call,
    netmiko_connect,
)
from roceconf.inputfile import InputFileError, read_text
from roceconf.intent import Fabric
from roceconf.intent.desired import desired_state
from roceconf.names import natural_key
from roceconf.platforms.base import split_outputs
from roceconf.render import render_state
from roceconf.reports.escape import plain

FORMAT_VERSION = 1
#: rule of a baseline finding: the BOM or config changed since the accepted acceptance test
RULE_STALE = "RC400"
#: a device of the baseline cannot be compared (unreadable now, or new / gone)
RULE_UNVERIFIED = "RC413"


def _module(platform: str) -> Any:
    return importlib.import_module(f"roceconf.platforms.{platform.replace('-', '_')}.bom")


def config_hash(fab: Fabric, name: str) -> str:
    """SHA-256 of the config roceconf renders for the device from the intent."""
    text = render_state(desired_state(fab.devices[name]))
    return hashlib.sha256(text.encode()).hexdigest()


def read_device(target: Target, fab: Fabric, name: str, timeout: float) -> dict[str, Any]:
    """The BOM facts of one live device. Raises CollectError with a reason that is safe to show."""
    dev = fab.devices[name]
    mod = _module(dev.platform)
    plat = platforms.get(dev.platform)
    if not target.username or not target.password:
        raise CollectError("no credentials: set ROCECONF_USERNAME / ROCECONF_PASSWORD or ansible_user", retry=False)
    _probe(target, timeout)
    try:
        if mod.METHOD == "host":
            state = desired_state(dev)
            cmds = mod.commands(state)
            text = _netmiko_many(target, "linux", cmds, timeout)
            outputs = {cmd: out for cmd, _line, out in split_outputs(text)}
            return mod.parse(outputs, state)
        if mod.METHOD == "napalm-facts":
            facts = napalm_call(target, plat.napalm_driver, timeout, lambda d: d.get_facts())
            return mod.parse_facts(facts)
        conn = netmiko_connect(target, plat.netmiko_device_type, timeout)
        try:
            outputs = {cmd: conn.send_command(cmd, read_timeout=timeout) for cmd in mod.COMMANDS}
        finally:
            close_quietly(conn)
        return mod.parse(outputs)
    except CollectError:
        raise
    except Exception as e:  # noqa: BLE001 - every napalm/netmiko error is an unreadable device
        raise CollectError(_reason(target, e)) from None


def device_entry(fab: Fabric, name: str, target: Target | None, timeout: float = 10.0) -> dict[str, Any]:
    """One device's BOM entry: its rendered-config hash and the facts read live (``status`` ``read``), or
    ``unknown`` with the reason when it cannot be read (no inventory entry, unreachable, refused)."""
    entry: dict[str, Any] = {"platform": fab.devices[name].platform, "config_sha256": config_hash(fab, name)}
    if target is None:
        entry.update(status="unknown", reason="not in the inventory", facts=None)
        return entry
    try:
        entry.update(status="read", reason=None, facts=read_device(target, fab, name, timeout))
    except CollectError as e:
        entry.update(status="unknown", reason=str(e), facts=None)
    return entry


def collect(
    fab: Fabric,
    inventory: str | Path | None,
    *,
    workers: int = 8,
    timeout: float = 10.0,
    credentials: tuple[str, str] | None = None,
    device: str | list[str] | None = None,
    targets: dict[str, Target] | None = None,
) -> dict[str, Any]:
    """The BOM of every device of the intent (or of ``device``: one name or a list), read live. Unreadable
    devices are recorded with the reason. ``targets`` (name -> Target, e.g. resolved from a play's host
    variables) replaces the inventory file; a device without a target is ``unknown`` (not in the inventory)."""
    if targets is None:
        if inventory is None:
            raise CollectError("no inventory and no targets given")
        targets = load_inventory(inventory)
    if credentials is not None:
        for t in targets.values():
            t.username, t.password = credentials
    chosen = None if device is None else {device} if isinstance(device, str) else set(device)
    names = [n for n in sorted(fab.devices, key=natural_key) if chosen is None or n in chosen]

    def one(name: str) -> dict[str, Any]:
        return device_entry(fab, name, targets.get(name), timeout)

    with cf.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="roceconf-bom") as pool:
        results = dict(zip(names, pool.map(one, names), strict=True))
    return {
        "format_version": FORMAT_VERSION,
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "intent": fab.file,
        "fabric": fab.intent.fabric,
        "devices": results,
    }


def bom_text(data: dict[str, Any]) -> str:
    """The BOM as text: one line per device (``roceconf bom --format text``)."""
    lines = []
    for name, d in data["devices"].items():
        if d["status"] != "read":
            lines.append(f"{name}: unknown ({d['reason']})")
            continue
        f = d["facts"]
        if f.get("kind") == "host":
            nics = ", ".join(f"{k} {v.get('rdma_device')} {v.get('driver')} fw {v.get('firmware')}"
                             for k, v in (f.get("nics") or {}).items())
            lines.append(f"{name}: kernel {f.get('kernel')}, OFED {f.get('ofed')}, NCCL {f.get('nccl')}, "
                         f"CUDA {f.get('cuda')}; {nics}")
        else:
            lines.append(f"{name}: {f.get('vendor')} {f.get('model')} {f.get('os')} {f.get('version')}")
    # device facts are device text: one visible line each, whatever they quote (roceconf.reports.escape)
    return "\n".join(plain(line) for line in lines) + "\n"


def offline(fab: Fabric) -> dict[str, Any]:
    """A BOM of the rendered-config hashes only (for audits of saved configs, where no device is read)."""
    return {
        "format_version": FORMAT_VERSION,
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "intent": fab.file,
        "fabric": fab.intent.fabric,
        "devices": {
            n: {"platform": fab.devices[n].platform, "config_sha256": config_hash(fab, n), "status": "offline",
                "reason": None, "facts": None}
            for n in sorted(fab.devices, key=natural_key)
        },
    }


# --------------------------------------------------------------------------------------------- baseline
@dataclass
class BaselineFinding:
    rule: str
    severity: str  # "warning"
    device: str
    component: str  # e.g. "eth0 firmware", "config", "version"
    baseline: Any
    now: Any
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class BaselineError(BadInput):
    """A baseline or BOM file that cannot be used; the message names the file."""


def load_json(path: str | Path, what: str) -> dict[str, Any]:
    p = Path(path)
    try:
        data = jsontext.loads(read_text(p, limits.MAX_JSON_BYTES, encoding="utf-8"))
    except InputFileError as e:
        raise BaselineError(f"{p}: cannot read the {what}: {e.reason}") from None
    except ValueError as e:
        raise BaselineError(f"{p}:{getattr(e, 'lineno', 1)}: not a JSON {what}: {str(e)[:120]}") from None
    if not isinstance(data, dict):
        raise BaselineError(f"{p}:1: not a {what} (a JSON object is expected)")
    return data


def record(
    verdict: dict[str, Any], bom: dict[str, Any], *, force: bool = False, files: tuple[str, str] = ("verdict", "BOM")
) -> dict[str, Any]:
    """The acceptance baseline: the verdict that passed and the BOM it was measured on (``files``: the
    verdict's and the BOM's file names, for the messages)."""
    vf, bf = files
    if not isinstance(bom.get("devices"), dict):
        raise BaselineError(f"{bf}: devices: missing; not a BOM (write it with `roceconf bom`)")
    check_bom_devices(bom["devices"], f"{bf}: devices")
    if not isinstance(verdict.get("passed"), bool) or not isinstance(verdict.get("tests"), list):
        raise BaselineError(f"{vf}: passed / tests: a true/false and a list are expected; not a verdict (write it with `roceconf acceptance verdict --format json`)")
    if not verdict["passed"] and not force:
        raise BaselineError(f"{vf}: passed: false; the verdict did not pass: a failed acceptance test is no baseline (--force records it anyway)")
    unread = sorted(n for n, d in bom["devices"].items() if isinstance(d, dict) and d.get("status") != "read")
    if unread and not force:
        raise BaselineError(f"{bf}: devices: the BOM has unread devices ({', '.join(unread[:5])}): re-run `roceconf bom`")
    return {
        "format_version": FORMAT_VERSION,
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "verdict": {k: verdict.get(k) for k in ("plan", "traffic_class", "passed", "summary", "generated_at")},
        "bom": bom,
    }


def _flat(facts: Any, prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(facts, dict):
        for k, v in facts.items():
            key = f"{prefix} {k}".strip() if prefix else str(k)
            if isinstance(v, dict):
                out.update(_flat(v, key))
            else:
                out[key] = v
    return out


def stale(baseline: dict[str, Any], now: dict[str, Any]) -> list[BaselineFinding]:
    """Every BOM or config difference between an accepted baseline and the fabric now."""
    base_devs = (baseline.get("bom") or {}).get("devices")
    if not isinstance(base_devs, dict):
        raise BaselineError("the baseline has no bom.devices (write it with `roceconf acceptance record`)")
    now_devs = now.get("devices") or {}
    out: list[BaselineFinding] = []
    rerun = "re-run the acceptance test"
    for name in sorted(set(base_devs) | set(now_devs), key=natural_key):
        b, n = base_devs.get(name), now_devs.get(name)
        if not isinstance(b, dict):
            out.append(BaselineFinding(RULE_STALE, "warning", name, "device", None, "added",
                                       f"acceptance baseline is stale: {name} was not part of the accepted fabric; {rerun}"))
            continue
        if not isinstance(n, dict):
            out.append(BaselineFinding(RULE_STALE, "warning", name, "device", "present", None,
                                       f"acceptance baseline is stale: {name} is no longer in the intent; {rerun}"))
            continue
        if n.get("config_sha256") is not None and b.get("config_sha256") != n.get("config_sha256"):
            out.append(BaselineFinding(RULE_STALE, "warning", name, "config", b.get("config_sha256"), n.get("config_sha256"),
                                       f"acceptance baseline is stale: {name} rendered config changed since the accepted test "
                                       f"(intent change); {rerun}"))
        if n.get("status") == "offline":
            continue
        if n.get("status") != "read":
            out.append(BaselineFinding(RULE_UNVERIFIED, "warning", name, "bom", "read", None,
                                       f"acceptance baseline cannot be checked on {name}: {n.get('reason') or 'not read'}"))
            continue
        fb, fn = _flat(b.get("facts")), _flat(n.get("facts"))
        nics = {**((b.get("facts") or {}).get("nics") or {}), **((n.get("facts") or {}).get("nics") or {})}
        for key in sorted(set(fb) | set(fn)):
            if key == "kind" or fb.get(key) == fn.get(key):
                continue
            what = key
            if key.startswith("nics "):
                _, netdev, field_ = key.split(" ", 2)
                rdma = (nics.get(netdev) or {}).get("rdma_device")
                what = f"{rdma or netdev} {field_}"
            out.append(BaselineFinding(RULE_STALE, "warning", name, what, fb.get(key), fn.get(key),
                                       f"acceptance baseline is stale: {name} {what} {fb.get(key)} -> {fn.get(key)}; {rerun}"))
    return out


__all__ = [
    "BaselineError",
    "BaselineFinding",
    "baseline_block",
    "check_baseline",
    "collect",
    "config_hash",
    "device_entry",
    "load_baseline",
    "load_json",
    "offline",
    "read_device",
    "record",
    "stale",
]


def load_baseline(path: str | Path) -> dict[str, Any]:
    """An acceptance baseline file (``acceptance record``), checked before anything is read."""
    data = load_json(path, "acceptance baseline")
    bom = data.get("bom")
    if not isinstance(bom, dict) or not isinstance(bom.get("devices"), dict):
        raise BaselineError(f"{path}:1: not an acceptance baseline (no bom.devices; write it with `roceconf acceptance record`)")
    check_bom_devices(bom["devices"], f"{path}: bom.devices")
    if not isinstance(data.get("verdict", {}), dict):
        raise BaselineError(f"{path}: verdict: an object is expected (write it with `roceconf acceptance record`)")
    return data


def check_bom_devices(devices: dict[str, Any], where: str) -> None:
    """Every device entry of a BOM is an object with the fields' types `roceconf bom` writes (BaselineError
    naming the field otherwise)."""
    for name, d in devices.items():
        if not isinstance(d, dict):
            raise BaselineError(f"{where}.{name}: an object is expected, not {type(d).__name__}")
        for key, types in (("facts", (dict, type(None))), ("status", (str, type(None))),
                           ("config_sha256", (str, type(None))), ("reason", (str, type(None)))):
            if not isinstance(d.get(key), types):
                raise BaselineError(f"{where}.{name}.{key}: {type(d.get(key)).__name__} is not what `roceconf bom` writes")
        nics = (d.get("facts") or {}).get("nics")
        if not isinstance(nics, dict | None) or not all(isinstance(v, dict) for v in (nics or {}).values()):
            raise BaselineError(f"{where}.{name}.facts.nics: an object of objects is expected")


def baseline_block(
    baseline: dict[str, Any],
    file: str,
    entries: dict[str, Any],
    *,
    only: list[str] | None = None,
    missing: str = "no BOM read",
) -> dict[str, Any]:
    """The ``baseline`` block of a drift report from BOM entries read elsewhere (one per audited device, e.g.
    by the Ansible drift module). A device whose entry is not a BOM entry (None: nothing was read) counts as
    unreadable, with ``missing`` as the reason (RC413). With ``only`` (the devices of a partial run,
    ``--limit``), devices outside it are neither compared nor reported as gone."""
    entries = {
        n: e if isinstance(e, dict)
        else {"platform": "unknown", "config_sha256": None, "status": "unknown", "reason": missing, "facts": None}
        for n, e in entries.items()
    }
    if only is not None:
        keep = set(only)
        base_devs = (baseline.get("bom") or {}).get("devices")
        if isinstance(base_devs, dict):
            baseline = {**baseline, "bom": {**baseline["bom"], "devices": {
                n: d for n, d in base_devs.items() if n in keep}}}
        entries = {n: e for n, e in entries.items() if n in keep}
    return {
        "file": file,
        "recorded_at": baseline.get("recorded_at"),
        "findings": [f.to_dict() for f in stale(baseline, {"devices": entries})],
    }


def check_baseline(
    fab: Fabric,
    baseline: dict[str, Any],
    file: str,
    *,
    inventory: str | Path | None = None,
    workers: int = 8,
    timeout: float = 10.0,
    credentials: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The ``baseline`` block of a drift report: every change since the accepted test (live BOM with an
    inventory; rendered-config hashes only for saved configs)."""
    now = (
        collect(fab, inventory, workers=workers, timeout=timeout, credentials=credentials)
        if inventory is not None
        else offline(fab)
    )
    return {
        "file": file,
        "recorded_at": baseline.get("recorded_at"),
        "findings": [f.to_dict() for f in stale(baseline, now)],
    }
