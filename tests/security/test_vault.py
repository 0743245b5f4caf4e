"""A vault that cannot be opened ends in one clear line, exit 2 (issue item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.helpers import LAB, run


def _vaulted_inventory(tmp_path: Path) -> Path:
    from ansible.parsing.vault import VaultLib, VaultSecret

    vault = VaultLib([("default", VaultSecret(b"right-password"))])
    blob = vault.encrypt("s3cret").decode()
    body = "\n".join("          " + ln for ln in blob.splitlines())
    inv = tmp_path / "inventory.yml"
    inv.write_text(
        "all:\n  hosts:\n    leaf1:\n      ansible_host: 127.0.0.1\n      ansible_port: 1\n"
        "      platform: eos\n      ansible_user: admin\n      ansible_password: !vault |\n" + body + "\n"
    )
    return inv


@pytest.mark.parametrize(
    ("password", "expect"),
    [
        ("wrong-password", "wrong vault password"),
        (None, "no vault password (set ROCECONF_VAULT_PASSWORD_FILE)"),
    ],
)
@pytest.mark.parametrize("command", ["drift", "check"])
def test_vault_that_cannot_be_opened(tmp_path: Path, password: str | None, expect: str, command: str) -> None:
    inv = _vaulted_inventory(tmp_path)
    env = {"ROCECONF_VAULT_PASSWORD_FILE": "", "ANSIBLE_VAULT_PASSWORD_FILE": ""}
    if password is not None:
        pw = tmp_path / "vault-pass"
        pw.write_text(password + "\n")
        env["ROCECONF_VAULT_PASSWORD_FILE"] = str(pw)
    res = run(command, str(LAB), "--inventory", str(inv), "--timeout", "1", "--retries", "0", env=env)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    errs = [ln for ln in res.stderr.splitlines() if ln.startswith("error")]
    assert errs == [f"error: cannot decrypt ansible_password of leaf1: {expect} (" + errs[0].split(" (")[-1]]
    assert "s3cret" not in res.stdout + res.stderr


@pytest.mark.parametrize("kind", ["fifo", "huge", "directory"])
def test_vault_password_file_that_is_not_a_small_regular_file(tmp_path: Path, kind: str) -> None:
    """A FIFO would hang the read, a huge file would be loaded whole: both are refused before Ansible opens
    them, in one line naming the file."""
    import os

    inv = _vaulted_inventory(tmp_path)
    pw = tmp_path / "vault-pass"
    if kind == "fifo":
        os.mkfifo(pw)
    elif kind == "huge":
        pw.write_bytes(b"x" * (64 * 1024 + 1))
    else:
        pw.mkdir()
    env = {"ROCECONF_VAULT_PASSWORD_FILE": str(pw), "ANSIBLE_VAULT_PASSWORD_FILE": ""}
    res = run("drift", str(LAB), "--inventory", str(inv), "--timeout", "1", "--retries", "0", env=env, timeout=60)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    errs = [ln for ln in res.stderr.splitlines() if ln.startswith("error")]
    assert len(errs) == 1 and errs[0].startswith("error: cannot read the vault password file "), errs
    assert str(pw) in errs[0]
