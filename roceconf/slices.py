"""Sliced runs: one audit (drift, health, bom, cabling) split over N jobs the way AWX / Automation Platform slices a
job template, each slice writing its own result directory, and the merge of those directories into the one
fabric report the unsliced run writes.

**The slicing rule is AWX's.** A sliced job template runs N jobs; job K (1-based) sees the inventory's hosts
ordered by name and takes every N-th of them starting at K: ``hosts[K-1::N]`` (AWX
``awx/main/models/inventory.py``: ``Inventory.get_script_data`` orders the enabled hosts with
``order_by('name')`` and ``get_sliced_hosts`` returns ``host_queryset[slice_number - 1::slice_count]`` when
``slice_count > 1``). :func:`awx_slice` does the same on the inventory's host names, so ``--slice 2/3`` covers
the hosts AWX gives slice 2 of 3. Names are ordered by code point here; AWX orders with its database's
collation, which agrees for the usual host names (one letter case, letters and digits, the same separators).
Without an inventory (``drift --configs``) the intent's device names are sliced.

**A slice reports only its devices.** The intent's other devices are not its findings and not its unknowns.
A result directory holds the slice's report (``drift.json``, ``health.json`` plus ``counters/``,
``bom.json``, or ``cabling.json`` plus ``counters/`` when link counters were sampled) and ``slice.json``:
which run, which slice, which devices it was responsible for.

**The merge** (:func:`merge`) takes the union of the slices' devices, checks that no device is reported twice,
and builds the report the unsliced run writes: the same devices, items, counts and exit code (timestamps and
durations aside). Health is evaluated again from every slice's raw counters, so the checks that need both ends
of a link (RC310, pauses a partner sent but this end did not count) see both ends even when they were read by
different slices. Cabling is judged again from every slice's LLDP neighbours (kept in its ``cabling.json``)
and raw link counters: a link whose two ends were read by different slices, a miswire seen from two slices,
unexpected neighbours and the ECMP groups are judged on the merged data, as the unsliced run judges them.
Drift and the BOM have no check across devices: their merge is the union. A device of the
intent that no slice reported is ``unknown`` (a slice missing, a job that failed before writing, a device the
inventory lacks): a missing slice never merges into a green report.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from roceconf.names import natural_key

SLICE_FILE = "slice.json"
REPORT_FILE = {"drift": "drift.json", "health": "health.json", "bom": "bom.json", "cabling": "cabling.json"}
COUNTERS_DIR = "counters"
FORMAT_VERSION = 1
#: why a device of the intent is in no slice's results
NOT_IN_ANY_SLICE = "in no slice's results (a slice is missing or failed, or the inventory lacks the device)"


class SliceError(ValueError):
    """Bad slice specification or result directory: one line for the user (exit 2)."""


def parse_slice(text: str) -> tuple[int, int]:
    """``K/N`` (or AWX's own spelling ``sliceKofN``) -> (K, N) with 1 <= K <= N."""
    m = re.fullmatch(r"\s*(?:(\d+)\s*/\s*(\d+)|slice(\d+)of(\d+))\s*", text or "")
    if not m:
        raise SliceError(f"--slice {text!r}: expected K/N (slice K of N, e.g. 2/3)")
    k, n = (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)), int(m.group(4)))
    if n < 1 or not 1 <= k <= n:
        raise SliceError(f"--slice {text!r}: K must be between 1 and N (N >= 1)")
    return k, n


def awx_slice(hosts: list[str] | set[str] | tuple[str, ...], number: int, count: int) -> list[str]:
    """AWX's slice ``number`` of ``count`` of ``hosts``: sorted by name, ``[number-1::count]``."""
    ordered = sorted(set(hosts))
    if count > 1 and number > 0:
        return ordered[number - 1 :: count]
    return ordered


def slice_devices(intent_devices: list[str], inventory_hosts: list[str] | None, number: int, count: int) -> list[str]:
    """The intent's devices of slice ``number`` of ``count`` (the inventory's hosts are sliced, as AWX does;
    without an inventory the intent's names), in report order."""
    picked = set(awx_slice(inventory_hosts if inventory_hosts is not None else intent_devices, number, count))
    return sorted((n for n in intent_devices if n in picked), key=natural_key)


def dirname(number: int, count: int) -> str:
    """A CLI slice's result directory: AWX's spelling of the slice (``slice2of3``)."""
    return f"slice{number}of{count}"


def job_dirname(job_id: str) -> str:
    """An AWX job's result directory (``job-<awx_job_id>``; only letters, digits, ``-`` and ``_``)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", str(job_id)):
        raise SliceError(f"job id {str(job_id)[:40]!r}: expected letters, digits, '-' or '_'")
    return f"job-{job_id}"


def slice_meta(
    kind: str,
    intent: str,
    devices: list[str],
    *,
    number: int | None = None,
    count: int | None = None,
    job_id: str | None = None,
    workflow_job_id: str | None = None,
) -> dict[str, Any]:
    """The content of ``slice.json``."""
    return {
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "intent": intent,  # as given (the report shows it so)
        "intent_file": str(Path(intent).resolve()) if intent else "",  # what the merge loads
        "slice": {"number": number, "count": count} if number is not None else None,
        "awx_job_id": job_id,
        "awx_workflow_job_id": workflow_job_id,
        "devices": list(devices),
    }


def write_slice(folder: str | Path, meta: dict[str, Any], report_text: str) -> Path:
    """Write one slice's result directory (its report, then ``slice.json``, each atomically)."""
    from roceconf.outdir import write_outputs

    d = Path(folder)
    write_outputs({REPORT_FILE[meta["kind"]]: report_text}, d)
    write_outputs({SLICE_FILE: json.dumps(meta, indent=1) + "\n"}, d)
    return d


# --------------------------------------------------------------------------------------------- merge
@dataclass
class Slice:
    folder: Path
    meta: dict[str, Any]
    report: dict[str, Any]

    @property
    def label(self) -> str:
        s = self.meta.get("slice") or {}
        if s.get("number") is not None:
            return f"slice {s['number']} of {s['count']} ({self.folder})"
        if self.meta.get("awx_job_id") is not None:
            return f"job {self.meta['awx_job_id']} ({self.folder})"
        return str(self.folder)


@dataclass
class Merged:
    kind: str
    report: Any  # DriftReport, HealthReport or the BOM dict
    fab: Any
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.kind == "bom":
            return 3 if any(d["status"] != "read" for d in self.report["devices"].values()) else 0
        return int(self.report.exit_code)


def _json(path: Path, what: str) -> dict[str, Any]:
    if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
        raise SliceError(f"{path}: not a regular file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SliceError(f"{path}: no {what} (not a complete slice result directory)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SliceError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    except ValueError as e:
        raise SliceError(f"{path}: not JSON ({e})") from None
    if not isinstance(data, dict):
        raise SliceError(f"{path}: not a JSON object")
    return data


def find_slices(dirs: list[str | Path]) -> list[Slice]:
    """Every result directory named, or found one level below a directory named (``slice.json`` in it)."""
    found: list[Path] = []
    for given in dirs:
        d = Path(given)
        if not d.is_dir():
            raise SliceError(f"{given}: not a directory")
        if (d / SLICE_FILE).is_file():
            found.append(d)
            continue
        below = sorted(p.parent for p in d.glob(f"*/{SLICE_FILE}") if p.is_file())
        if not below:
            raise SliceError(f"{given}: no {SLICE_FILE} in it or in its subdirectories (no slice results)")
        found.extend(below)
    out: list[Slice] = []
    seen: set[Path] = set()
    for d in found:
        if d.resolve() in seen:
            continue
        seen.add(d.resolve())
        meta = _json(d / SLICE_FILE, SLICE_FILE)
        kind = meta.get("kind")
        if kind not in REPORT_FILE:
            raise SliceError(f"{d / SLICE_FILE}: field 'kind': expected drift, health, bom or cabling, got {kind!r}")
        devices = meta.get("devices")
        if not isinstance(devices, list) or not all(isinstance(x, str) for x in devices):
            raise SliceError(f"{d / SLICE_FILE}: field 'devices': expected a list of device names")
        report = _json(d / REPORT_FILE[kind], REPORT_FILE[kind])
        out.append(Slice(d, meta, report))
    return out


def _report_devices(s: Slice) -> list[tuple[str, dict[str, Any]]]:
    devs = s.report.get("devices")
    where = s.folder / REPORT_FILE[s.meta["kind"]]
    if isinstance(devs, dict):  # the BOM: name -> entry
        items = list(devs.items())
    elif isinstance(devs, list):
        items = [(d.get("device"), d) if isinstance(d, dict) else (None, d) for d in devs]
    else:
        raise SliceError(f"{where}: field 'devices': missing or not a list")
    for name, d in items:
        if not isinstance(name, str) or not isinstance(d, dict):
            raise SliceError(f"{where}: field 'devices': an entry without a device name")
    return items  # type: ignore[return-value]


def merge(dirs: list[str | Path], intent: str | None = None) -> Merged:
    """Merge slice result directories into one report (see the module docstring). ``intent`` overrides the
    intent path the slices recorded. SliceError for inconsistent or unreadable results; DiagnosticError /
    OSError for an invalid intent."""
    from roceconf.compile import load_valid

    slices = find_slices(dirs)
    kinds = {s.meta["kind"] for s in slices}
    if len(kinds) > 1:
        raise SliceError("the directories hold results of different commands: " + ", ".join(sorted(kinds)))
    kind = kinds.pop()
    shown = {str(s.meta.get("intent") or "") for s in slices}
    if intent is None:
        paths = {str(s.meta.get("intent_file") or "") for s in slices}
        if len(paths) != 1 or "" in paths:
            raise SliceError("the slices name different intents (or none): give --intent FILE")
        intent = paths.pop()
    fab = load_valid(intent)
    title = shown.pop() if len(shown) == 1 else fab.file
    notes: list[str] = []
    counts = {(s.meta.get("slice") or {}).get("count") for s in slices} - {None}
    if len(counts) > 1:
        raise SliceError(f"the slices were cut for different slice counts: {sorted(counts)}")
    if counts:
        n = counts.pop()
        have = {(s.meta.get("slice") or {}).get("number") for s in slices}
        missing = [k for k in range(1, n + 1) if k not in have]
        if missing:
            notes.append(f"slice(s) {', '.join(map(str, missing))} of {n} missing: their devices are unknown")
    owner: dict[str, Slice] = {}
    per_slice: list[tuple[Slice, list[tuple[str, dict[str, Any]]]]] = []
    for s in slices:
        items = _report_devices(s)
        for name, _ in items:
            if name not in fab.devices:
                raise SliceError(f"{s.folder / REPORT_FILE[kind]}: device '{name}' is not in the intent {intent}")
            if name in owner:
                raise SliceError(f"device '{name}' is in two slices: {owner[name].label} and {s.label}")
            owner[name] = s
        per_slice.append((s, items))
    for s in slices:
        for name in s.meta["devices"]:
            if name not in owner and name in fab.devices:
                notes.append(f"{s.label} was to report {name} but did not: unknown")
    sources = sorted({str(s.report.get("source") or "") for s in slices})
    source = sources[0] if len(sources) == 1 else "slices: " + "; ".join(sources)
    if kind == "drift":
        report = _merge_drift(fab, per_slice, source)
        report.intent = title
    elif kind == "health":
        report = _merge_health(fab, per_slice, source)
        report.intent = title
    elif kind == "cabling":
        report = _merge_cabling(fab, per_slice, source)
        report.intent = title
    else:
        report = _merge_bom(fab, per_slice)
        report["intent"] = title
    return Merged(kind, report, fab, notes)


def _merge_drift(fab: Any, per_slice: list[tuple[Slice, list[tuple[str, dict[str, Any]]]]], source: str) -> Any:
    from roceconf.drift.audit import DeviceResult, DriftReport
    from roceconf.drift.compare import DriftItem
    from roceconf.drift.remediate import Remediation

    results: dict[str, DeviceResult] = {}
    for s, items in per_slice:
        for name, d in items:
            try:
                results[name] = DeviceResult(
                    device=name,
                    platform=str(d["platform"]),
                    status=d["status"],
                    source=str(d.get("source") or ""),
                    reason=d.get("reason"),
                    items=[DriftItem(**i) for i in d.get("items") or []],
                    parse_warnings=list(d.get("parse_warnings") or []),
                    remediation=[Remediation(**r) for r in d.get("remediation") or []],
                    attempts=int(d.get("attempts") or 0),
                    seconds=float(d.get("seconds") or 0.0),
                )
            except (KeyError, TypeError, ValueError) as e:
                raise SliceError(f"{s.folder / 'drift.json'}: device '{name}': not a drift result ({e})") from None
            if results[name].status not in ("in_sync", "drift", "unknown"):
                raise SliceError(f"{s.folder / 'drift.json'}: device '{name}': field 'status': {d['status']!r}")
    devices = []
    for n in sorted(fab.devices, key=natural_key):
        devices.append(results.get(n) or DeviceResult(n, fab.devices[n].platform, "unknown", "", NOT_IN_ANY_SLICE))
    return DriftReport(intent=fab.file, source=source, generated_at=_now(), devices=devices)


def _merge_health(fab: Any, per_slice: list[tuple[Slice, list[tuple[str, dict[str, Any]]]]], source: str) -> Any:
    from roceconf.drift.collect import CollectError
    from roceconf.health.collect import SAVED_SUFFIX, load_saved
    from roceconf.health.evaluate import evaluate

    snaps: dict[str, Any] = {}
    errors: dict[str, str] = {}
    meta: dict[str, dict[str, Any]] = {}
    for s, items in per_slice:
        counters = s.folder / COUNTERS_DIR
        for name, d in items:
            meta[name] = {
                "attempts": int(d.get("attempts") or 0),
                "seconds": float(d.get("seconds") or 0.0),
                "source": str(d.get("source") or ""),
            }
            if d.get("status") == "unknown":
                errors[name] = str(d.get("reason") or "unknown")
                continue
            try:
                snaps[name] = load_saved(counters / (name + SAVED_SUFFIX), fab.devices[name])
            except CollectError as e:
                errors[name] = f"{s.label}: {e}"
    for n in fab.devices:
        if n not in snaps and n not in errors:
            errors[n] = NOT_IN_ANY_SLICE
    return evaluate(fab, snaps, errors, source=source, meta=meta)


def _merge_cabling(fab: Any, per_slice: list[tuple[Slice, list[tuple[str, dict[str, Any]]]]], source: str) -> Any:
    """Cabling judged again on the union of the slices' LLDP neighbours (and raw link counters, when the slices
    sampled them), so both ends of every link, the unexpected neighbours and the ECMP groups are judged as the
    unsliced run judges them."""
    from roceconf.cabling.collect import no_link_reader, with_links
    from roceconf.cabling.verdict import DeviceLldp, evaluate
    from roceconf.drift.collect import CollectError
    from roceconf.health.collect import SAVED_SUFFIX, load_saved
    from roceconf.neighbors import Neighbor

    sampled = {"counters_unread" in s.report for s, _ in per_slice}
    if len(sampled) > 1:
        raise SliceError("some cabling slices sampled link counters and others did not: cut them alike")
    counters = sampled.pop()
    joined = {json.dumps(s.meta.get("joined") or {}, sort_keys=True) for s, _ in per_slice}
    if len(joined) > 1:
        raise SliceError("the cabling slices joined different --health / --drift reports: cut them alike")
    read: dict[str, DeviceLldp] = {}
    snaps: dict[str, list[Any]] = {}
    unread: dict[str, str] = {}
    for s, items in per_slice:
        where = s.folder / REPORT_FILE["cabling"]
        counters_unread = s.report.get("counters_unread") or {}
        if not isinstance(counters_unread, dict):
            raise SliceError(f"{where}: field 'counters_unread': expected an object")
        for name, d in items:
            rows = d.get("neighbours") or []
            if not isinstance(rows, list) or not all(
                    isinstance(n, dict) and all(isinstance(v, str) for v in n.values()) for n in rows):
                raise SliceError(f"{where}: device '{name}': field 'neighbours': expected a list of objects of strings")
            try:
                read[name] = DeviceLldp(
                    device=name,
                    platform=str(d["platform"]),
                    status=str(d["status"]),
                    reason=None if d.get("reason") is None else str(d["reason"]),
                    neighbours=[Neighbor(**n) for n in rows],
                    warnings=[str(w) for w in d.get("warnings") or []],
                    source=str(d.get("source") or ""),
                )
            except (KeyError, TypeError, ValueError) as e:
                raise SliceError(f"{where}: device '{name}': not a cabling result ({e})") from None
            if read[name].status not in ("read", "unknown"):
                raise SliceError(f"{where}: device '{name}': field 'status': {d['status']!r}")
            if read[name].platform != fab.devices[name].platform:
                raise SliceError(f"{where}: device '{name}': platform {read[name].platform!r}, the intent says "
                                 f"{fab.devices[name].platform}")
            if not counters:
                continue
            if no_link_reader(fab.devices[name]):
                snaps[name] = []
            elif name in counters_unread:
                unread[name] = str(counters_unread[name])
            else:
                try:
                    snaps[name] = load_saved(s.folder / COUNTERS_DIR / (name + SAVED_SUFFIX), fab.devices[name])
                except CollectError as e:
                    unread[name] = f"{s.label}: {e}"
    for n in fab.devices:
        if n not in read:
            read[n] = DeviceLldp(n, fab.devices[n].platform, status="unknown", reason=NOT_IN_ANY_SLICE)
            if counters:
                if no_link_reader(fab.devices[n]):
                    snaps[n] = []
                else:
                    unread[n] = NOT_IN_ANY_SLICE
    report = evaluate(fab, read, source)
    if not counters:
        return report
    paths = per_slice[0][0].meta.get("joined") or {}
    try:
        report = with_links(report, fab, snaps, unread, health=paths.get("health"), drift=paths.get("drift"))
    except CollectError as e:
        raise SliceError(f"a report the slices joined: {e}") from None
    shown = per_slice[0][0].report.get("joined")
    if isinstance(shown, dict):  # the names as the slices' command lines gave them
        report.joined = {k: str(shown.get(k, v)) for k, v in report.joined.items()}
    return report


def _merge_bom(fab: Any, per_slice: list[tuple[Slice, list[tuple[str, dict[str, Any]]]]]) -> dict[str, Any]:
    from roceconf.acceptance.bom import FORMAT_VERSION as BOM_VERSION
    from roceconf.acceptance.bom import config_hash

    got: dict[str, dict[str, Any]] = {}
    for _, items in per_slice:
        for name, d in items:
            got[name] = d
    devices = {}
    for n in sorted(fab.devices, key=natural_key):
        devices[n] = got.get(n) or {
            "platform": fab.devices[n].platform,
            "config_sha256": config_hash(fab, n),
            "status": "unknown",
            "reason": NOT_IN_ANY_SLICE,
            "facts": None,
        }
    return {
        "format_version": BOM_VERSION,
        "generated_at": _now(),
        "intent": fab.file,
        "fabric": fab.intent.fabric,
        "devices": devices,
    }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = [
    "Merged",
    "SliceError",
    "awx_slice",
    "dirname",
    "find_slices",
    "job_dirname",
    "merge",
    "parse_slice",
    "slice_devices",
    "slice_meta",
    "write_slice",
]
