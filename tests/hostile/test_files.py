"""Hostile input files for every command that reads one (roceconf/inputfile.py): a FIFO, a character device
that never ends (/dev/zero, /dev/urandom), a directory and a file over its size cap, given as the intent, a
cabling CSV, an ASIC table, an inventory, a saved config, a saved counters file, a result file, a plan, a
verdict, a BOM, a baseline or a `parse` file. Each is refused without being read: no hang, no memory
blow-up, no traceback; for a file named on the command line exit 2 with one line naming it, for a file
found in a directory of per-device files that device is unknown with the reason."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.hostile.harness import LAB, ROOT, check, run, tree_snapshot

GOLDEN = ROOT / "tests" / "golden"
RESULTS = ROOT / "tests" / "fixtures" / "acceptance"
KINDS = ("fifo", "zero", "urandom", "directory", "oversize")


def hostile(tmp: Path, kind: str, name: str = "hostile.yml") -> Path:
    """A path of the given kind under ``tmp`` (the devices through a link, as a user would name them)."""
    p = tmp / name
    if kind == "fifo":
        os.mkfifo(p)
    elif kind in ("zero", "urandom"):
        p.symlink_to(f"/dev/{kind}")
    elif kind == "directory":
        p.mkdir()
    elif kind == "oversize":  # over a 1 MiB cap set for the run (the real caps are tens of MiB)
        p.write_bytes(b"# " + b"x" * (3 << 20) + b"\n")
    return p


def _env(kind: str) -> dict[str, str]:
    return {"ROCECONF_MAX_INPUT_MIB": "1"} if kind == "oversize" else {}


# ------------------------------------------------------------------------- files named on the command line
def _intent_with_csv(tmp: Path, csv: Path) -> Path:
    intent = tmp / "intent.yml"
    text = LAB.read_text(encoding="utf-8")
    intent.write_text(text.replace("links:\n", f"links:\n  - csv: {csv.name}\n", 1), encoding="utf-8")
    return intent


# each: (command args with {h} for the hostile path and {o} for an output place, how the file is named)
NAMED: dict[str, list[str]] = {
    "validate-intent": ["validate", "{h}"],
    "render-intent": ["render", "{h}", "-o", "{o}"],
    "expand-intent": ["expand", "{h}"],
    "check-intent": ["check", "{h}"],
    "headroom-intent": ["headroom", "{h}"],
    "drift-intent": ["drift", "{h}", "--configs", str(GOLDEN)],
    "plan-old-intent": ["plan", "{h}", str(LAB)],
    "plan-new-intent": ["plan", str(LAB), "{h}"],
    "acceptance-plan-intent": ["acceptance", "plan", "{h}"],
    "check-asic-table": ["check", str(LAB), "--asic-table", "{h}"],
    "headroom-asic-table": ["headroom", str(LAB), "--asic-table", "{h}"],
    "drift-inventory": ["drift", str(LAB), "--inventory", "{h}"],
    "health-inventory": ["health", str(LAB), "--inventory", "{h}"],
    "bom-inventory": ["bom", str(LAB), "--inventory", "{h}"],
    "check-inventory": ["check", str(LAB), "--inventory", "{h}"],
    "parse-file": ["parse", "--platform", "nvue", "{h}"],
    "parse-file-eos": ["parse", "--platform", "eos", "{h}"],
    "verdict-result": ["acceptance", "verdict", "{h}"],
    "verdict-plan": ["acceptance", "verdict", str(RESULTS), "--plan", "{h}"],
    "record-verdict": ["acceptance", "record", "{h}", "--bom", "{h}", "-o", "{o}"],
    "drift-baseline": ["drift", str(LAB), "--configs", str(GOLDEN), "--baseline", "{h}"],
}


# a directory of results is what `acceptance verdict` reads: not a hostile case there
CASES = [(slot, kind) for slot in sorted(NAMED) for kind in KINDS if (slot, kind) != ("verdict-result", "directory")]


@pytest.mark.parametrize(("slot", "kind"), CASES)
def test_a_named_input_that_is_no_readable_file_is_one_line_exit_2(tmp_path: Path, slot: str, kind: str) -> None:
    h = hostile(tmp_path, kind)
    out = tmp_path / "out"
    before = tree_snapshot(tmp_path)
    o = run(*[a.format(h=h, o=out) for a in NAMED[slot]], env=_env(kind))
    if slot.startswith("plan-"):  # plan exits 1 on any error today (its exit codes are issue 24 item 13)
        check(o, bad_input=False)
        assert o.rc in (1, 2) and str(h) in o.output, o.output[-2000:]
    elif slot == "verdict-result" and kind == "oversize":  # a result that cannot be judged fails the verdict
        check(o, rc=1, names=(str(h.name), "ROCECONF_MAX_INPUT_MIB"))
    else:
        check(o, names=(str(h),))
    after = tree_snapshot(tmp_path)
    assert after == before or set(after) - set(before) <= {"out"}, "written outside the named output"


# ------------------------------------------------------------------------- a CSV the intent names
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["validate", "expand", "render", "check"])
def test_a_cabling_table_that_is_no_readable_file(tmp_path: Path, command: str, kind: str) -> None:
    csv = hostile(tmp_path, kind, "links.csv")
    intent = _intent_with_csv(tmp_path, csv)
    args = [command, str(intent)] + (["-o", str(tmp_path / "out")] if command == "render" else [])
    o = run(*args, env=_env(kind))
    # validate also lists the lab intent's warnings: the error is the one line naming the table
    check(o, bad_input=command != "validate", rc=2, names=("links.csv",))
    errors = [ln for ln in o.output.splitlines() if "error[" in ln]
    assert len(errors) == 1 and "links.csv" in errors[0], o.output[-2000:]


# ------------------------------------------------------------------------- files in a directory of devices
def _configs(tmp: Path, kind: str) -> Path:
    d = tmp / "configs"
    shutil.copytree(GOLDEN, d)
    (d / "leaf1.cfg").unlink()
    hostile(d, kind, "leaf1.cfg")
    return d


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["drift", "check"])
def test_a_saved_config_that_is_no_readable_file_leaves_its_device_unknown(
    tmp_path: Path, command: str, kind: str
) -> None:
    d = _configs(tmp_path, kind)
    o = run(command, str(LAB), "--configs", str(d), env=_env(kind))
    check(o, bad_input=False)
    assert o.rc not in (0, None), o.output[-2000:]  # never in sync
    assert "leaf1.cfg" in o.output


@pytest.mark.parametrize("kind", KINDS)
def test_a_saved_counters_file_that_is_no_readable_file_leaves_its_device_unknown(tmp_path: Path, kind: str) -> None:
    d = tmp_path / "counters"
    d.mkdir()
    hostile(d, kind, "leaf1.counters.json")
    o = run("health", str(LAB), "--counters", str(d), env=_env(kind))
    check(o, bad_input=False)
    assert o.rc not in (0, None)
    assert "leaf1.counters.json" in o.output


@pytest.mark.parametrize("kind", ["fifo", "zero", "urandom"])
def test_a_result_directory_with_a_fifo_or_device_is_read_without_it(tmp_path: Path, kind: str) -> None:
    d = tmp_path / "results"
    shutil.copytree(RESULTS / "perftest", d)
    hostile(d, kind, "planted.txt")
    o = run("acceptance", "verdict", str(d))
    check(o, bad_input=False)
    assert o.rc is not None


def test_the_cap_message_says_how_to_raise_it(tmp_path: Path) -> None:
    h = hostile(tmp_path, "oversize")
    o = run("validate", str(h), env={"ROCECONF_MAX_INPUT_MIB": "1"})
    check(o, names=(str(h), "ROCECONF_MAX_INPUT_MIB", "1048576"))
    o = run("validate", str(h), env={"ROCECONF_MAX_INPUT_MIB": "8"})  # raised: read (and judged as YAML)
    assert "ROCECONF_MAX_INPUT_MIB" not in o.output


# ------------------------------------------------------------------------- NVUE parser: linear
def _timed(tmp: Path, name: str, text: str, platform: str = "nvue") -> float:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    o = run("parse", "--platform", platform, str(p), "--output", str(tmp / f"{name}.out"))
    check(o, bad_input=False, rc=0)
    return o.seconds


def test_a_long_nvue_command_line_parses_in_linear_time(tmp_path: Path) -> None:
    """shlex grew one word a character at a time: a 4 MB `nv set` line took minutes."""
    word = "a" * (4 << 20)
    secs = _timed(tmp_path, "long.txt", f"nv set system hostname {word}\nnv set interface swp1 link mtu 9216\n")
    quoted = _timed(tmp_path, "quoted.txt", f'nv set system message pre-login "{"a " * (2 << 20)}"\n')
    assert secs < 10 and quoted < 10, (secs, quoted)

