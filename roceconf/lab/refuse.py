"""What the simulated NX-OS and NVUE devices refuse, as the real ones do (docs/conformance.md, "refused").

The lab stores whatever a client sends; without these checks a live test could pass on a configuration a
switch rejects. Each rule is a documented grammar fact (keyword set or value range) with its source:

* NX-OS: ``priority-flow-control watch-dog-interval on|off`` (Cisco N9K QoS guide; other values are not
  its grammar); interface / network-qos ``mtu`` 576-9216 (Cisco N9K interfaces guide 10.2(x));
  ``pause pfc-cos`` and ``set qos-group`` 0-7 (Cisco N9K QoS guide). Error: ``% Invalid command at '^'
  marker.`` as NX-OS prints it.
* NVUE: ``system forwarding ecmp-hash <field>`` takes ``enabled|disabled`` from Cumulus Linux 5.15 and
  ``on|off`` before ("New and Changed NVUE Commands", 5.15); ``interface <p> link mtu`` 552-9216,
  ``qos pfc-watchdog polling-interval`` 100-5000 and ``robustness`` 1-1000 (NVUE command reference).
  Error: ``Error: Invalid config [rev_id: N]`` with the offending path, as ``nv config apply`` reports it.
"""

from __future__ import annotations

import re
from typing import Any

from roceconf.platforms.base import version_key

#: The release a simulated NVUE device runs when none is given (the newest documented).
NVUE_DEFAULT_RELEASE = "5.15"

_NX_RANGES = (
    (re.compile(r"^mtu (\d+)$"), 576, 9216),
    (re.compile(r"^pause pfc-cos ([\d,\s-]+)$"), 0, 7),
    (re.compile(r"^set qos-group (\d+)$"), 0, 7),
)


def nxos_refusal(line: str) -> str | None:
    """The NX-OS error for one configuration line, or None when the switch takes it."""
    text = line.strip()
    low = text.lower()
    m = re.match(r"^(no )?priority-flow-control watch-dog-interval(?: (\S+))?$", low)
    if m and not m.group(1) and m.group(2) not in ("on", "off"):
        return "                 ^\n% Invalid command at '^' marker."
    for pat, lo, hi in _NX_RANGES:
        m = pat.match(low)
        if m:
            values = [int(v) for v in re.findall(r"\d+", m.group(1))]
            if any(not lo <= v <= hi for v in values):
                return "                 ^\n% Invalid command at '^' marker."
    return None


def _walk(node: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _walk(v, path + (str(k),))
    else:
        out.append((path, node))
    return out


def nvue_refusal(tree: Any, release: str | None = None) -> str | None:
    """The NVUE error for a patch / set tree (the ``set`` part), or None when NVUE takes it."""
    new_words = version_key(release or NVUE_DEFAULT_RELEASE) >= version_key("5.15")
    allowed = ("enabled", "disabled") if new_words else ("on", "off")
    for path, value in _walk(tree):
        word = str(value).strip().lower() if not isinstance(value, bool) else ("on" if value else "off")
        if path[:3] == ("system", "forwarding", "ecmp-hash") and len(path) == 4 and word not in allowed:
            return f"'{word}' is not one of {list(allowed)}: system/forwarding/ecmp-hash/{path[3]}"
        ranges = {
            ("link", "mtu"): (552, 9216),
            ("qos", "pfc-watchdog", "polling-interval"): (100, 5000),
            ("qos", "pfc-watchdog", "robustness"): (1, 1000),
        }
        for suffix, (lo, hi) in ranges.items():
            if path[-len(suffix) :] == suffix:
                try:
                    n = int(str(value))
                except ValueError:
                    return f"'{value}' is not of type 'integer': {'/'.join(path)}"
                if not lo <= n <= hi:
                    return f"{n} is not in range {lo}-{hi}: {'/'.join(path)}"
    return None


def nvue_patch_refusal(patch: Any, release: str | None = None) -> str | None:
    """The refusal for a whole ``nv config patch`` document (a list of set/unset items or a tree)."""
    items = patch if isinstance(patch, list) else [patch]
    for item in items:
        if isinstance(item, dict):
            tree = item.get("set", item if "unset" not in item else None)
            if tree:
                err = nvue_refusal(tree, release)
                if err:
                    return err
    return None
