"""The quick-start job: render the lab fabric, run it in the loopback lab, break it, audit it.

1. validate and render ``inventories/lab/intent.yml`` (one config per device);
2. start the loopback lab on 127.0.0.1 with exactly those running configs;
3. inject three realistic faults out of band:
   - leaf1 (EOS): port Ethernet2 loses no-drop on priority 3 (an interface-level override);
   - gpu1 (ConnectX): the CNP DSCP of NIC eth0 changes from 48 to 46;
   - spine2 (Junos): the MTU of et-0/0/1 is lowered to 1500;
4. audit every device live (napalm / netmiko over SSH and eAPI), print the report, stop the lab.
"""

from __future__ import annotations

import errno
import re
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from roceconf.compile import load_valid, output_name, render_fabric, write_render
from roceconf.drift.audit import DriftReport, audit
from roceconf.lab.server import Lab
from roceconf.outdir import OutputError, contained

Fault = tuple[str, str, Callable[[Lab], None]]


def _leaf1_no_drop(lab: Lab) -> None:
    def edit(text: str) -> str:
        return text.rstrip().removesuffix("end").rstrip() + (
            "\n!\ninterface Ethernet2\n   priority-flow-control priority 3 drop\n!\nend\n"
        )

    lab.edit("leaf1", edit)


def _gpu1_cnp_dscp(lab: Lab) -> None:
    st = lab.host_state("gpu1")
    rdma = st.interfaces["eth0"].rdma
    assert rdma is not None
    rdma.cnp_dscp = 46
    lab.set_host_state("gpu1", st)


def _spine2_mtu(lab: Lab) -> None:
    def edit(text: str) -> str:
        new, n = re.subn(
            r"^set interfaces et-0/0/1 mtu \d+$", "set interfaces et-0/0/1 mtu 1500", text, flags=re.M
        )
        if n != 1:
            raise RuntimeError("spine2 config has no MTU line for et-0/0/1")
        return new

    lab.edit("spine2", edit)


FAULTS: list[Fault] = [
    ("leaf1", "Ethernet2 loses no-drop on priority 3", _leaf1_no_drop),
    ("gpu1", "NIC eth0 CNP DSCP 48 -> 46", _gpu1_cnp_dscp),
    ("spine2", "et-0/0/1 MTU lowered to 1500", _spine2_mtu),
]


def run_demo(
    intent: str | Path,
    out_dir: str | Path | None = None,
    say: Callable[[str], None] = print,
    workers: int = 8,
    timeout: float = 10.0,
) -> tuple[DriftReport, Path]:
    fab = load_valid(intent)
    files = render_fabric(fab)
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="roceconf-demo-"))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(out, f"cannot create the directory: {e.strerror}", e.errno or errno.EIO) from None
    configs = contained(out, "configs")  # a link planted as DIR/configs never leads the render elsewhere
    write_render(files, configs)
    say(f"1. rendered {len(files)} device configs from {intent} into {configs}")
    user, password = "roceconf", secrets.token_urlsafe(12)
    with Lab(user, password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        inventory = lab.write_inventory(out / "lab-inventory.yml")
        platforms = sorted({d.platform for d in fab.devices.values()})
        say(
            f"2. loopback lab: {len(lab.devices)} devices on 127.0.0.1 ({', '.join(platforms)}), "
            f"started in {lab.started_in or 0:.2f} s; inventory {inventory}"
        )
        for device, what, inject in FAULTS:
            inject(lab)
            say(f"3. fault injected on {device}: {what}")
        say("4. auditing every device live (napalm eAPI/SSH, netmiko SSH) ...")
        report = audit(
            fab, inventory=inventory, workers=workers, timeout=timeout, credentials=(user, password)
        )
    say("5. lab stopped")
    return report, out
