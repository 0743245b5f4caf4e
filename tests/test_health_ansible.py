"""playbooks/health_check.yml with the real ansible-playbook against the loopback lab: a healthy lab
passes and writes the reports; a scenario fails the play naming device, port, priority and rule."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.lab import Lab
from tests.test_ansible import BIN, INTENT, LAB_INVENTORY, PLAYBOOKS, ROOT, ansible_env


def test_health_check_playbook(tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    files = render_fabric(fab)
    password = secrets.token_urlsafe(16)
    with Lab("labuser", password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        inventory = lab.write_inventory(tmp_path / "hosts.yml")
        env = ansible_env(tmp_path, ROCECONF_USERNAME="labuser", ROCECONF_PASSWORD=password, ROCECONF_LAB_INVENTORY=str(inventory))

        def play(reports: Path) -> subprocess.CompletedProcess[str]:
            extra = {"roceconf_report_dir": str(reports), "roceconf_health_interval": 0.2}
            res = subprocess.run(
                [str(BIN / "ansible-playbook"), "-i", str(LAB_INVENTORY), str(PLAYBOOKS / "health_check.yml"), "-e", json.dumps(extra)],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
            )
            assert password not in res.stdout + res.stderr
            return res

        ok = play(tmp_path / "ok")
        assert ok.returncode == 0, ok.stdout[-4000:] + ok.stderr[-2000:]
        (day,) = list((tmp_path / "ok").iterdir())
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", day.name)
        report = json.loads((day / "health.json").read_text())
        assert report["summary"]["healthy"] == len(fab.devices) and report["exit_code"] == 0
        assert sorted(p.name for p in (day / "counters").iterdir()) == sorted(f"{n}.counters.json" for n in fab.devices)
        assert {f.name for f in text_string_to_metric_families((day / "health.prom").read_text())} >= {"roceconf_pfc_pause_frames"}

        lab.set_scenarios(["pfc-storm@leaf3:Ethernet8"])
        bad = play(tmp_path / "bad")
        assert bad.returncode != 0
        assert "RC303 leaf3:Ethernet8 priority 3" in bad.stdout, bad.stdout[-4000:]
        (day,) = list((tmp_path / "bad").iterdir())
        report = json.loads((day / "health.json").read_text())
        assert report["summary"]["critical"] == 1 and report["exit_code"] == 1
