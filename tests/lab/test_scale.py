"""100 devices start in a few seconds, all answer, and stop without leaving threads."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from napalm import get_network_driver

from roceconf.lab import Lab
from tests.lab.conftest import EOS_CFG, JUNOS_CFG, NVUE_CFG, NXOS_CFG, SONIC_CFG

CONFIGS = {"nxos": NXOS_CFG, "eos": EOS_CFG, "junos": JUNOS_CFG, "sonic": SONIC_CFG, "nvue": NVUE_CFG}


def test_hundred_devices_start_fast_and_answer(creds: tuple[str, str]) -> None:
    before = set(threading.enumerate())
    platforms = list(CONFIGS)
    t0 = time.perf_counter()
    lab = Lab(*creds)
    for i in range(100):
        platform = platforms[i % len(platforms)]
        lab.add(f"sw{i:03d}", platform, CONFIGS[platform])
    with lab:
        elapsed = time.perf_counter() - t0
        print(f"100-device lab started in {elapsed:.3f} s (listeners {lab.started_in:.3f} s)")
        ports = {lab.port(n) for n in lab.devices}
        assert len(ports) == 100
        for port in ports:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()

        nxos = [n for n, d in lab.devices.items() if d.platform == "nxos"][:8]

        def get_running(name: str) -> str:
            drv = get_network_driver("nxos_ssh")(
                "127.0.0.1", *creds, timeout=20, optional_args={"port": lab.port(name)}
            )
            drv.open()
            try:
                return drv.get_config(retrieve="running")["running"]
            finally:
                drv.close()

        t1 = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            outs = list(pool.map(get_running, nxos))
        print(f"8 parallel napalm nxos_ssh get_config: {time.perf_counter() - t1:.2f} s")
        assert all("interface Ethernet1/1" in o for o in outs)
    # the lab's thread ends by itself: wait for that (at most 5 s), not a fixed time
    end = time.monotonic() + 5
    while (left := [t for t in threading.enumerate() if t not in before and t.is_alive()]) and any(
        t.name == "roceconf-lab" for t in left
    ) and time.monotonic() < end:
        time.sleep(0.01)
    assert not [t for t in left if t.name == "roceconf-lab"], left
