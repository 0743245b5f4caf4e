"""The roceconf.fabric collection, built and installed the way users install collections, used from outside
the repository.

* ``ansible-galaxy collection build`` + ``install`` (offline) of the tarball into a temporary collections
  path; ``ansible-doc roceconf.fabric.drift`` documents the module from there.
* ``ansible-test sanity`` (the tests that need no container: validate-modules, yamllint, compile,
  ansible-doc, action-plugin-docs, ...) passes on the installed collection. ansible-test bootstraps pip in
  its test virtualenvs with a script it downloads from outside the package index; the test provides that
  script (it copies this environment's pip); the test requirements themselves come from the index.
* From a playbook outside the repository, the ``roceconf.fabric.drift_audit`` role audits the loopback lab
  through an inventory written the way an AVD / cisco.nxos / junos user writes it (no roceconf variables on
  the switches, templated ``ansible_host``, a vaulted password, an SSH key for the GPU hosts);
  ``roceconf drift --inventory`` on the same inventory gives the same verdicts.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from roceconf.compile import load_valid, render_fabric
from roceconf.lab import Lab

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SOURCE = ROOT / "playbooks" / "collections" / "ansible_collections" / "roceconf" / "fabric"
INTENT = ROOT / "inventories" / "lab" / "intent.yml"
MODULES = ("render", "drift", "apply", "report", "state_info", "health", "merge", "intent_info", "bom", "cabling")

pytestmark = pytest.mark.xdist_group("collection")

GET_PIP = '''"""pip for ansible-test's sanity virtualenvs without a download from outside the package index:
the pip package of the environment that runs the tests is copied into the new virtualenv."""
import shutil
import sys
import sysconfig

if any(a.startswith(("setuptools", "wheel")) for a in sys.argv[1:]):
    sys.exit("this pip bootstrap provides pip only")
shutil.copytree({source!r}, sysconfig.get_paths()["purelib"] + "/pip", ignore=shutil.ignore_patterns("__pycache__"))
'''


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "ROCECONF_"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp / "home"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_HOME=str(tmp / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp / "ansible-tmp"),
        ANSIBLE_RETRY_FILES_ENABLED="0",
        ANSIBLE_COLLECTIONS_PATH=str(tmp / "collections"),
    )
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tarball built from the repository, installed offline into tmp/collections."""
    tmp = tmp_path_factory.mktemp("collection")
    (tmp / "home").mkdir()
    env = clean_env(tmp)
    res = subprocess.run(
        [str(BIN / "ansible-galaxy"), "collection", "build", str(SOURCE), "--output-path", str(tmp / "dist")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    (tarball,) = (tmp / "dist").glob("roceconf-fabric-*.tar.gz")
    res = subprocess.run(
        [
            str(BIN / "ansible-galaxy"),
            "collection",
            "install",
            "--offline",
            "-p",
            str(tmp / "collections"),
            str(tarball),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0 and "installed successfully" in res.stdout, res.stdout + res.stderr
    return tmp


def test_ansible_doc_after_install(installed: Path) -> None:
    env = clean_env(installed)
    # one ansible-doc for all modules (it documents each name it is given: one start-up instead of nine)
    res = subprocess.run(
        [str(BIN / "ansible-doc"), "--json", *(f"roceconf.fabric.{module}" for module in MODULES)],
        cwd=installed,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    docs = json.loads(res.stdout)
    assert sorted(docs) == sorted(f"roceconf.fabric.{module}" for module in MODULES)
    for module in MODULES:
        doc = docs[f"roceconf.fabric.{module}"]
        assert Path(doc["doc"]["filename"]).is_relative_to(installed / "collections")
        assert {"check_mode", "diff_mode"} <= set(doc["doc"]["attributes"])
        assert doc["doc"]["author"] in (
            "roceconf maintainers (@roceconf)",
            ["roceconf maintainers (@roceconf)"],
        )
    res = subprocess.run(
        [str(BIN / "ansible-doc"), "roceconf.fabric.drift"],
        cwd=installed,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0 and "roceconf.fabric.drift" in res.stdout and "fail_on" in res.stdout
    roles = installed / "collections" / "ansible_collections" / "roceconf" / "fabric" / "roles"
    assert sorted(p.name for p in roles.iterdir()) == ["apply", "bom", "cabling_check", "drift_audit", "generate",
                                                       "health_check"]
    role_names = ("apply", "bom", "cabling_check", "drift_audit", "generate", "health_check")
    res = subprocess.run([str(BIN / "ansible-doc"), "-t", "role", "--json", *(f"roceconf.fabric.{r}" for r in role_names)],
                         cwd=installed, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    role_docs = json.loads(res.stdout)
    for role in role_names:  # meta/argument_specs.yml documents each
        spec = role_docs[f"roceconf.fabric.{role}"]["entry_points"]["main"]
        assert spec["short_description"] and "roceconf_intent" in spec["options"], spec
    collection = installed / "collections" / "ansible_collections" / "roceconf" / "fabric"
    assert (collection / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert (collection / "playbooks" / "health_check.yml").is_file()
    assert (collection / "playbooks" / "bom.yml").is_file()
    res = subprocess.run([str(BIN / "ansible-doc"), "roceconf.fabric.bom"], cwd=installed, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "roceconf.acceptance.bom.collect" in res.stdout and "job_id" in res.stdout, res.stderr


SANITY_TESTS = (
    "validate-modules",
    "yamllint",
    "compile",
    "ansible-doc",
    "action-plugin-docs",
    "runtime-metadata",
    "empty-init",
    "line-endings",
    "no-assert",
    "no-get-exception",
    "no-illegal-filenames",
    "no-smart-quotes",
    "replace-urlopen",
    "shebang",
    "symlinks",
    "use-argspec-type-path",
    "use-compat-six",
    "ignores",
)


def test_ansible_test_sanity_passes(installed: Path) -> None:
    cache = installed / "home" / ".ansible" / "test" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    import pip
    from ansible_test._internal.python_requirements import get_venv_packages
    from ansible_test._internal.util import version_to_str

    version = get_venv_packages(type("Python", (), {"version": version_to_str(sys.version_info[:2])})())[
        "pip"
    ]
    (cache / f"get_pip_{version.replace('.', '_')}.py").write_text(
        GET_PIP.format(source=str(Path(pip.__file__).parent))
    )
    where = installed / "collections" / "ansible_collections" / "roceconf" / "fabric"
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    args = [str(BIN / "ansible-test"), "sanity", "--color", "no", "--python", py]
    for t in SANITY_TESTS:
        args += ["--test", t]
    res = subprocess.run(
        args, cwd=where, env=clean_env(installed), capture_output=True, text=True, timeout=1500
    )
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    for t in SANITY_TESTS:
        assert f'Running sanity test "{t}"' in out, t
    assert "ERROR" not in out, out[-6000:]
    # the only ignore is the licence header check (the collection is Apache-2.0, not GPLv3)
    ignores = (
        where / "tests" / "sanity" / f"ignore-{'.'.join(_core_version().split('.')[:2])}.txt"
    ).read_text()
    assert {line.split()[1] for line in ignores.splitlines()} == {"validate-modules:missing-gplv3-license"}


def _core_version() -> str:
    from ansible.release import __version__

    return __version__


# ------------------------------------------------------------------------------ the audit from outside
@pytest.fixture(scope="module")
def lab_fabric(installed: Path) -> Iterator[tuple[Lab, Path]]:
    fab = load_valid(INTENT)
    files = render_fabric(fab)
    password = "Lab-" + os.urandom(6).hex()
    with Lab("netops", password) as lab:
        for name, dev in fab.devices.items():
            ext = next(f for f in files if f.startswith(f"{name}."))
            lab.add(name, dev.platform, files[ext])

        def drop_pfc(text: str) -> str:  # leaf3 (SONiC) loses no-drop on one port, out of band
            data = json.loads(text)
            del data["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"]
            return json.dumps(data, indent=4)

        lab.edit("leaf3", drop_pfc)
        lab.edit(
            "spine2",
            lambda t: t.replace("set interfaces et-0/0/1 mtu 9214", "set interfaces et-0/0/1 mtu 1500"),
        )
        yield lab, _user_inventory(lab, installed / "user", password)


def _vault(secret: str, vault_password: str) -> str:
    from ansible.parsing.vault import VaultLib, VaultSecret

    enc = VaultLib([("default", VaultSecret(vault_password.encode()))]).encrypt(secret).decode()
    return "!vault |\n" + "\n".join("  " + line for line in enc.splitlines()) + "\n"


def _user_inventory(lab: Lab, root: Path, password: str) -> Path:
    """An inventory as an arista.avd / cisco.nxos / junipernetworks.junos user keeps it."""
    inv = root / "inventory"
    (inv / "group_vars").mkdir(parents=True)
    port = lab.port
    hosts = {
        "all": {
            "children": {
                "fabric": {
                    "children": {
                        "arista": {
                            "hosts": {
                                n: {"ansible_host": "{{ mgmt_net }}.1", "ansible_httpapi_port": port(n)}
                                for n in ("leaf1", "leaf4")
                            }
                        },
                        "nexus": {
                            "hosts": {
                                "spine1": {"ansible_host": "{{ mgmt_net }}.1", "ansible_port": port("spine1")}
                            }
                        },
                        "mx_qfx": {
                            "hosts": {
                                "spine2": {"ansible_host": "{{ mgmt_net }}.1", "ansible_port": port("spine2")}
                            }
                        },
                        "cumulus": {
                            "hosts": {
                                "leaf2": {
                                    "ansible_host": "{{ mgmt_net }}.1",
                                    "ansible_ssh_port": port("leaf2"),
                                }
                            }
                        },
                        "sonic": {
                            "hosts": {
                                "leaf3": {"ansible_host": "{{ mgmt_net }}.1", "ansible_port": port("leaf3")}
                            }
                        },
                    }
                },
                "gpus": {
                    "hosts": {
                        n: {"ansible_host": "{{ mgmt_net }}.1", "ansible_port": port(n)}
                        for n in ("gpu1", "gpu2", "gpu3", "gpu4")
                    }
                },
            }
        }
    }
    (inv / "hosts.yml").write_text(yaml.safe_dump(hosts, sort_keys=False))
    gv = inv / "group_vars"
    (gv / "all.yml").write_text("mgmt_net: \"{{ '127.0.0' }}\"\nansible_user: netops\n")
    (gv / "fabric.yml").write_text("ansible_password: " + _vault(password, "vault-" + password[-4:]))
    (root / "vault-pass").write_text("vault-" + password[-4:] + "\n")
    (gv / "arista.yml").write_text(
        "ansible_network_os: arista.eos.eos\nansible_connection: ansible.netcommon.httpapi\n"
        "ansible_httpapi_use_ssl: true\nansible_httpapi_validate_certs: true\n"
        f"ansible_httpapi_ca_path: {lab.ca_file}\n"
    )
    (gv / "nexus.yml").write_text(
        "ansible_network_os: cisco.nxos.nxos\nansible_connection: ansible.netcommon.network_cli\n"
    )
    (gv / "mx_qfx.yml").write_text(
        "ansible_network_os: junipernetworks.junos.junos\nansible_connection: ansible.netcommon.network_cli\n"
    )
    (gv / "cumulus.yml").write_text(
        "ansible_network_os: nvidia.nvue.httpapi\nansible_connection: ansible.netcommon.httpapi\n"
    )
    (gv / "sonic.yml").write_text(
        "ansible_network_os: dellemc.enterprise_sonic.sonic\nansible_connection: ansible.netcommon.network_cli\n"
    )
    (gv / "gpus.yml").write_text(f"ansible_ssh_private_key_file: {lab.client_key_file}\n")
    host_vars = inv / "host_vars"
    host_vars.mkdir()
    for name, plat in (("gpu1", "connectx"), ("gpu2", "connectx"), ("gpu3", "bnxt"), ("gpu4", "linux-dcb")):
        (host_vars / f"{name}.yml").write_text(f"roceconf_platform: {plat}\n")
    return inv


def _verdicts(devices: list[dict]) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
    return {
        d["device"]: (d["status"], d["worst_severity"], tuple(sorted(i["field"] for i in d["items"])))
        for d in devices
    }


def test_drift_audit_role_from_a_user_playbook_matches_the_cli(
    installed: Path, lab_fabric: tuple[Lab, Path]
) -> None:
    lab, inv = lab_fabric
    user = inv.parent
    playbook = user / "nightly.yml"
    playbook.write_text(
        "- name: Nightly RoCE audit\n  hosts: all\n  gather_facts: false\n  tasks:\n"
        "    - name: Audit against the intent\n      ansible.builtin.import_role:\n"
        "        name: roceconf.fabric.drift_audit\n        rolespec_validate: false\n"
        f"      vars:\n        roceconf_intent: {INTENT}\n        roceconf_report_dir: {user / 'reports'}\n"
        "        roceconf_retries: 0\n"
    )
    env = clean_env(installed)
    res = subprocess.run(
        [
            str(BIN / "ansible-playbook"),
            "-i",
            str(inv),
            str(playbook),
            "--vault-password-file",
            str(user / "vault-pass"),
            "--forks",
            "10",
        ],
        cwd=user,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = res.stdout + res.stderr
    assert lab.password not in out
    assert res.returncode != 0, out[-4000:]  # critical drift on leaf3 and spine2 fails the audit
    assert re.search(r"leaf3: \[critical\] interfaces\.Ethernet0\.pfc\.no_drop", out), out[-4000:]
    (folder,) = (user / "reports").iterdir()
    playbook_report = json.loads((folder / "drift.json").read_text())
    verdicts = _verdicts(playbook_report["devices"])
    assert {n: v[0] for n, v in verdicts.items() if v[0] != "in_sync"} == {
        "leaf3": "drift",
        "spine2": "drift",
    }, verdicts
    assert len(verdicts) == 10 and playbook_report["summary"]["unknown"] == 0

    res = subprocess.run(
        [
            str(BIN / "roceconf"),
            "drift",
            str(INTENT),
            "--inventory",
            str(inv),
            "--format",
            "json",
            "--retries",
            "0",
        ],
        cwd=user,
        env={**env, "ROCECONF_VAULT_PASSWORD_FILE": str(user / "vault-pass")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 1, res.stdout[-3000:] + res.stderr[-3000:]
    assert lab.password not in res.stdout + res.stderr
    cli_report = json.loads(res.stdout)
    assert _verdicts(cli_report["devices"]) == verdicts
    # the same targets: same addresses and ports for every device
    assert {d["device"]: d["source"] for d in cli_report["devices"]} == {
        d["device"]: d["source"] for d in playbook_report["devices"]
    }
    # the GPU hosts logged in with the key only (the inventory gives them no password)
    assert all(lab.stats(n)["logins"] >= 2 and lab.stats(n)["auth_failures"] == 0 for n in ("gpu1", "gpu4"))
