"""Broadcom bnxt: the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import re

NAME = "bnxt"
CC_ROOT = "/sys/kernel/config/bnxt_re"
#: cc attributes roceconf writes, in the order bnxt_setupcc.sh writes them (apply last).
CC_ATTRS = (
    "ecn_enable",
    "ecn_marking",
    "cc_mode",
    "roce_prio",
    "cnp_prio",
    "roce_dscp",
    "cnp_dscp",
    "disable_prio_vlan_tx",
)
ROCE_V2_PORT = 4791

_CC_PATH = re.compile(r"/sys/kernel/config/bnxt_re/([^/\s\"']+)/ports/(\d+)/cc/?([A-Za-z_]*)")


def cc_dir(dev: str) -> str:
    return f"{CC_ROOT}/{dev}/ports/1/cc"


def c_hex(v: int) -> str:
    """C printf('%#x'): 26 -> '0x1a', 0 -> '0'."""
    return "0" if v == 0 else f"{v:#x}"
