"""playbooks/cabling_check.yml with the real ansible-playbook against the loopback lab (cables laid from the
intent's links): a lab cabled as the intent says passes and writes the reports; crossed rails fail the play
naming rule, device and port."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
from pathlib import Path

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.lab import Lab
from tests.test_ansible import BIN, INTENT, LAB_INVENTORY, PLAYBOOKS, ROOT, ansible_env


def test_cabling_check_playbook(tmp_path: Path) -> None:
    fab = load_valid(INTENT)
    files = render_fabric(fab)
    password = secrets.token_urlsafe(16)
    with Lab("labuser", password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        lab.set_links([(x.a.device, x.a.port, x.b.device, x.b.port) for x in fab.links])
        inventory = lab.write_inventory(tmp_path / "hosts.yml")
        env = ansible_env(tmp_path, ROCECONF_USERNAME="labuser", ROCECONF_PASSWORD=password, ROCECONF_LAB_INVENTORY=str(inventory))

        def play(reports: Path) -> subprocess.CompletedProcess[str]:
            res = subprocess.run(
                [str(BIN / "ansible-playbook"), "-i", str(LAB_INVENTORY), str(PLAYBOOKS / "cabling_check.yml"),
                 "-e", json.dumps({"roceconf_report_dir": str(reports)})],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
            )
            assert password not in res.stdout + res.stderr
            return res

        ok = play(tmp_path / "ok")
        assert ok.returncode == 0, ok.stdout[-4000:] + ok.stderr[-2000:]
        (day,) = list((tmp_path / "ok").iterdir())
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", day.name)
        report = json.loads((day / "cabling.json").read_text())
        assert report["summary"]["ok"] == len(fab.links) and report["exit_code"] == 0
        assert sorted(p.name for p in (day / "lldp").iterdir()) == sorted(f"{n}.lldp.json" for n in fab.devices)
        assert (day / "cabling-junit.xml").is_file() and (day / "cabling.md").is_file()

        lab.set_scenarios(["crossed-rail@gpu2"])
        bad = play(tmp_path / "bad")
        assert bad.returncode != 0
        assert "RC503 gpu2:eth0" in bad.stdout and "RC503 leaf2:swp2" in bad.stdout, bad.stdout[-4000:]
        (day,) = list((tmp_path / "bad").iterdir())
        report = json.loads((day / "cabling.json").read_text())
        assert report["summary"]["fail"] == 2 and report["exit_code"] == 1
