"""Device secrets (issue 24, item 5): SNMP communities and keys, TACACS+/RADIUS keys, enable secrets and local
users' hashes never reach a session log, a saved config or the terminal; logs and saved configs are 0600 in
0700 directories; redaction never changes what drift reads.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from roceconf import platforms
from tests.hostile.harness import LAB, ROOT, check, run

# one secret of each kind per grammar; each value is unique so a leak names itself
EOS = """username admin privilege 15 role network-admin secret sha512 $6$EOSUSERHASHq1
enable secret sha512 $6$EOSENABLEq1
snmp-server community EOSCOMMq1 ro
snmp-server user ops grp v3 auth sha EOSAUTHq1 priv aes EOSPRIVq1
tacacs-server host 10.0.0.9 key 7 EOSTACKEYq1
radius-server host 10.0.0.8 key 7 EOSRADKEYq1
"""
NXOS = """username admin password 5 $5$NXUSERHASHq1  role network-admin
snmp-server community NXCOMMq1 group network-operator
snmp-server user ops network-admin auth md5 0xNXAUTHq1 priv 0xNXPRIVq1 localizedkey
tacacs-server host 10.0.0.9 key 7 "NXTACKEYq1"
radius-server key 7 "NXRADKEYq1"
"""
JUNOS = """set system root-authentication encrypted-password "$6$JUNROOTHASHq1"
set system login user ops authentication encrypted-password "$6$JUNUSERHASHq1"
set snmp community JUNCOMMq1 authorization read-only
set system tacplus-server 10.0.0.9 secret "$9$JUNTACKEYq1"
set system radius-server 10.0.0.8 secret "$9$JUNRADKEYq1"
"""
JUNOS_CURLY = """system {
    root-authentication {
        encrypted-password "$6$JCROOTHASHq1"; ## SECRET-DATA
    }
    tacplus-server {
        10.0.0.9 secret "$9$JCTACKEYq1"; ## SECRET-DATA
    }
}
snmp {
    community JCCOMMq1 {
        authorization read-only;
    }
}
"""
NVUE = """      aaa:
        user:
          ops:
            hashed-password: '$6$NVUSERHASHq1'
        tacacs:
          server:
            10.0.0.9:
              secret: NVTACKEYq1
      snmp-server:
        readonly-community:
          NVCOMMq1:
            access:
              any: {}
"""
SONIC = {
    "SNMP_COMMUNITY": {"SONCOMMq1": {"TYPE": "RO"}, "SONCOMMq2": {"TYPE": "RW"}},
    "TACPLUS_SERVER": {"10.0.0.9": {"passkey": "SONTACKEYq1", "priority": "1"}},
    "RADIUS": {"global": {"passkey": "SONRADKEYq1"}},
    "SNMP_USER": {"ops": {"SNMP_USER_AUTH_PASSWORD": "SONAUTHq1", "SNMP_USER_ENCRYPTION_PASSWORD": "SONPRIVq1"}},
}
HOST = "export ROCECONF_TOKEN=HOSTTOKENq1\nDB_PASSWORD='HOSTPWq1'\n"
SECRETS = tuple(sorted(set(re.findall(r"[A-Z]+q\d", EOS + NXOS + JUNOS + JUNOS_CURLY + NVUE + json.dumps(SONIC) + HOST))))


def test_redact_removes_every_grammars_secrets_and_nothing_else() -> None:
    from roceconf.redact import REMOVED, redact

    for text in (EOS, NXOS, JUNOS, JUNOS_CURLY, NVUE, json.dumps(SONIC, indent=4), HOST):
        out = redact(text)
        for s in SECRETS:
            assert s not in out, (s, out)
        assert out.count("\n") == text.count("\n")
        assert REMOVED in out
    # the SONiC document stays JSON, with as many communities
    doc = json.loads(redact(json.dumps(SONIC, indent=4)))
    assert len(doc["SNMP_COMMUNITY"]) == 2 and doc["TACPLUS_SERVER"]["10.0.0.9"]["priority"] == "1"
    # a config inside an API reply (a debug log line): its lines end in an escaped \n
    reply = json.dumps({"result": [{"output": EOS + NXOS}]})
    assert not any(s in redact(reply) for s in SECRETS)


FIXTURES = sorted(
    p for p in (ROOT / "tests" / "fixtures").rglob("*")
    if p.is_file() and p.parent.name in platforms.NAMES and not p.name.endswith((".md", ".expected.yaml"))
)


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT / "tests" / "fixtures")) for p in FIXTURES])
def test_redaction_never_changes_what_drift_reads(path: Path) -> None:
    """Every recorded config of every platform parses to the same state (QoS, names, sources) redacted."""
    from roceconf.redact import redact

    text = path.read_text(encoding="utf-8", errors="replace")
    plat = platforms.get(path.parent.name)
    before, after = plat.parse(text), plat.parse(redact(text))
    assert after.semantic() == before.semantic()
    assert after.sources == before.sources or all(
        a.get("lines") == b.get("lines") for a, b in zip(after.sources.values(), before.sources.values(), strict=True)
    )


def _with_secrets(name: str, platform: str, text: str) -> str:
    if platform == "eos":
        return text + EOS
    if platform == "nxos":
        return text + NXOS
    if platform == "junos":
        return text + JUNOS
    if platform == "nvue":
        return text.replace("    system:\n", "    system:\n" + NVUE, 1)
    if platform == "sonic":
        return json.dumps({**json.loads(text), **SONIC}, indent=4) + "\n"
    return text


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_debug_session_log_and_saved_configs_hold_no_device_secret(tmp_path: Path) -> None:
    from roceconf.compile import load_valid, output_name, render_fabric
    from roceconf.lab.server import Lab

    fab = load_valid(str(LAB))
    files = render_fabric(fab)
    user, password = "opsq", "pw-LOGINq1x"
    with Lab(user, password) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, _with_secrets(name, dev.platform, files[output_name(name, dev.platform)]))
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        # the lab serves the secrets (else this test proves nothing)
        served = "".join(lab.devices[n].get_config() for n, d in fab.devices.items() if d.platform != "connectx"
                         and d.platform not in ("bnxt", "linux-dcb"))
        assert sum(s in served for s in SECRETS) >= 15, "the lab does not serve the planted secrets"
        env = {"ROCECONF_USERNAME": user, "ROCECONF_PASSWORD": password}
        live = run("--debug", "--session-log", "logs", "drift", str(LAB), "--inventory", str(inv),
                   "--save-configs", "saved", "--format", "json", cwd=tmp_path, env=env, timeout=120)
    leaked = [s for s in (*SECRETS, password) if s in live.output]
    assert not leaked, [ln for ln in live.output.splitlines() if any(s in ln for s in leaked)][:5]
    check(live, bad_input=False, rc=0, secrets=(*SECRETS, password))
    (log,) = (tmp_path / "logs").glob("roceconf-*-drift-*.log")
    logged = log.read_text()
    assert "running-config" in logged or "show run" in logged  # the configs went through the log
    for s in (*SECRETS, password):
        assert s not in logged, f"{s} in the session log"
    assert _mode(log) == 0o600 and _mode(log.parent) == 0o700
    saved = tmp_path / "saved"
    assert _mode(saved) == 0o700
    for f in saved.iterdir():
        if f.is_file() and not f.name.startswith("."):
            assert _mode(f) == 0o600, f
            text = f.read_text()
            for s in SECRETS:
                assert s not in text, f"{s} in {f.name}"
    # the saved, redacted configs audit exactly as the live devices did
    again = run("drift", str(LAB), "--configs", "saved", "--format", "json", cwd=tmp_path)
    check(again, bad_input=False, rc=0)
    a, b = json.loads(live.stdout), json.loads(again.stdout)
    assert [(d["device"], d["status"], d["items"]) for d in a["devices"]] == [
        (d["device"], d["status"], d["items"]) for d in b["devices"]
    ]


# ----------------------------------------------------------------------------------------- item 6
@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from roceconf.compile import load_valid, render_fabric, write_outputs

    out = tmp_path_factory.mktemp("cfg")
    write_outputs(render_fabric(load_valid(str(LAB))), out)
    return out


@pytest.mark.parametrize(
    "name, text",
    [
        ("pyproject.toml", "[project]\nname = 'x'\n[tool.roceconf.drift]\nno-verify-tls = true\n"),
        ("roceconf.toml", "[drift]\nno_verify_tls = true\nca-file = 'evil.pem'\n"),
    ],
)
def test_a_settings_file_that_weakens_tls_is_named(tmp_path: Path, rendered: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "evil.pem").write_text("")
    o = run("drift", str(LAB), "--configs", str(rendered), cwd=tmp_path)
    check(o, bad_input=False, rc=0)
    warnings = [ln for ln in o.stderr.splitlines() if ln.startswith("warning:")]
    assert any("no-verify-tls" in w and str(tmp_path / name) in w and "not verified" in w for w in warnings), o.stderr
    if "ca-file" in text:
        assert any("ca-file" in w and str(tmp_path / name) in w for w in warnings), o.stderr


def test_an_environment_variable_that_weakens_tls_is_named(tmp_path: Path, rendered: Path) -> None:
    o = run("drift", str(LAB), "--configs", str(rendered), cwd=tmp_path, env={"ROCECONF_DRIFT_NO_VERIFY_TLS": "1"})
    check(o, bad_input=False, rc=0)
    assert "warning: no-verify-tls" in o.stderr and "ROCECONF_DRIFT_NO_VERIFY_TLS" in o.stderr, o.stderr
    typed = run("drift", str(LAB), "--configs", str(rendered), "--no-verify-tls", cwd=tmp_path)
    check(typed, bad_input=False, rc=0)
    assert "warning:" not in typed.stderr  # typed on the command line: the user said so
