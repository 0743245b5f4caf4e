"""Bill of materials of a Linux GPU host, shared by the three NIC platforms (connectx, bnxt, linux-dcb).

Commands and their output formats:
* ``uname -r``; ``/etc/os-release`` (os-release(5): ``PRETTY_NAME=``).
* ``ethtool -i IF``: ``driver:``, ``version:``, ``firmware-version:``, ``bus-info:`` (ethtool(8), ``-i`` /
  ``--driver``; the kernel's ``ethtool_drvinfo``).
* ``devlink -j dev info``: iproute2 devlink, JSON ``{"info": {"pci/<bus>": {"driver", "serial_number",
  "versions": {"fixed": {...}, "running": {"fw.version": ...}, "stored": {...}}}}}`` (devlink-dev(8), the kernel's
  Documentation/networking/devlink/devlink-info.rst).
* ``/sys/class/infiniband/<dev>/fw_ver`` (the RDMA core's per-device firmware attribute).
* ``ofed_info -s`` (NVIDIA MLNX_OFED / DOCA-OFED), the ``rdma-core`` and ``libnccl2`` package versions
  (``dpkg-query -W -f '${Version}'`` or ``rpm -q --qf '%{VERSION}'``), ``nvidia-smi --query-gpu=driver_version
  --format=csv,noheader`` and ``/usr/local/cuda/version.json`` (``{"cuda": {"version": ...}}``).
A command that is missing on the host gives ``None`` for its field, never a guess.
"""

from __future__ import annotations

import json
import re
from typing import Any

from roceconf.state import DeviceState

_MISSING = re.compile(r"command not found|No such file|not installed|no packages found|is not installed", re.I)

OS_COMMANDS = [
    "uname -r",
    "cat /etc/os-release",
    "devlink -j dev info",
    "ofed_info -s",
    "dpkg-query -W -f='${Version}\\n' rdma-core 2>/dev/null || rpm -q --qf '%{VERSION}\\n' rdma-core",
    "dpkg-query -W -f='${Version}\\n' libnccl2 2>/dev/null || rpm -q --qf '%{VERSION}\\n' libnccl",
    "nvidia-smi --query-gpu=driver_version --format=csv,noheader",
    "cat /usr/local/cuda/version.json",
]


def commands(state: DeviceState) -> list[str]:
    """The read-back commands for a host whose desired state names its netdevs and RDMA devices."""
    cmds = list(OS_COMMANDS)
    for name, itf in sorted(state.interfaces.items()):
        cmds.append(f"ethtool -i {name}")
        dev = itf.rdma.device if itf.rdma is not None else None
        if dev:
            cmds.append(f"cat /sys/class/infiniband/{dev}/fw_ver")
    return cmds


def _value(out: str) -> str | None:
    text = out.strip()
    if not text or _MISSING.search(text):
        return None
    return text.splitlines()[0].strip() or None


def _kv(out: str) -> dict[str, str]:
    res = {}
    for line in out.splitlines():
        k, sep, v = line.partition(":")
        if sep:
            res[k.strip()] = v.strip()
    return res


def parse(outputs: dict[str, str], state: DeviceState) -> dict[str, Any]:
    """{"kernel", "os", "ofed", "rdma_core", "nccl", "gpu_driver", "cuda", "nics": {netdev: {...}}}."""
    bom: dict[str, Any] = {"kind": "host"}
    bom["kernel"] = _value(outputs.get("uname -r", ""))
    osr = outputs.get("cat /etc/os-release", "")
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', osr, re.M)
    bom["os"] = m.group(1) if m else None
    ofed = _value(outputs.get("ofed_info -s", ""))
    bom["ofed"] = ofed.rstrip(":") if ofed else None
    bom["rdma_core"] = _value(next((v for k, v in outputs.items() if "rdma-core" in k), ""))
    bom["nccl"] = _value(next((v for k, v in outputs.items() if "libnccl" in k), ""))
    bom["gpu_driver"] = _value(outputs.get("nvidia-smi --query-gpu=driver_version --format=csv,noheader", ""))
    cuda = None
    try:
        data = json.loads(outputs.get("cat /usr/local/cuda/version.json", "") or "null")
        if isinstance(data, dict) and isinstance(data.get("cuda"), dict):
            cuda = data["cuda"].get("version")
    except ValueError:
        cuda = None
    bom["cuda"] = cuda if isinstance(cuda, str) else None
    devlink: dict[str, Any] = {}
    try:
        data = json.loads(outputs.get("devlink -j dev info", "") or "null")
        if isinstance(data, dict) and isinstance(data.get("info"), dict):
            devlink = data["info"]
    except ValueError:
        devlink = {}
    nics: dict[str, Any] = {}
    for name, itf in sorted(state.interfaces.items()):
        info = _kv(outputs.get(f"ethtool -i {name}", ""))
        dev = itf.rdma.device if itf.rdma is not None else None
        ethtool_fw = info.get("firmware-version") or None
        nic: dict[str, Any] = {
            "rdma_device": dev,
            "driver": info.get("driver") or None,
            "driver_version": info.get("version") or None,
            "bus": info.get("bus-info") or None,
            "board": None,
            "serial": None,
        }
        sysfs_fw = _value(outputs.get(f"cat /sys/class/infiniband/{dev}/fw_ver", "")) if dev else None
        running_fw = None
        entry = devlink.get(f"pci/{nic['bus']}") if nic["bus"] else None
        if isinstance(entry, dict):
            nic["serial"] = entry.get("serial_number")
            versions = entry.get("versions") if isinstance(entry.get("versions"), dict) else {}
            fixed = versions.get("fixed") if isinstance(versions.get("fixed"), dict) else {}
            running = versions.get("running") if isinstance(versions.get("running"), dict) else {}
            nic["board"] = fixed.get("board.id") or fixed.get("fw.psid")
            running_fw = running.get("fw.version") or running.get("fw")
        # one firmware version per NIC: what runs (devlink), else the RDMA device's, else ethtool's first word
        nic["firmware"] = running_fw or sysfs_fw or (ethtool_fw.split()[0] if ethtool_fw else None)
        nics[name] = nic
    bom["nics"] = nics
    return bom
