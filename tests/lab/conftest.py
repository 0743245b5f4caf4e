"""Shared fixtures of the loopback-lab tests: credentials and small hand-written configs."""

from __future__ import annotations

import json
import os
import secrets
import ssl
import threading

import pytest

from roceconf.lab import Lab

NXOS_CFG = """hostname leaf1
feature lldp
class-map type qos match-any ROCE
  match dscp 26
policy-map type qos QOS_IN
  class ROCE
    set qos-group 3
system qos
  service-policy type network-qos NQ
interface Ethernet1/1
  mtu 9216
  priority-flow-control mode on
"""

EOS_CFG = """hostname leaf2
qos map dscp 26 to traffic-class 3
!
interface Ethernet1
   mtu 9214
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
end
"""

JUNOS_CFG = """set system host-name spine1
set interfaces et-0/0/1 mtu 9216
set class-of-service classifiers dscp ROCE forwarding-class NO-LOSS loss-priority low code-points 011010
"""

SONIC_CFG = json.dumps(
    {
        "DEVICE_METADATA": {"localhost": {"hostname": "sonic1"}},
        "PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up"}},
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},
    },
    indent=4,
)

NVUE_CFG = """system:
  hostname: nv1
interface:
  swp1:
    link:
      mtu: 9216
qos:
  roce:
    enable: on
"""


@pytest.fixture(scope="session")
def creds() -> tuple[str, str]:
    return (
        os.environ.get("ROCECONF_USERNAME", "labuser"),
        os.environ.get("ROCECONF_PASSWORD", secrets.token_urlsafe(12)),
    )


@pytest.fixture
def lab(creds: tuple[str, str]):
    """A fresh lab with one device per switch platform (function scope: tests mutate configs)."""
    threads_before = set(threading.enumerate())
    with Lab(*creds) as lab:
        lab.add("leaf1", "nxos", NXOS_CFG)
        lab.add("leaf2", "eos", EOS_CFG)
        lab.add("spine1", "junos", JUNOS_CFG)
        lab.add("sonic1", "sonic", SONIC_CFG)
        lab.add("nv1", "nvue", NVUE_CFG)
        yield lab
    leftover = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    leftover = [t for t in leftover if not t.name.startswith(("paramiko", "Thread-"))]
    assert not leftover, f"lab left threads behind: {leftover}"


def netmiko_args(lab: Lab, name: str, creds: tuple[str, str], device_type: str) -> dict:
    return {
        "device_type": device_type,
        "host": "127.0.0.1",
        "port": lab.port(name),
        "username": creds[0],
        "password": creds[1],
    }


def eapi_context(lab: Lab) -> ssl.SSLContext:
    """Verifies the lab's eAPI certificate against the lab's CA (hostname 127.0.0.1 checked)."""
    return ssl.create_default_context(cafile=str(lab.ca_file))


def eapi_args(lab: Lab, name: str) -> dict:
    """napalm eos optional_args: eAPI over HTTPS with certificate verification."""
    return {"transport": "https", "port": lab.port(name), "context": eapi_context(lab)}
