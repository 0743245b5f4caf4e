"""The drift audit: read every device (bounded worker pool), parse, compare with the intent, rank, remediate.

A device is only ever reported ``in_sync`` after it was read *and* parsed into a state with RoCE content.
Anything else (unreachable, refused, bad credentials, timeout, garbage) is ``unknown`` with the reason.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from roceconf import forkmap, outdir, platforms
from roceconf.drift.collect import CollectError, Target, load_inventory, read_backup, read_with_retries
from roceconf.drift.compare import (
    DriftItem,
    Policy,
    compare,
    keep_newest,
    shared_compares,
    wanted,
)
from roceconf.drift.remediate import Remediation, remediation, shared_fixes
from roceconf.intent import DeviceSpec, Fabric
from roceconf.intent.desired import desired_state, expressible, expressible_states
from roceconf.names import natural_key
from roceconf.reports.causes import Cause, causes, remediation_for, summary
from roceconf.reports.scaffold import AuditReport, device_head, worst
from roceconf.state import DeviceState, has_content

Status = Literal["in_sync", "drift", "unknown"]

log = logging.getLogger("roceconf.audit")


@dataclass
class DeviceResult:
    device: str
    platform: str
    status: Status
    source: str
    reason: str | None = None
    items: list[DriftItem] = field(default_factory=list)
    parse_warnings: list[dict[str, Any]] = field(default_factory=list)
    remediation: list[Remediation] = field(default_factory=list)
    attempts: int = 0
    seconds: float = 0.0
    actual: DeviceState | None = None
    #: the `Shape` this result was reported from (the devices of one shape report alike, but for their
    #: name, file and duration: a report writes them from one template); None when computed on its own
    shape: Shape | None = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str) -> Any:
        # the items of a result reported from its shape are built when first asked for: a report written
        # from the shape's template needs none of them (thousands of devices, dozens of items each)
        lazy = self.__dict__.get("_lazy_items") if name == "items" else None
        if lazy is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        shape, file = lazy
        items = self.__dict__["items"] = shape.items_for(self.device, file)
        del self.__dict__["_lazy_items"]
        return items

    @property
    def ranked(self) -> list[DriftItem]:
        """The items, or while they are not built the shape's: the same severities, features and fields
        in the same order (only the device's name and file differ)."""
        lazy = self.__dict__.get("_lazy_items")
        return lazy[0].items if lazy is not None else self.items

    @property
    def items_file(self) -> str | None:
        """The file the items name (one per device)."""
        lazy = self.__dict__.get("_lazy_items")
        if lazy is not None:
            return lazy[1]
        return self.items[0].file if self.items else None

    @property
    def worst(self) -> str | None:
        return worst(self.ranked)

    @property
    def causes(self) -> list[Cause]:
        """The items grouped into one finding per cause (`roceconf.reports.causes`)."""
        return causes(self.device, self.ranked)

    def findings(self) -> list[dict[str, Any]]:
        """The causes as JSON, each with the positions of its remediation blocks."""
        return [{**c.to_dict(), "remediation": remediation_for(c, self.remediation)} for c in self.causes]

    def to_dict(self) -> dict[str, Any]:
        return {
            **device_head(self),
            "items": [i.to_dict() for i in self.items],
            "findings": self.findings(),
            "parse_warnings": self.parse_warnings,
            "remediation": [r.to_dict() for r in self.remediation],
        }


@dataclass
class DriftReport(AuditReport):
    intent: str
    source: str
    generated_at: str
    devices: list[DeviceResult]
    #: acceptance-baseline check (``drift --baseline``): recorded_at and findings; None when not asked for
    baseline: dict[str, Any] | None = None

    #: exit code (`AuditReport.exit_code`): 0 in sync, 1 drift found or the acceptance baseline is stale,
    #: 3 some device could not be audited and nothing drifted elsewhere, or no device was audited at all
    STATUS_WORDS = (("in_sync", "in sync"), ("drift", "drifted"), ("unknown", "unknown"))

    @property
    def counts(self) -> dict[str, int]:
        """Devices by status; findings (causes), ports and per-port items; causes by severity."""
        c = {
            "devices": len(self.devices),
            "in_sync": 0,
            "drift": 0,
            "unknown": 0,
            "findings": 0,
            "ports": 0,
            "items": 0,
            "critical": 0,
            "warning": 0,
            "info": 0,
        }
        for d in self.devices:
            c[d.status] += 1
            items = d.ranked
            if not items:
                continue
            c["items"] += len(items)
            for k, v in summary(d.causes).items():
                c[k] += v
        return c

    def found(self, device: DeviceResult) -> list[Cause]:
        return device.causes

    def findings_line(self, counts: dict[str, int]) -> str:
        """``5 finding(s) on 6 port(s): 4 critical, 1 warning, 0 info (6 per-port items)``: causes, not items."""
        c = counts
        return (f"{c['findings']} finding(s) on {c['ports']} port(s): {c['critical']} critical, {c['warning']} warning, "
                f"{c['info']} info ({c['items']} per-port item(s))")

    def stale(self) -> bool:
        return bool(self.baseline) and any(f["rule"] == "RC400" for f in self.baseline["findings"])

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.head(),
            "devices": [d.to_dict() for d in self.devices],
            **({"baseline": self.baseline} if self.baseline is not None else {}),
        }


def policy_for(dev: DeviceSpec) -> Policy:
    s = dev.settings
    roce, cnp = s.roce, s.cnp
    return Policy(
        roce_dscp=tuple(roce.dscp) if roce else (),
        cnp_dscp=tuple(cnp.dscp) if cnp else (),
        roce_priority=roce.priority if roce else None,
        cnp_priority=cnp.priority if cnp else None,
        lossless=tuple(s.lossless_priorities),
        roce_path_mtu=s.mtu.roce_path,
        is_host=dev.is_host,
    )


#: what stands for the device's name in a `Shape`'s items (names and paths never hold a NUL character)
SHAPE_DEVICE = "\x00device\x00"


@dataclass(eq=False)
class Shape:
    """What every device of one shape reports (the same desired values, a config parsed to the same values
    by ``Platform.parse_shared``, the same policy): its items with `SHAPE_DEVICE` for the device's name and
    no file, its status, parse warnings and remediation. ``keep`` holds the objects whose ids make the key."""

    status: Status
    items: list[DriftItem]
    parse_warnings: list[dict[str, Any]]
    remediation: list[Remediation]
    keep: tuple[Any, ...]

    def __getstate__(self) -> dict[str, Any]:
        # what travels back from a worker process: not the states kept for the key (a report needs none)
        return {**self.__dict__, "keep": ()}

    def items_for(self, device: str, file: str | None) -> list[DriftItem]:
        """The items as `device` reports them from `file`."""
        new = object.__new__
        items = []
        for i in self.items:  # DriftItem(device, ..., explanation, file, ...): a copy of the plain dataclass
            values = i.__dict__.copy()
            values["device"], values["file"] = device, file
            values["explanation"] = i.explanation.replace(SHAPE_DEVICE, device)
            item = new(DriftItem)
            item.__dict__ = values
            items.append(item)
        return items

    def result(self, dev: DeviceSpec, source: str, file: str | None, actual: DeviceState) -> DeviceResult:
        """`dev`'s result; its items are built when first asked for (``DeviceResult.items``)."""
        res = DeviceResult(
            dev.name,
            dev.platform,
            self.status,
            source,
            parse_warnings=list(self.parse_warnings),
            remediation=list(self.remediation),
            actual=actual,
            shape=self,
        )
        if self.items:
            del res.__dict__["items"]
            res.__dict__["_lazy_items"] = (self, file)
        return res


def _shape_key(
    dev: DeviceSpec, desired: DeviceState, actual: DeviceState, want: dict[str, Any], policy: Policy
) -> tuple:
    """Equal for two devices that report alike but for their name, file and duration: the same wanted and
    desired values (the same objects: one intent entry), actual states sharing their values (the same
    objects: texts equal outside their hostname line) and the same policy. A host's fix renders its
    hostname: hosts are keyed by it (they never share)."""
    d, a = desired, actual
    return (
        dev.platform,
        dev.is_host,
        d.hostname if dev.is_host else None,
        policy,
        id(want),
        id(d.interfaces),
        id(d.dscp_to_tc),
        id(d.pfc_watchdog),
        id(d.ecmp),
        id(d.hints),
        id(a.interfaces),
        id(a.dscp_to_tc),
        id(a.pfc_watchdog),
        id(a.ecmp),
        a.class_mtu,
        d.class_mtu,
        tuple(map(id, a.warnings)),
    )


def evaluate(
    dev: DeviceSpec,
    desired: DeviceState,
    text: str,
    source: str,
    file: str | None,
    want: dict[str, Any] | None = None,
) -> DeviceResult:
    """Parse what was read and compare it with the desired state (`want`: its `wanted()`, if known)."""
    plat = platforms.get(dev.platform)
    memo = _PARSED
    shared = memo is not None and plat.parse_shared is not None
    if shared:
        assert memo is not None and plat.parse_shared is not None
        per = memo.setdefault(plat.name, {})
        keep_newest(per, _MEMO_SIZE)
        actual = plat.parse_shared(text, per)
    else:
        actual = plat.parse(text)
    policy = policy_for(dev)
    shapes, key = _SHAPES, None
    if shared and shapes is not None and want is not None:
        key = _shape_key(dev, desired, actual, want, policy)
        hit = shapes.get(key)
        if hit is not None:  # the first device of the shape was found to have RoCE content
            return hit.result(dev, source, file, actual)
    warnings = [{"line": w.line, "message": w.message, "code": w.code} for w in actual.warnings]
    if not has_content(actual) and has_content(desired):
        first = "; ".join(w["message"] for w in warnings[:2])
        return DeviceResult(
            dev.name,
            dev.platform,
            "unknown",
            source,
            reason=f"read {len(text)} bytes but found no RoCE configuration to compare"
            + (f" ({first})" if first else ""),
            parse_warnings=warnings,
            actual=actual,
        )
    items = _ranked(compare(desired, actual, policy, dev.name, file, want=want, shared=shared))
    blocking = [i for i in items if i.severity != "info"]
    res = DeviceResult(
        dev.name,
        dev.platform,
        "drift" if blocking else "in_sync",
        source,
        items=items,
        parse_warnings=warnings,
        actual=actual,
    )
    if blocking:
        res.remediation = remediation(desired, blocking, dev.is_host, actual, text)
    if key is not None and shapes is not None and not any(r.manual for r in res.remediation):
        # by-hand notes name the device's file: those devices are reported one by one
        assert want is not None
        tmpl = _ranked(compare(desired, actual, policy, SHAPE_DEVICE, None, want=want, shared=shared))
        shape = Shape(res.status, tmpl, warnings, res.remediation, (desired, actual, want))
        if shape.result(dev, source, file, actual).to_dict() == res.to_dict():  # builds its items
            keep_newest(shapes, _MEMO_SIZE)
            shapes[key] = shape
            res.shape = shape
    return res


def _ranked(items: list[DriftItem]) -> list[DriftItem]:
    """Blocking items first (most harmful first, as `compare` ranks them), then the informational ones."""
    return [i for i in items if i.severity != "info"] + [i for i in items if i.severity == "info"]


def audit_device(
    fab: Fabric,
    name: str,
    *,
    save_dir: str | Path | None = None,
    target: Target | None = None,
    configs: str | Path | None = None,
    timeout: float = 10.0,
    retries: int = 2,
    source: str = "",
    desired: DeviceState | None = None,
    want: dict[str, Any] | None = None,
    root: Path | None = None,
) -> DeviceResult:
    """Audit one device of the fabric, live (target) or from a saved config (configs). Never raises for
    device problems: they come back as status ``unknown`` with the reason. `desired` is the device's
    ``expressible(desired_state(dev))`` and `want` its ``wanted()`` when the caller has them already;
    `root` the configs directory resolved."""
    dev = fab.devices[name]
    if desired is None:
        desired = expressible(desired_state(dev))
    t0 = time.monotonic()
    try:
        if configs is not None:
            text, path = read_backup(configs, name, dev.platform, root)
            res = evaluate(dev, desired, text, str(path), str(path), want)
            res.attempts = 1
        else:
            if target is None:
                raise CollectError("not in the inventory", retry=False)
            if target.problem:
                raise CollectError(target.problem, retry=False)
            if target.platform != dev.platform:
                raise CollectError(
                    f"inventory says platform {target.platform}, intent says {dev.platform}", retry=False
                )
            text, attempts = read_with_retries(target, desired, timeout, retries)
            if save_dir is not None:  # a backup that `--configs` can audit later, without the device's secrets
                from roceconf.compile import output_name, write_outputs
                from roceconf.redact import redact

                write_outputs({output_name(name, dev.platform): redact(text)}, save_dir, private=True)
            where = f"{target.host}:{target.port}" if target.port else target.host
            res = evaluate(dev, desired, text, where, f"{name}:running-config", want)
            res.attempts = attempts
    except CollectError as e:
        res = DeviceResult(name, dev.platform, "unknown", source or str(configs or ""), reason=str(e))
    except Exception as e:  # noqa: BLE001 - one broken device never stops the audit
        msg = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
        res = DeviceResult(name, dev.platform, "unknown", source, reason=target.scrub(msg) if target else msg)
    res.seconds = time.monotonic() - t0
    log.info(
        "%s: %s after %d attempt(s) in %.3f s%s",
        name,
        res.status,
        res.attempts,
        res.seconds,
        f" ({res.reason})" if res.reason else f", {len(res.ranked)} drift item(s)",
    )
    return res


def audit(fab: Fabric, *, configs: str | Path | None = None, **kwargs: Any) -> DriftReport:
    """Audit the fabric's devices (live from ``inventory``, or saved ``configs``; see ``_audit``). Saved configs
    are read under the directory's lock, so a render into it never shows half applied."""
    with shared_work():
        if configs is None:
            return _audit(fab, **kwargs)
        with outdir.reading(configs):
            return _audit(fab, configs=configs, **kwargs)


#: parse memos of the running audit, per platform (see ``Platform.parse_shared``); None outside an audit
_PARSED: dict[str, dict] | None = None
#: the most texts a parse memo keeps per platform (each keeps its parsed state alive), and shapes the
#: audit keeps
_MEMO_SIZE = 64
#: the shapes of the running audit (see ``Shape``); None outside one
_SHAPES: dict[tuple, Shape] | None = None


@contextmanager
def shared_work() -> Iterator[None]:
    """One audit: devices of one intent entry (equal desired values) whose configs differ only by what a
    platform knows is identity (the hostname) are parsed, compared and given their fix once; each device
    still gets its own items, lines and report. The parsed states and items of such devices share their
    read-only values."""
    global _PARSED, _SHAPES
    prev, _PARSED = _PARSED, {}
    prev_shapes, _SHAPES = _SHAPES, {}
    try:
        with shared_fixes(), shared_compares():
            yield
    finally:
        _PARSED, _SHAPES = prev, prev_shapes


def _audit(
    fab: Fabric,
    *,
    inventory: str | Path | None = None,
    configs: str | Path | None = None,
    device: str | list[str] | None = None,
    workers: int = 8,
    timeout: float = 10.0,
    retries: int = 2,
    progress: Callable[[DeviceResult, int, int], None] | None = None,
    credentials: tuple[str, str] | None = None,
    save_dir: str | Path | None = None,
    ca_file: str | None = None,
    verify_tls: bool | None = None,
) -> DriftReport:
    """Audit the devices of the fabric (all, or ``device``) live through ``inventory`` or from ``configs``.
    ``ca_file`` / ``verify_tls`` override the inventory's eAPI certificate settings for every device."""
    if (inventory is None) == (configs is None):
        raise ValueError("give exactly one of inventory or configs")
    # ``device``: one name, or a list of names (a slice, roceconf.slices)
    chosen = None if device is None else {device} if isinstance(device, str) else set(device)
    names = [n for n in sorted(fab.devices, key=natural_key) if chosen is None or n in chosen]
    if isinstance(device, str) and not names:
        raise CollectError(f"no device named '{device}' in the intent", retry=False)
    targets: dict[str, Target] = load_inventory(inventory) if inventory is not None else {}
    if credentials is not None:
        for t in targets.values():
            t.username, t.password = credentials
    for t in targets.values():
        if ca_file is not None:
            t.ca_file = ca_file
        if verify_tls is not None:
            t.verify = verify_tls
    source = f"inventory {inventory}" if inventory is not None else f"configs {configs}"
    results: dict[str, DeviceResult] = {}
    total = len(names)
    # what every device is compared with, built once per shape (thousands of identical leaves: one)
    desired = expressible_states(fab, only=device if isinstance(device, str) else None)
    wants: dict[tuple, dict[str, Any]] = {}
    want: dict[str, dict[str, Any]] = {}
    for n in names:
        # the devices of one shape share their desired values (the same objects): what `wanted` reads
        d = desired[n]
        key = (d.platform, id(d.dscp_to_tc), id(d.interfaces), id(d.pfc_watchdog), id(d.ecmp), d.class_mtu)
        if key not in wants:
            wants[key] = wanted(desired[n])
        want[n] = wants[key]

    root = Path(configs).resolve() if configs is not None else None

    def one(name: str) -> DeviceResult:
        if configs is not None:
            return audit_device(fab, name, configs=configs, desired=desired[name], want=want[name], root=root)
        return audit_device(
            fab,
            name,
            target=targets.get(name),
            timeout=timeout,
            retries=retries,
            source=source,
            save_dir=save_dir,
            desired=desired[name],
            want=want[name],
        )

    if configs is not None and (workers == 1 or len(names) < 2 * _MIN_CHUNK):
        # saved configs: pure CPU work, nothing to wait for
        with _long_lived_results():
            for i, name in enumerate(names, start=1):
                results[name] = one(name)
                gc.freeze()
                if progress:
                    progress(results[name], i, total)
        return _report(fab, source, names, results)
    if configs is not None and forkmap.available():
        _audit_processes(names, one, min(workers, os.cpu_count() or 1), results, progress)
        return _report(fab, source, names, results)

    deadline = timeout * (retries + 1) * 3 + 5 * (retries + 1)

    def hung(n: str) -> DeviceResult:
        return DeviceResult(
            n,
            fab.devices[n].platform,
            "unknown",
            source,
            reason=f"no result within {deadline:g} s (device hung)",
        )

    results.update(run_pool(names, one, workers=workers, deadline=deadline, hung=hung, progress=progress))
    return _report(fab, source, names, results)


def run_pool(
    names: list[str],
    one: Callable[[str], Any],
    *,
    workers: int,
    deadline: float,
    hung: Callable[[str], Any],
    progress: Callable[[Any, int, int], None] | None = None,
    prefix: str = "roceconf-audit",
) -> dict[str, Any]:
    """Run ``one(name)`` for every device in a bounded thread pool (live reads wait on the network); a
    device whose call outlives ``deadline`` seconds per round of ``workers`` devices is reported as
    ``hung(name)`` and its thread is abandoned. Results (objects with a ``device`` attribute) by name."""
    results: dict[str, Any] = {}
    total = len(names)
    pool = cf.ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=prefix)
    try:
        futs = {pool.submit(one, n): n for n in names}
        done_count = 0
        pending = set(futs)
        start = time.monotonic()
        while pending:
            finished, pending = cf.wait(pending, timeout=1.0, return_when=cf.FIRST_COMPLETED)
            for f in finished:
                r = f.result()
                results[r.device] = r
                done_count += 1
                if progress:
                    progress(r, done_count, total)
            # a device that hangs past every timeout is reported unknown; its thread is abandoned
            for f in list(pending):
                if time.monotonic() - start > deadline * max(1, -(-len(names) // max(1, workers))):
                    n = futs[f]
                    pending.discard(f)
                    f.cancel()
                    r = hung(n)
                    results[n] = r
                    done_count += 1
                    if progress:
                        progress(r, done_count, total)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return results


def _report(fab: Fabric, source: str, names: list[str], results: dict[str, DeviceResult]) -> DriftReport:
    return DriftReport(
        intent=fab.file,
        source=source,
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        devices=[results[n] for n in names],
    )


#: devices per task of a process pool (the pickled results of a chunk travel back together)
_MIN_CHUNK = 16


@contextmanager
def _long_lived_results() -> Iterator[None]:
    """Inside, the caller calls ``gc.freeze()`` after each device: the results so far (parsed states,
    items) live until the report is written, so the cyclic collector need not walk them again for every
    later device (walking a growing heap made an audit of thousands of devices superlinear). At the end
    the heap is unfrozen again, unless someone else had frozen it before."""
    ours = gc.get_freeze_count() == 0
    try:
        yield
    finally:
        if ours:
            gc.unfreeze()


def _audit_processes(
    names: list[str],
    one: Callable[[str], DeviceResult],
    procs: int,
    results: dict[str, DeviceResult],
    progress: Callable[[DeviceResult, int, int], None] | None,
) -> None:
    """Parse and compare saved configs on `procs` forked processes (roceconf.forkmap); only device names and
    results travel, each without its parsed state (a report does not show it)."""

    def stripped(n: str) -> DeviceResult:
        r = one(n)
        r.actual = None
        return r

    procs = max(1, min(procs, len(names) // _MIN_CHUNK))
    for done, r in enumerate(forkmap.forked_map(stripped, names, procs, _MIN_CHUNK, 256), start=1):
        results[r.device] = r
        if progress:
            progress(r, done, len(names))


def plain_progress(stream: Any = sys.stderr) -> Callable[[DeviceResult, int, int], None]:
    def cb(r: DeviceResult, i: int, n: int) -> None:
        found = len(r.ranked)
        extra = f" ({r.reason})" if r.reason else (f" ({found} item(s))" if found else "")
        from roceconf.reports.escape import plain

        print(plain(f"[{i}/{n}] {r.device}: {r.status}{extra}"), file=stream, flush=True)

    return cb


__all__ = ["DeviceResult", "DriftReport", "audit", "evaluate", "plain_progress", "run_pool", "Path"]
