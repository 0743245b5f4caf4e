"""SONiC CONFIG_DB -> YANG JSON (RFC 7951) the way SONiC translates it, and validation with ``yanglint``.

SONiC validates CONFIG_DB against its own YANG models (sonic-net/sonic-buildimage
``src/sonic-yang-models``) by translating the CONFIG_DB JSON to YANG JSON first:
``src/sonic-yang-mgmt/sonic_yang_ext.py`` ``_xlateConfigDBtoYang`` / ``_xlateContainer`` / ``_xlateList`` /
``_xlateType1MapList`` / ``_findYangTypedValue``. This module follows those functions (read, not copied):

* a table is the container of that name inside a module's top-level container, emitted as
  ``"<module>:<top>": {"<TABLE>": {"<TABLE>_LIST": [...]}}``;
* each CONFIG_DB key is split at ``|`` onto the list's keys (the count must match); with several lists in
  the container, an entry goes to the first list whose keys and fields it fits;
* "type 1" map lists (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, ...) turn ``{"26": "3"}`` into the inner list
  ``[{"dscp": "26", "tc": 3}]``;
* a value becomes a JSON number when its leaf's own base type is ``uint*``, otherwise it stays a string;
  a field that is no leaf of its list is an error ("All Keys are not parsed").

``config load`` merges a fragment into the running CONFIG_DB; :func:`merge` does the same onto a base
(the device's PORT table), and the result is what is validated. The YANG schema comes from
``yanglint -f info`` (compiled: typedefs resolved), parsed by :mod:`roceconf.yangtext`.
"""

from __future__ import annotations

import copy
import functools
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roceconf.yangtext import ENV_MODELS, Node, parse_info, parse_statements, vendor_models

#: sonic_yang_ext.py Type_1_list_maps_model: lists whose CONFIG_DB entry is a plain key -> value map.
TYPE1_LISTS = frozenset(
    {
        "DSCP_TO_TC_MAP_LIST",
        "DOT1P_TO_TC_MAP_LIST",
        "TC_TO_PRIORITY_GROUP_MAP_LIST",
        "TC_TO_QUEUE_MAP_LIST",
        "MAP_PFC_PRIORITY_TO_QUEUE_LIST",
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST",
        "DSCP_TO_FC_MAP_LIST",
        "EXP_TO_FC_MAP_LIST",
        "CABLE_LENGTH_LIST",
        "MPLS_TC_TO_TC_MAP_LIST",
        "TC_TO_DSCP_MAP_LIST",
    }
)


class TranslateError(ValueError):
    """A CONFIG_DB fragment SONiC's translator cannot map onto the YANG models."""


def models_dir() -> Path | None:
    base = vendor_models()
    d = base / "sonic-yang" if base else None
    return d if d is not None and d.is_dir() else None


def unavailable_reason() -> str | None:
    if vendor_models() is None:
        return f"vendor models not found (../shared/vendor-models beside the repository, or ${ENV_MODELS})"
    if models_dir() is None:
        return "vendor-models/sonic-yang is missing"
    if shutil.which("yanglint") is None:
        return "yanglint not installed (Debian libyang2-tools, see debian-packages.txt)"
    return None


@functools.cache
def table_modules(d: str) -> dict[str, tuple[str, str]]:
    """CONFIG_DB table -> (module, top-level container), from the YANG sources."""
    out: dict[str, tuple[str, str]] = {}
    for f in sorted(Path(d).glob("*.yang")):
        for mod in parse_statements(f.read_text(encoding="utf-8")):
            if mod.keyword != "module" or mod.arg is None:
                continue
            for top in mod.all("container"):
                for table in top.all("container"):
                    if table.arg:
                        out.setdefault(table.arg, (mod.arg, top.arg or mod.arg))
    return out


@functools.cache
def table_schema(d: str, module: str, table: str) -> Node:
    """The compiled YANG container of one table (``yanglint -f info -P /<module>:<top>/<TABLE>``)."""
    top = table_modules(d)[table][1]
    res = subprocess.run(
        [
            "yanglint",
            "-p",
            d,
            "-f",
            "info",
            "-P",
            f"/{module}:{top}/{table}",
            str(Path(d) / f"{module}.yang"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    nodes = parse_info(res.stdout) if res.returncode == 0 else []
    if not nodes:
        raise TranslateError(f"yanglint cannot print {module}:{table}: {res.stderr.strip()[:200]}")
    return nodes[0]


def _typed(leaf: Node, value: Any) -> Any:
    """sonic_yang_ext._findYangTypedValue: uint* leaves become numbers, everything else a string."""

    def one(v: Any) -> Any:
        v = str(v)
        base = leaf.type.base if leaf.type is not None else "string"
        if base == "uint64":
            # RFC 7951 section 6.1: 64-bit integers are JSON strings; libyang 2.1 rejects a number here
            # (sonic_yang_ext writes every uint* as a number: its libyang build is lenient)
            return v
        if base == "boolean" and v in ("true", "false"):
            # RFC 7951 section 6.3: JSON true/false (CONFIG_DB stores the strings)
            return v == "true"
        return int(v, 10) if "uint" in base else v

    if leaf.kind == "leaf-list":
        vals = value if isinstance(value, list) else [x.strip() for x in str(value).split(",")]
        return [one(v) for v in vals if v != ""]
    return one(value)


def _list_entry(lst: Node, key: str, fields: Any) -> dict[str, Any]:
    parts = key.split("|")
    if len(parts) != len(lst.keys):
        raise TranslateError(f"key {key!r} does not fit {lst.name} keys {' '.join(lst.keys)}")
    entry: dict[str, Any] = {}
    for k, v in zip(lst.keys, parts, strict=True):
        entry[k] = _typed(lst.children[k], v.strip())
    if lst.name in TYPE1_LISTS:
        inner = next((c for c in lst.children.values() if c.kind == "list"), None)
        if inner is None or not isinstance(fields, dict):
            raise TranslateError(f"{lst.name}: not a map")
        ik = inner.keys[0]
        iv = next(c for c in inner.children if c != ik)
        entry[inner.name] = [
            {ik: _typed(inner.children[ik], a), iv: _typed(inner.children[iv], b)} for a, b in fields.items()
        ]
        return entry
    if not isinstance(fields, dict):
        raise TranslateError(f"{lst.name}|{key}: entry is not an object")
    for f, v in fields.items():
        leaf = lst.children.get(f)
        if leaf is None or leaf.kind not in ("leaf", "leaf-list"):
            raise TranslateError(f"field {f!r} is not a leaf of {lst.name}")
        entry[f] = _typed(leaf, v)
    return entry


def translate(config: dict[str, Any], d: str | Path | None = None) -> dict[str, Any]:
    """CONFIG_DB JSON -> YANG JSON. Raises TranslateError where SONiC's translator would fail."""
    dd = str(d or models_dir())
    mods = table_modules(dd)
    out: dict[str, Any] = {}
    for table, entries in config.items():
        if table not in mods:
            raise TranslateError(f"table {table} has no YANG model")
        module, top = mods[table]
        node = table_schema(dd, module, table)
        lists = [c for c in node.children.values() if c.kind == "list"]
        if len(lists) == 1 and lists[0].name != f"{table}_LIST":
            lists = []
        ytable: dict[str, Any] = {}
        rest = dict(entries)
        errors: list[str] = []
        for lst in lists:
            items = []
            for key in list(rest):
                try:
                    items.append(_list_entry(lst, key, rest[key]))
                except TranslateError as e:
                    errors.append(str(e))
                    continue
                del rest[key]
            if items:
                ytable[lst.name] = items
        for key in list(rest):  # container leaves / inner containers
            child = node.children.get(key)
            if child is not None and child.kind == "container" and isinstance(rest[key], dict):
                inner: dict[str, Any] = {}
                for f, v in rest[key].items():
                    leaf = child.children.get(f)
                    if leaf is None:
                        errors.append(f"field {f!r} is not a leaf of {table}|{key}")
                        break
                    inner[f] = _typed(leaf, v)
                else:
                    ytable[key] = inner
                    del rest[key]
            elif child is not None and child.kind in ("leaf", "leaf-list"):
                ytable[key] = _typed(child, rest[key])
                del rest[key]
        if rest:
            raise TranslateError(
                f"All Keys are not parsed in {table}: {sorted(rest)} ({'; '.join(errors[:3])})"
            )
        out.setdefault(f"{module}:{top}", {})[table] = ytable
    return out


def merge(base: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """What ``config load`` leaves in CONFIG_DB: each given field of each given entry replaces the base's."""
    out = copy.deepcopy(base)
    for table, entries in fragment.items():
        t = out.setdefault(table, {})
        for key, fields in entries.items():
            if isinstance(fields, dict) and isinstance(t.get(key), dict):
                t[key] = {**t[key], **fields}
            else:
                t[key] = copy.deepcopy(fields)
    return out


def base_ports(fragment: dict[str, Any]) -> dict[str, Any]:
    """A base CONFIG_DB PORT table for every port the fragment names (what a running switch has before the
    fragment is loaded: lanes, speed, admin status - sonic-port.yang), in the fragment's key forms."""
    names: set[str] = set()
    for entries in fragment.values():
        for key in entries:
            first = key.split("|")[0]
            if first.startswith("Ethernet"):
                names.add(first)
    ports = {}
    for n in sorted(names, key=lambda x: int("".join(c for c in x if c.isdigit()) or 0)):
        idx = int("".join(c for c in n if c.isdigit()) or 0)
        ports[n] = {
            "lanes": ",".join(str(idx * 8 + i) for i in range(8)),
            "speed": "400000",
            "admin_status": "up",
            "mtu": "9100",
        }
    return {"PORT": ports}


@dataclass
class Result:
    name: str
    ok: bool
    message: str = ""


def validate_many(docs: dict[str, dict[str, Any]], d: str | Path | None = None) -> dict[str, Result]:
    """Validate many YANG JSON documents with one ``yanglint -t config`` run per document batch.

    yanglint stops at the first invalid file, so a failing batch is split until every document has its own
    verdict (valid batches stay whole: the common case is one run for everything)."""
    dd = Path(d or models_dir() or ".")
    schemas = sorted(str(p) for p in dd.glob("*.yang"))
    out: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="roceconf-yang-") as tmp:
        paths: dict[str, Path] = {}
        for i, (name, doc) in enumerate(docs.items()):
            p = Path(tmp) / f"d{i}.json"
            p.write_text(json.dumps(doc))
            paths[name] = p

        def run(names: list[str]) -> None:
            res = subprocess.run(
                ["yanglint", "-Q", "-p", str(dd), "-t", "config", *schemas, *(str(paths[n]) for n in names)],
                capture_output=True,
                text=True,
                check=False,
                timeout=600,
            )
            if res.returncode == 0:
                for n in names:
                    out[n] = Result(n, True)
            elif len(names) == 1:
                msg = " ".join(ln.strip() for ln in res.stderr.splitlines() if ln.startswith("libyang err"))
                out[names[0]] = Result(names[0], False, msg or res.stderr.strip()[:500])
            else:
                half = len(names) // 2
                run(names[:half])
                run(names[half:])

        if paths:
            run(list(paths))
    return out
