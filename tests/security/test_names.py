"""Names that could escape the output directory or smuggle a command (issue reproducers 1 and 2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roceconf.compile import write_outputs
from roceconf.drift.collect import CollectError, read_backup
from roceconf.outdir import OutputError
from tests.security.helpers import cli, errors, files_under, lab_text

ESCAPE = "./../../escaped"


def _intent(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "work" / "intent.yml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _escaping_intent(tmp_path: Path) -> Path:
    return _intent(tmp_path, re.sub(r"\bleaf1\b", ESCAPE, lab_text()))


def _nothing_escaped(tmp_path: Path) -> None:
    assert not [p for p in tmp_path.rglob("escaped*")], "a file named after the device was written"


def test_traversal_device_name_is_refused_by_validate(tmp_path: Path) -> None:
    res = cli("validate", str(_escaping_intent(tmp_path)))
    assert res.exit_code == 2
    first = errors(res.output)[0]
    assert "error[RC014]: device name './../../escaped' is not allowed" in first


def test_traversal_device_name_cannot_make_render_write_outside(tmp_path: Path) -> None:
    out = tmp_path / "out" / "a" / "b"
    out.mkdir(parents=True)
    res = cli("render", str(_escaping_intent(tmp_path)), "-o", str(out))
    assert res.exit_code == 2
    assert "RC014" in res.output
    _nothing_escaped(tmp_path)
    assert files_under(tmp_path / "out") == {"a", "a/b"}


@pytest.mark.parametrize("mode", ["--save-configs", "--configs"])
def test_traversal_device_name_in_drift(tmp_path: Path, mode: str) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all:\n  hosts: {}\n")
    d = tmp_path / "saved" / "a"
    d.mkdir(parents=True)
    args = (
        ["--inventory", str(inv), "--save-configs", str(d)]
        if mode == "--save-configs"
        else ["--configs", str(d)]
    )
    res = cli("drift", str(_escaping_intent(tmp_path)), *args)
    assert res.exit_code == 2
    assert "RC014" in res.output
    _nothing_escaped(tmp_path)
    assert files_under(tmp_path / "saved") == {"a"}


@pytest.mark.parametrize("name", ["../x.cfg", "/tmp/x.cfg", "..", ".hidden.cfg", "a/b.cfg", "a\\b.cfg", ""])
def test_writer_refuses_names_that_leave_the_directory(tmp_path: Path, name: str) -> None:
    d = tmp_path / "o"
    with pytest.raises(OutputError, match="would leave the directory"):
        write_outputs({name: "x\n"}, d)
    assert files_under(tmp_path) <= {"o"}


def test_writer_checks_the_resolved_path(tmp_path: Path) -> None:
    """A symlink in the output directory pointing elsewhere is not followed by render."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leaf1.cfg").write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "leaf1.cfg").symlink_to(outside / "leaf1.cfg")
    res = cli(
        "render", str(Path(__file__).resolve().parents[2] / "inventories/lab/intent.yml"), "-o", str(out)
    )
    assert res.exit_code == 2
    (line,) = [ln for ln in res.output.splitlines() if ln.startswith("error")]
    assert line.endswith("out: refusing to write 'leaf1.cfg': the file would leave the directory")
    assert (outside / "leaf1.cfg").read_text() == "precious\n"
    assert not [p for p in out.iterdir() if p.suffix != ".cfg" or p.name != "leaf1.cfg"]


def test_saved_config_reader_stays_in_its_directory(tmp_path: Path) -> None:
    (tmp_path / "secret.cfg").write_text("x")
    d = tmp_path / "configs"
    d.mkdir()
    with pytest.raises(CollectError, match="would leave the directory"):
        read_backup(d, "../secret", "eos")


# ------------------------------------------------------------------ argument / statement injection
MINIMAL = """version: 1
fabric: lab
profiles:
  {profile}: {{mtu: {{switch_port: 9214}}}}
qos:
  classes:
    - {{name: {roce}, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {{min: 150KB, max: 1500KB, junos: {{min_percent: 55, max_percent: 90}}}},
       scheduling: {{mode: dwrr, weight_percent: 50}}}}
    - {{name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {{mode: strict}}}}
    - {{name: default, dscp: [0], priority: 0, scheduling: {{mode: dwrr, weight_percent: 50}}}}
devices:
  - name: dev1
    platform: {platform}
    role: {role}
    profiles: [{profile}]
    interfaces:
      - {{name: "{itf}", speed: 400G, role: host{rdma}}}
"""

GOOD_ITF = {
    "eos": "Ethernet1/1",
    "nxos": "Ethernet1/1",
    "nvue": "swp1",
    "sonic": "Ethernet0",
    "junos": "et-0/0/0",
    "connectx": "eth0",
    "bnxt": "eth0",
    "linux-dcb": "eth0",
}
HOSTS = ("connectx", "bnxt", "linux-dcb")


def _minimal(platform: str, itf: str | None = None, rdma: str | None = None, **names: str) -> str:
    r = rdma if rdma is not None else ("mlx5_0" if platform in HOSTS else None)
    return MINIMAL.format(
        platform=platform,
        itf=itf or GOOD_ITF[platform],
        rdma=f', rdma_device: "{r}"' if r else "",
        profile=names.get("profile", "deep"),
        roce=names.get("roce", "roce"),
        role=names.get("role", "leaf"),
    )


def _refused(tmp_path: Path, text: str, code: str) -> str:
    intent = _intent(tmp_path, text)
    out = tmp_path / "out"
    res = cli("render", str(intent), "-o", str(out))
    assert res.exit_code == 2, res.output
    assert f"error[{code}]" in res.output, res.output
    assert not out.exists() or not any(out.iterdir()), "render wrote files for an invalid intent"
    return res.output


@pytest.mark.parametrize("platform", list(GOOD_ITF))
def test_minimal_intent_of_each_platform_is_valid(tmp_path: Path, platform: str) -> None:
    res = cli("validate", str(_intent(tmp_path, _minimal(platform))))
    assert res.exit_code == 0, res.output


INJECTIONS = {
    # a space: extra arguments to ip/ethtool/dcb/mlnx_qos, or extra words of a CLI statement
    "space": "{good} down",
    # an interface range on a CLI that accepts them (NX-OS / EOS 'interface Ethernet1/1 - Ethernet1/9')
    "cli range": "{good} - {good}9",
    # Junos: a whole statement after the name
    "statement": "{good} unit 0 family inet address 10.9.9.9/31",
    # a leading '-': an option to the command
    "option": "-{good}",
    # a path
    "path": "../{good}",
}


@pytest.mark.parametrize("platform", list(GOOD_ITF))
@pytest.mark.parametrize("kind", list(INJECTIONS))
def test_interface_name_injection_is_refused(tmp_path: Path, platform: str, kind: str) -> None:
    bad = INJECTIONS[kind].format(good=GOOD_ITF[platform])
    out = _refused(tmp_path, _minimal(platform, itf=bad), "RC015")
    assert f"interface name {bad!r} is not allowed" in out


@pytest.mark.parametrize("platform", HOSTS)
@pytest.mark.parametrize("bad", ["mlx5_0 down", "-mlx5_0", "../mlx5_0", "mlx5/0"])
def test_rdma_device_injection_is_refused(tmp_path: Path, platform: str, bad: str) -> None:
    out = _refused(tmp_path, _minimal(platform, rdma=bad), "RC016")
    assert f"RDMA device name {bad!r} is not allowed" in out


@pytest.mark.parametrize("platform", list(GOOD_ITF))
@pytest.mark.parametrize(
    ("field", "bad", "what"),
    [
        ("profile", "deep buffer", "profile name"),
        ("roce", "roce -x", "class name"),
        ("role", "leaf spine", "role name"),
    ],
)
def test_profile_class_role_names_are_identifiers(
    tmp_path: Path, platform: str, field: str, bad: str, what: str
) -> None:
    out = _refused(tmp_path, _minimal(platform, **{field: f'"{bad}"'}), "RC017")
    assert f"{what} {bad!r} is not allowed" in out


@pytest.mark.parametrize("platform", list(GOOD_ITF))
@pytest.mark.parametrize(
    "bad", ["a\\nreload", "a;reload", "$(reboot)", "`reboot`", "a'b", 'a\\"b', "{{ 7*7 }}", "a!b"]
)
def test_metacharacters_stay_refused(tmp_path: Path, platform: str, bad: str) -> None:
    _refused(tmp_path, _minimal(platform, itf=bad), "RC121")
