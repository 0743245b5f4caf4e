"""Bad input never ends in a traceback (issue 24, item 13): one line naming the file (and line or field
where there is one), exit 2, through the real command line, bounded in time and memory.

Deep JSON (the parser recurses once per level) in counter, baseline, plan, verdict, BOM, manifest and result
files; malformed baselines, BOMs, verdicts and plans; bad settings files (a pyproject.toml in the working
directory included); --session-log on storage that cannot take it; .inf / .nan in --asic-table; a NUL byte in
a CSV path; a 1,500-level results directory; bad `lab` arguments; `plan` on invalid input; options that
cannot go together.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile import harness

LAB = str(harness.LAB)
DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 50_000 + "1" + "}" * 50_000
BROKEN_INTENT = harness.ROOT / "tests" / "intents" / "broken" / "rc104_cnp_not_strict.yml"
RESULT = harness.ROOT / "tests" / "fixtures" / "acceptance" / "nccl-tests" / "issue-252-all-reduce-ring.txt"
CREDS = {"ROCECONF_USERNAME": "lab", "ROCECONF_PASSWORD": "lab-password-not-a-secret"}


def _unnest(top: Path) -> None:
    """Remove a very deep tree one level at a time (shutil.rmtree, and so pytest's own clean-up of old
    temporary directories, recurses once per level and fails past ~1,000)."""
    while top.exists():
        child = top / "r"
        spare = top.parent / (top.name + ".next")
        if child.is_dir():
            child.rename(spare)
        shutil.rmtree(top)
        if not spare.exists():
            return
        spare.rename(top)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    d = tmp_path_factory.mktemp("hostile")
    (d / "deep.json").write_text(DEEP)
    (d / "deep-object.json").write_text(DEEP_OBJECT)
    (d / "configs").mkdir()
    (d / "verdict.json").write_text(json.dumps({"passed": True, "tests": []}))
    (d / "bom.json").write_text(json.dumps({"devices": {"leaf1": {"status": "read", "facts": {}}}}))
    bad = {
        "baseline-entry.json": {"bom": {"devices": {"leaf1": 5}}},
        "baseline-facts.json": {"bom": {"devices": {"leaf1": {"status": "read", "facts": [1]}}}},
        "baseline-nics.json": {"bom": {"devices": {"leaf1": {"status": "read", "facts": {"nics": {"eth0": "x"}}}}}},
        "baseline-verdict.json": {"bom": {"devices": {}}, "verdict": [1]},
        "bom-entry.json": {"devices": {"leaf1": 5}},
        "verdict-tests.json": {"passed": True, "tests": 5},
        "verdict-passed.json": {"passed": "yes", "tests": []},
        "plan-hosts.json": {"fabric": "x"},
        "plan-list.json": [1, 2],
        "plan-types.json": {"fabric": "x", "intent": "i", "roce_dscp": 26, "traffic_class": 106, "ecn_bits": 2,
                            "hosts": [1], "perftest": [], "nccl": [], "thresholds": {}, "launcher": "mpirun"},
    }
    for name, data in bad.items():
        (d / name).write_text(json.dumps(data))
    (d / "asic-inf.yml").write_text("tomahawk4:\n  buffer_bytes: .inf\n  cell_bytes: 256\n")
    (d / "asic-nan.yml").write_text("tomahawk4:\n  buffer_bytes: 1000000\n  cell_bytes: .nan\n")
    # a render's own manifest and journal, made unreadable
    (d / "out-manifest").mkdir()
    (d / "out-manifest" / ".roceconf-manifest.json").write_text(DEEP)
    (d / "out-journal" / ".roceconf-staging").mkdir(parents=True)
    (d / "out-journal" / ".roceconf-staging" / "journal.json").write_text(DEEP)
    # counters of one device
    (d / "counters").mkdir()
    (d / "counters" / "leaf1.counters.json").write_text(DEEP)
    # 1,500 levels of results directories (made level by level: os.makedirs itself recurses)
    (d / "results").mkdir()
    fd = os.open(d / "results", os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("r", dir_fd=fd)
        nfd = os.open("r", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    out = os.open("result.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(out, RESULT.read_bytes())
    os.close(out)
    os.close(fd)
    # an intent whose cabling table's path has a NUL byte
    (d / "nul.yml").write_text(
        "version: 1\nfabric: n\ndevices:\n"
        "  - {name: leaf1, platform: eos, role: leaf, interfaces: [{name: Ethernet1, speed: 400G}]}\n"
        'links:\n  - csv: "cables\\0.csv"\n'
    )
    # settings files, each in a directory of its own (read from the working directory)
    settings = {
        "bool": ("roceconf.toml", b'[validate]\nstrict = "maybe"\n'),
        "count": ("roceconf.toml", b'verbose = "x"\n'),
        "path": ("roceconf.toml", b"session-log = 5\n"),
        "list": ("roceconf.toml", b"[drift]\nworkers = [1, 2]\n"),
        "utf8": ("roceconf.toml", b"\xff[validate]\n"),
        "pyproject-utf8": ("pyproject.toml", b"[tool.roceconf]\nverbose = 1\n\xff\xfe\n"),
        "pyproject-toml": ("pyproject.toml", b"[tool.roceconf]\nverbose = \n"),
        "pyproject-table": ("pyproject.toml", b"[tool]\nroceconf = 5\n"),
    }
    for key, (name, data) in settings.items():
        (d / "settings" / key).mkdir(parents=True)
        (d / "settings" / key / name).write_bytes(data)
    # rendered configs for `lab`
    o = harness.run("render", LAB, "-o", str(d / "rendered"))
    harness.check(o, bad_input=False, rc=0)
    yield d
    _unnest(d / "results")


def _case(o: harness.Outcome, *names: str, rc: int = 2) -> None:
    harness.check(o, names=names, rc=rc if rc != 2 else None)


# ------------------------------------------------------------------------------------------- deep JSON
def test_deep_json_in_a_baseline(files: Path) -> None:
    o = harness.run("drift", LAB, "--configs", str(files / "configs"), "--baseline", str(files / "deep.json"))
    _case(o, "deep.json", "nested too deeply")


def test_deep_json_in_a_plan(files: Path) -> None:
    o = harness.run("acceptance", "verdict", str(RESULT), "--plan", str(files / "deep.json"))
    _case(o, "deep.json", "nested too deeply")


def test_deep_json_in_a_verdict_and_a_bom(files: Path) -> None:
    o = harness.run("acceptance", "record", str(files / "deep.json"), "--bom", str(files / "bom.json"),
                    "-o", str(files / "base.json"))
    _case(o, "deep.json", "verdict")
    o = harness.run("acceptance", "record", str(files / "verdict.json"), "--bom", str(files / "deep-object.json"),
                    "-o", str(files / "base.json"))
    _case(o, "deep-object.json", "BOM")
    assert not (files / "base.json").exists()


def test_deep_json_in_counters_is_an_unknown_device(files: Path) -> None:
    """Counters that cannot be read make their device unknown (exit 3) with the file named, as any other
    unreadable counters file: never a traceback, never healthy."""
    o = harness.run("health", LAB, "--counters", str(files / "counters"), "--device", "leaf1")
    harness.check(o, bad_input=False, rc=3)
    assert "leaf1.counters.json" in o.output and "nested too deeply" in o.output


def test_deep_json_in_result_files_fails_the_file(files: Path) -> None:
    for name in ("deep.json", "deep-object.json"):
        o = harness.run("acceptance", "verdict", str(files / name))
        harness.check(o, bad_input=False, rc=1)
        assert "RC409" in o.output and name in o.output


@pytest.mark.parametrize("out", ["out-manifest", "out-journal"])
def test_a_render_directory_with_an_unreadable_manifest_or_journal(files: Path, out: str) -> None:
    """The manifest and journal are roceconf's own: unreadable ones are no render, never a crash."""
    o = harness.run("render", LAB, "-o", str(files / out), "--check")
    harness.check(o, bad_input=False, rc=1)  # nothing rendered there yet: every file missing
    o = harness.run("render", LAB, "-o", str(files / out))
    harness.check(o, bad_input=False, rc=0)
    json.loads((files / out / ".roceconf-manifest.json").read_text())


# ------------------------------------------------------------------------------------------- malformed
@pytest.mark.parametrize(
    "name, field",
    [
        ("baseline-entry.json", "bom.devices.leaf1"),
        ("baseline-facts.json", "bom.devices.leaf1.facts"),
        ("baseline-nics.json", "facts.nics"),
        ("baseline-verdict.json", "verdict"),
    ],
)
def test_a_malformed_baseline(files: Path, name: str, field: str) -> None:
    o = harness.run("drift", LAB, "--configs", str(files / "configs"), "--baseline", str(files / name))
    _case(o, name, field)


@pytest.mark.parametrize(
    "verdict, bom, name, field",
    [
        ("verdict.json", "bom-entry.json", "bom-entry.json", "devices.leaf1"),
        ("verdict-tests.json", "bom.json", "verdict-tests.json", "tests"),
        ("verdict-passed.json", "bom.json", "verdict-passed.json", "passed"),
    ],
)
def test_a_malformed_verdict_or_bom_is_not_recorded(files: Path, verdict: str, bom: str, name: str, field: str) -> None:
    o = harness.run("acceptance", "record", str(files / verdict), "--bom", str(files / bom), "-o", str(files / "b.json"))
    _case(o, name, field)
    assert not (files / "b.json").exists()


@pytest.mark.parametrize(
    "plan, words",
    [
        ("plan-hosts.json", ("plan-hosts.json", "hosts")),
        ("plan-list.json", ("plan-list.json",)),
        ("plan-types.json", ("plan-types.json", "not an acceptance plan")),
        ("nosuch.json", ("nosuch.json",)),
        (LAB, ("intent.yml", "not a JSON")),  # the intent given for the plan
    ],
    ids=["no-hosts", "a-list", "wrong-types", "missing", "the-intent"],
)
def test_a_mistyped_plan(files: Path, plan: str, words: tuple[str, ...]) -> None:
    path = plan if plan.startswith("/") else str(files / plan)
    o = harness.run("acceptance", "verdict", str(RESULT), "--plan", path)
    _case(o, *words)


def test_a_results_directory_1500_levels_deep(files: Path) -> None:
    o = harness.run("acceptance", "verdict", str(files / "results"))
    _case(o, "results", "deeper than")


# ------------------------------------------------------------------------------------------- settings
@pytest.mark.parametrize(
    "key, words",
    [
        ("bool", ("roceconf.toml", "strict")),
        ("count", ("roceconf.toml", "verbose")),
        ("path", ("roceconf.toml", "session-log")),
        ("list", ("roceconf.toml", "workers")),
        ("utf8", ("roceconf.toml", "UTF-8")),
        ("pyproject-utf8", ("pyproject.toml", "UTF-8")),
        ("pyproject-toml", ("pyproject.toml", "TOML")),
    ],
)
@pytest.mark.parametrize("command", [("validate", LAB), ("acceptance", "verdict", str(RESULT))])
def test_a_bad_settings_file_in_the_working_directory(files: Path, key: str, words: tuple[str, ...], command: tuple[str, ...]) -> None:
    o = harness.run(*command, cwd=files / "settings" / key)
    _case(o, *words)


def test_a_bad_settings_file_given_by_name(files: Path) -> None:
    o = harness.run("--config", str(files / "settings" / "pyproject-table" / "pyproject.toml"), "validate", LAB)
    _case(o, "pyproject.toml", "tool.roceconf")


# ------------------------------------------------------------------------------------------- session log
@pytest.mark.parametrize("where", ["/dev/full", "/proc/self/roceconf-logs", "/sys/roceconf-logs"])
def test_session_log_where_no_directory_can_be_made(where: str) -> None:
    o = harness.run("--session-log", where, "validate", LAB)
    _case(o, "--session-log", where)


def test_session_log_on_full_storage(tmp_path: Path) -> None:
    """The log cannot be written in full (the run's file size limit acts out a full disk): one line, exit 2 -
    a log that was asked for and is incomplete is no success."""
    o = harness.run("--session-log", str(tmp_path / "logs"), "acceptance", "verdict", str(RESULT), fsize=64)
    _case(o, "--session-log", str(tmp_path / "logs"))


# ------------------------------------------------------------------------------------------- intent side files
@pytest.mark.parametrize("table, field", [("asic-inf.yml", "buffer_bytes"), ("asic-nan.yml", "cell_bytes")])
@pytest.mark.parametrize("command", ["check", "headroom"])
def test_infinite_or_nan_numbers_in_an_asic_table(files: Path, table: str, field: str, command: str) -> None:
    o = harness.run(command, LAB, "--asic-table", str(files / table))
    _case(o, table, field, "RC024")


@pytest.mark.parametrize("command", [("validate",), ("render", "-o", "OUT"), ("expand",), ("check",)])
def test_a_nul_byte_in_a_cabling_table_path(files: Path, command: tuple[str, ...]) -> None:
    args = [command[0], str(files / "nul.yml"), *[str(files / "nul-out") if a == "OUT" else a for a in command[1:]]]
    o = harness.run(*args)
    _case(o, "nul.yml", "NUL")


# ------------------------------------------------------------------------------------------- options and lab
def test_save_configs_with_configs_is_refused(files: Path) -> None:
    o = harness.run("drift", LAB, "--configs", str(files / "configs"), "--save-configs", str(files / "saved"))
    _case(o, "--save-configs", "--configs")
    assert not (files / "saved").exists()


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--fault", "leaf1=nosuch"), ("nosuch", "unknown fault")),
        (("--fault", "nosuchdevice=hang"), ("nosuchdevice",)),
        (("--platform", "nosuchdevice=eos"), ("nosuchdevice",)),
        (("--platform", "leaf1=bogus"), ("bogus", "unknown platform")),
        (("--scenario", "bogus"), ("bogus",)),
        (("--ttl", "nan"), ("--ttl",)),
        (("--ttl", "abc"), ("--ttl",)),
        (("--ttl", "-5"), ("--ttl",)),
    ],
)
def test_bad_lab_arguments(files: Path, extra: tuple[str, ...], words: tuple[str, ...]) -> None:
    inv = files / "lab-inventory.yml"
    o = harness.run("lab", "--configs", str(files / "rendered"), "--inventory-out", str(inv), "--ttl", "1", *extra,
                    env=CREDS)
    _case(o, *words)
    assert not inv.exists()


# ------------------------------------------------------------------------------------------- plan
def test_plan_on_invalid_input_exits_2() -> None:
    o = harness.run("plan", "/nonexistent/intent.yml", LAB)
    _case(o, "/nonexistent/intent.yml")
    o = harness.run("plan", "/nonexistent/intent.yml", LAB, "--detailed-exitcode")  # there 2 means changes
    harness.check(o, bad_input=False, rc=1)


def test_plan_from_an_invalid_old_side_is_an_error_not_every_device_added(tmp_path: Path) -> None:
    """OLD with a range that cannot be expanded lacks those devices: the plan would add them. An error."""
    old = tmp_path / "old.yml"
    old.write_text(harness.LAB.read_text().replace("- name: gpu[1-2]", "- name: gpu[1-2x]", 1))
    o = harness.run("plan", str(old), LAB)
    _case(o, "old.yml", "OLD", "RC006")
    assert "to add" not in o.output and "gpu1" not in o.output
    # an OLD whose semantic findings NEW keeps is still planned (only new findings are shown)
    o = harness.run("plan", str(BROKEN_INTENT), str(BROKEN_INTENT))
    harness.check(o, bad_input=False, rc=1)  # NEW has an error: unsafe
    assert "No changes" in o.stdout


@pytest.mark.parametrize(
    "command",
    [("drift", LAB, "--inventory"), ("check", LAB, "--inventory"), ("health", LAB, "--inventory"), ("bom", LAB, "--inventory")],
)
def test_an_inventory_that_is_not_one(tmp_path: Path, command: tuple[str, ...]) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("- a\n- b\n")
    o = harness.run(*command, str(inv), "--timeout", "1")
    _case(o, "inventory.yml")
