"""`roceconf report merge` and `--slice` on hostile input: each case is one line naming the file and field, exit 2,
never a traceback, a hang (a FIFO where a result file should be) or a report that looks green."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from roceconf.compile import load_valid, render_fabric
from tests.hostile.harness import LAB, check, run


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two slices of a clean audit of the lab intent's saved configs."""
    tmp = tmp_path_factory.mktemp("slices")
    cfg = tmp / "cfg"
    cfg.mkdir()
    for name, text in render_fabric(load_valid(LAB)).items():
        (cfg / name).write_text(text)
    for k in (1, 2):
        o = run("drift", str(LAB), "--configs", str(cfg), "--slice", f"{k}/2", "--results-dir", str(tmp / "res"))
        check(o, bad_input=False, rc=0)
    return tmp / "res"


def _copy(good: Path, dest: Path) -> Path:
    for s in good.iterdir():
        (dest / s.name).mkdir(parents=True)
        for f in s.iterdir():
            (dest / s.name / f.name).write_text(f.read_text())
    return dest


@pytest.mark.parametrize(
    ("file", "content", "names"),
    [
        ("slice.json", "{not json", ("slice.json", "not JSON")),
        ("slice.json", "[1, 2]", ("slice.json", "not a JSON object")),
        ("slice.json", json.dumps({"kind": "rm -rf /", "devices": []}), ("slice.json", "'kind'")),
        ("slice.json", json.dumps({"kind": "drift", "devices": "gpu1"}), ("slice.json", "'devices'")),
        ("drift.json", json.dumps({"devices": [{"device": "evil<script>", "status": "in_sync"}]}),
         ("drift.json", "evil<script>", "not in the intent")),
        ("drift.json", json.dumps({"devices": [{"device": "gpu1", "status": "green", "platform": "connectx"}]}),
         ("drift.json", "gpu1")),
        ("drift.json", json.dumps({"devices": 5}), ("drift.json", "'devices'")),
    ],
)
def test_bad_slice_results_are_one_line(good: Path, tmp_path: Path, file: str, content: str,
                                        names: tuple[str, ...]) -> None:
    res = _copy(good, tmp_path / "res")
    (res / "slice1of2" / file).write_text(content)
    check(run("report", "merge", str(res)), names=names)


def test_a_fifo_is_not_read(good: Path, tmp_path: Path) -> None:
    res = _copy(good, tmp_path / "res")
    (res / "slice2of2" / "drift.json").unlink()
    os.mkfifo(res / "slice2of2" / "drift.json")
    check(run("report", "merge", str(res)), names=("drift.json", "not a regular file"))


def test_a_half_written_slice_is_unknown_never_green(good: Path, tmp_path: Path) -> None:
    res = _copy(good, tmp_path / "res")
    (res / "slice2of2" / "slice.json").unlink()  # the slice died before its last write
    o = run("report", "merge", str(res))
    check(o, bad_input=False, rc=3)
    assert "missing" in o.stderr


@pytest.mark.parametrize("spec", ["0/2", "3/2", "1/0", "1/2/3", "-1/2", "x"])
def test_bad_slice_specs(tmp_path: Path, spec: str) -> None:
    check(run("drift", str(LAB), "--configs", str(tmp_path), "--slice", spec, "--results-dir", str(tmp_path)),
          names=(spec,))
