"""The lab's garbage fault really answers a host's reads with junk, and a host then reports unknown, never in
sync (issue item 13)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.drift.audit import audit
from roceconf.lab.server import Lab
from tests.security.helpers import LAB


@pytest.mark.parametrize("host", ["gpu1", "gpu3", "gpu4"])  # connectx, bnxt, linux-dcb
def test_garbage_host_is_unknown_not_in_sync(tmp_path: Path, host: str) -> None:
    fab = load_valid(LAB)
    files = render_fabric(fab)
    creds = (f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16))
    with Lab(*creds) as lab:
        for name in (host, "leaf1"):
            dev = fab.devices[name]
            lab.add(
                name,
                dev.platform,
                files[output_name(name, dev.platform)],
                fault="garbage" if name == host else None,
            )
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        report = audit(fab, inventory=inv, device=host, workers=1, timeout=5, retries=0, credentials=creds)
        saved = tmp_path / "saved"
        audit(
            fab,
            inventory=inv,
            device=host,
            workers=1,
            timeout=5,
            retries=0,
            credentials=creds,
            save_dir=saved,
        )
    (res,) = report.devices
    assert res.status == "unknown", (res.status, res.items)
    assert res.reason
    # what was read really is junk: none of the rendered values came back
    text = (saved / output_name(host, fab.devices[host].platform)).read_text() if saved.exists() else ""
    assert "9000" not in text
