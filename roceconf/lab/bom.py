"""What the lab's devices answer to the bill-of-materials commands (``roceconf bom``), from ``Device.facts``.

Tests change a fact (``lab.device("gpu1").facts["nics"]["eth0"]["firmware"] = ...``) and the next read sees it.
The output formats follow the real tools (see roceconf/platforms/hostbom.py and each platform's ``bom.py``).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

_SWITCH = {
    "eos": {"model": "DCS-7060DX5-64S", "version": "4.31.2F", "serial": "JPE23110001"},
    "nxos": {"model": "Nexus9000 C9332D-GX2B", "version": "10.3(4a)", "serial": "FDO25010001"},
    "junos": {"model": "qfx5220-32cd", "version": "23.4R1.10", "serial": "WS3723AA0001"},
    "sonic": {
        "model": "Accton-AS9716-32D",
        "platform": "x86_64-accton_as9716_32d-r0",
        "version": "SONiC.202311.1-lab",
        "serial": "AS9716-0001",
        "asic": "broadcom",
    },
    "nvue": {"model": "x86_64-mlnx_msn4700-r0", "version": "5.15.0", "serial": "MT2301X00001"},
}
_HOST = {
    "connectx": {
        "ofed": "MLNX_OFED_LINUX-24.10-1.1.4.0",
        "nic": {"driver": "mlx5_core", "driver_version": "24.10-1.1.4", "firmware": "28.39.1002",
                "board": "MT_0000000838"},
        # ethtool -i firmware-version as mlx5 prints it: "<fw> (<PSID>)"
        "ethtool_fw": "{firmware} ({board})",
    },
    "bnxt": {
        "ofed": None,
        "nic": {"driver": "bnxt_en", "driver_version": "6.1.0-lab", "firmware": "229.1.123.0",
                "board": "BCM957608-P2200G"},
        "ethtool_fw": "{firmware}/pkg {firmware}",
    },
    "linux-dcb": {
        "ofed": None,
        "nic": {"driver": "ice", "driver_version": "6.1.0-lab", "firmware": "4.40", "board": "K91258-000"},
        "ethtool_fw": "{firmware} 0x8001c7d4 1.3534.0",
    },
}
_HOST_COMMON = {
    "kernel": "6.1.0-lab",
    "os": "Ubuntu 22.04.5 LTS",
    "rdma_core": "2404mlnx51-1.2410068",
    "nccl": "2.23.4-1+cuda12.6",
    "gpu_driver": "560.35.03",
    "cuda": "12.6.2",
    "gpus": 8,
}


def default_facts(platform: str, name: str) -> dict[str, Any]:
    if platform in _SWITCH:
        return copy.deepcopy(_SWITCH[platform])
    facts = copy.deepcopy(_HOST_COMMON)
    facts["ofed"] = _HOST[platform]["ofed"]
    facts["nics"] = {}
    return facts


def _nic(dev: Any, netdev: str) -> dict[str, Any]:
    nics = dev.facts.setdefault("nics", {})
    if netdev not in nics:
        idx = len(nics)
        base = copy.deepcopy(_HOST[dev.platform]["nic"])
        base["bus"] = f"0000:{0x08 + idx:02x}:00.0"
        base["serial"] = f"MT{abs(hash((dev.name, netdev))) % 10**8:08d}"
        nics[netdev] = base
    return nics[netdev]


def _netdevs(dev: Any) -> list[str]:
    state = dev.host_state
    return sorted(state.interfaces) if state is not None else []


def _missing(cmd: str) -> str:
    return f"-bash: {cmd.split()[0]}: command not found"


def host_answer(dev: Any, cmd: str) -> str | None:
    """The output of a host BOM command, or None when the command is not one of them."""
    f = dev.facts
    words = cmd.split()
    if not words:
        return None
    if cmd == "uname -r":
        return f["kernel"]
    if cmd == "cat /etc/os-release":
        return f'PRETTY_NAME="{f["os"]}"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu'
    if cmd == "ofed_info -s":
        return f"{f['ofed']}:" if f.get("ofed") else _missing(cmd)
    if "rdma-core" in cmd and words[0] == "dpkg-query":
        return f["rdma_core"] or "dpkg-query: no packages found matching rdma-core"
    if "libnccl" in cmd and words[0] == "dpkg-query":
        return f["nccl"] or "dpkg-query: no packages found matching libnccl2"
    if words[0] == "nvidia-smi":
        return "\n".join([f["gpu_driver"]] * int(f.get("gpus", 8))) if f.get("gpu_driver") else _missing(cmd)
    if cmd == "cat /usr/local/cuda/version.json":
        if not f.get("cuda"):
            return "cat: /usr/local/cuda/version.json: No such file or directory"
        return json.dumps({"cuda": {"name": "CUDA SDK", "version": f["cuda"]}}, indent=3)
    if words[:2] == ["ethtool", "-i"] and len(words) == 3:
        if words[2] not in _netdevs(dev):
            return "Cannot get driver information: No such device"
        n = _nic(dev, words[2])
        fw = _HOST[dev.platform]["ethtool_fw"].format(**n)
        return (
            f"driver: {n['driver']}\nversion: {n['driver_version']}\nfirmware-version: {fw}\n"
            f"expansion-rom-version: \nbus-info: {n['bus']}\nsupports-statistics: yes\nsupports-test: yes\n"
            "supports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: yes"
        )
    if cmd == "devlink -j dev info":
        info = {}
        for netdev in _netdevs(dev):
            n = _nic(dev, netdev)
            fw = n["firmware"]
            info[f"pci/{n['bus']}"] = {
                "driver": n["driver"],
                "serial_number": n["serial"],
                "versions": {"fixed": {"board.id": n["board"]}, "running": {"fw.version": fw}, "stored": {"fw.version": fw}},
            }
        return json.dumps({"info": info})
    m = re.fullmatch(r"cat /sys/class/infiniband/(\S+)/fw_ver", cmd)
    if m:
        state = dev.host_state
        for netdev, itf in sorted(state.interfaces.items()) if state is not None else []:
            if itf.rdma is not None and itf.rdma.device == m.group(1):
                return _nic(dev, netdev)["firmware"]
        return f"cat: /sys/class/infiniband/{m.group(1)}/fw_ver: No such file or directory"
    return None


def sonic_show_version(dev: Any) -> str:
    f = dev.facts
    return (
        f"\nSONiC Software Version: {f['version']}\nSONiC OS Version: 12\nDistribution: Debian 12.5\n"
        "Kernel: 6.1.0-11-2-amd64\nBuild commit: 0000000\nBuild date: Mon Jan  1 00:00:00 UTC 2024\n"
        f"Built by: lab@roceconf\n\nPlatform: {f['platform']}\nHwSKU: {f['model']}\nASIC: {f['asic']}\n"
        f"ASIC Count: 1\nSerial Number: {f['serial']}\nModel Number: N/A\nHardware Revision: N/A\n"
    )


def junos_show_version(dev: Any, host: str) -> str:
    f = dev.facts
    return (
        f"Hostname: {host}\nModel: {f['model']}\nJunos: {f['version']}\n"
        "JUNOS OS Kernel 64-bit  [20231215.155400_builder_stable_13]\n"
        f"Serial Number: {f['serial']}\n"
    )


def nvue_show_system(dev: Any, host: str) -> str:
    f = dev.facts
    return json.dumps(
        {
            "build": f"Cumulus Linux {f['version']}",
            "hostname": host,
            "product-name": "Cumulus Linux",
            "product-release": f["version"],
            "platform": f["model"],
            "uptime": "1 day, 1:52:24",
        },
        indent=2,
    )
