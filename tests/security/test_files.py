"""Files the intent reads: confined to the intent's directory, never echoed (issue reproducers 3 and 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.helpers import cli, errors, lab_text

SECRET = "AWS_SECRET_ACCESS_KEY"


def _with_csv(tmp_path: Path, csv_ref: str) -> Path:
    d = tmp_path / "repo" / "fabric"
    d.mkdir(parents=True)
    text = lab_text().replace("links:\n", f"links:\n  - csv: {csv_ref}\n", 1)
    p = d / "intent.yml"
    p.write_text(text, encoding="utf-8")
    (tmp_path / "repo" / "secret.env").write_text(f"{SECRET},wJalrXUtnFEMI,leaf1,Ethernet1\n")
    return p


@pytest.mark.parametrize("ref", ["/etc/passwd", "../secret.env", "sub/../../secret.env"])
def test_cabling_table_outside_the_intent_directory_is_refused(tmp_path: Path, ref: str) -> None:
    res = cli("validate", str(_with_csv(tmp_path, ref)))
    assert res.exit_code == 2
    (line,) = errors(res.output)
    assert "error[RC018]: cabling table refused" in line
    assert SECRET not in res.output and "root:" not in res.output and "wJalr" not in res.output


def test_allowed_directory_lets_a_table_in(tmp_path: Path) -> None:
    p = _with_csv(tmp_path, "../secret.env")
    res = cli("validate", str(p), env={"ROCECONF_ALLOW_PATHS": str(tmp_path / "repo")})
    # allowed now: the rows are read; their device names do not exist and are quoted short
    assert "RC018" not in res.output
    assert "error[RC119]: link to undefined device 'AWS_SECRET_ACCESS_KEY'" in res.output


def test_cabling_table_inside_a_git_repository_is_allowed(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    p = _with_csv(tmp_path, "../tables/cabling.csv")
    (tmp_path / "repo" / "tables").mkdir()
    (tmp_path / "repo" / "tables" / "cabling.csv").write_text("leaf9,Ethernet1,leaf1,Ethernet1\n")
    res = cli("validate", str(p))
    assert "RC018" not in res.output and "RC119" in res.output


def test_non_utf8_cabling_table_is_one_line(tmp_path: Path) -> None:
    p = _with_csv(tmp_path, "bad.csv")
    (p.parent / "bad.csv").write_bytes(b"leaf1,Ethernet1,\xff\xfe\x00,x\n")
    res = cli("validate", str(p))
    assert res.exit_code == 2
    (line,) = errors(res.output)
    assert "error[RC012]: cannot read cabling table 'bad.csv': not UTF-8 text (byte 17" in line


def test_cabling_table_content_is_never_echoed_whole(tmp_path: Path) -> None:
    p = _with_csv(tmp_path, "big.csv")
    (p.parent / "big.csv").write_text(("A" * 5000) + ",Ethernet1,leaf1,Ethernet1\n")
    res = cli("validate", str(p))
    assert res.exit_code == 2
    assert "A" * 100 not in res.output
    assert "(5000 characters)" in res.output


def test_asic_table_with_negative_cell_size(tmp_path: Path) -> None:
    t = tmp_path / "asics.yml"
    t.write_text("tomahawk4: {buffer_bytes: 113000000, cell_bytes: -1}\n")
    for cmd in ("check", "headroom"):
        res = cli(
            cmd,
            str(Path(__file__).resolve().parents[2] / "inventories/lab/intent.yml"),
            "--asic-table",
            str(t),
        )
        assert res.exit_code == 2, res.output
        (line,) = errors(res.output)
        assert "error[RC024]: tomahawk4.cell_bytes must be a positive finite number (got -1)" in line


def test_asic_table_errors_do_not_echo_the_file(tmp_path: Path) -> None:
    t = tmp_path / "asics.yml"
    t.write_text(f"{SECRET}: [unclosed\n")
    res = cli(
        "headroom",
        str(Path(__file__).resolve().parents[2] / "inventories/lab/intent.yml"),
        "--asic-table",
        str(t),
    )
    assert res.exit_code == 2
    assert len(errors(res.output)) == 1
    assert all(len(line) < 300 for line in res.output.splitlines())
