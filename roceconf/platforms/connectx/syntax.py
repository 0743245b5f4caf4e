"""NVIDIA ConnectX: the vocabulary of its config (keywords, documents, small readers) the parser and the render
helpers share."""

from __future__ import annotations

import re

NAME = "connectx"
PRIOS = range(8)

_FAIL = re.compile(
    r"(command not found|not supported|No such file or directory|No such device|Permission denied|"
    r"Cannot get|Cannot find device|does not exist|You must be root)",
    re.I,
)
_SYSFS_ENABLE = re.compile(r"/sys/class/net/([^/\s]+)/ecn/roce_(np|rp)/enable/([0-7])$")
_SYSFS_CNP = re.compile(r"/sys/class/net/([^/\s]+)/ecn/roce_np/(cnp_dscp|cnp_802p_prio)$")
_CONFIGFS_TOS = re.compile(r"/sys/kernel/config/rdma_cm/([^/\s]+)/ports/(\d+)/default_roce_tos$")
_IB_DIR = re.compile(r"/sys/class/net/([^/\s]+)/device/infiniband(?:/([^/\s]+))?/?$")
_TCLASS = re.compile(r"/sys/class/infiniband/([^/\s]+)/tc/\d+/traffic_class$")
_RELEVANT = re.compile(r"mlnx_qos|dscp|pfc|ecn|roce|cnp|ethtool|mtu|tos|dcb|lldp", re.I)
