"""EOS and NX-OS counter answers: the form (JSON or text) is told from each answer, never from how the command
was spelled when it was saved. JSON is read; a text answer is not (no published recording or documented
example of these commands' text layouts could be kept here, docs/health.md), so it gives a warning naming
the command and the device is ``unknown`` - never a value read by guessing at a layout."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from roceconf.counters.parsing import answer_form
from roceconf.platforms.eos import counters as eos
from roceconf.platforms.nxos import counters as nxos
from tests.test_health_real_counters import FIXTURES, _health, _outputs, _parse

EOS_DOC = FIXTURES / "eos/counters/documented-fields.txt"
EOS_ANTA = FIXTURES / "eos/counters/real/anta-eapi.txt"
NXOS = FIXTURES / "nxos/counters/schema-names.txt"
EOS_TEXT = "a text answer; not read (only the eAPI JSON answer, `| json` is read)"
NXOS_TEXT = "a text answer; not read (only the NX-API JSON answer, `| json` is read)"


def _flattened(answer: str) -> str:
    """A non-JSON answer carrying the same names and numbers: every string and number of the JSON answer,
    one interface per line. It is no vendor's layout (none is kept here): whatever a text answer looks like,
    it must not be read."""
    data = json.loads(answer)
    lines: list[str] = []

    def walk(node: object, path: list[str]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, [*path, str(k)])
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
        else:
            lines.append("  ".join([*path[-3:], str(node)]))

    walk(data, [])
    return "\n".join(lines) + "\n"


def test_the_form_is_told_from_the_answer() -> None:
    assert answer_form("") == "empty" and answer_form(" \n\n") == "empty"
    assert answer_form('{"interfaces": {}}') == "json"
    assert answer_form('sw1# show queuing interface | json\n{"TABLE_queuing_interface": {}}\nsw1#') == "json"
    assert answer_form('{"interfaces": {"Ethernet1": {"pri') == "json"  # a cut one: refused by json_object
    assert answer_form("Port      RxPfc  TxPfc\nEt1        10     20\n") == "text"
    assert answer_form("% Invalid input (at token 3: 'detail')\n") == "text"
    assert answer_form("|        Tx Pkts |              12|\n+-----------+\n") == "text"


@pytest.mark.parametrize("path", [EOS_DOC, EOS_ANTA], ids=["documented-fields", "anta"])
def test_eos_json_read_alike_whatever_the_command_spelling(path: Path) -> None:
    """A bundle saved with ``| json`` on every command reads to the snapshot of the one saved without."""
    outs = _outputs(path)
    full, warnings = _parse("eos", outs)
    assert full and warnings == []
    for spelling in ("{} | json", "{}  |  json", "{}|json"):
        got, warnings = _parse("eos", {spelling.format(c): t for c, t in outs.items()})
        assert got == full and warnings == [], spelling


def test_nxos_json_read_alike_with_or_without_the_output_filter() -> None:
    outs = _outputs(NXOS)
    full, warnings = _parse("nxos", outs)
    assert full and warnings == []
    for suffix in ("", " | json-pretty", " |json"):
        got, warnings = _parse("nxos", {c.replace(" | json", suffix): t for c, t in outs.items()})
        assert got == full and warnings == [], suffix
    # another output filter is not an answer of the command read here: nothing is taken from it
    got, warnings = _parse("nxos", {c.replace("| json", "| xml"): t for c, t in outs.items()})
    assert got == {} and warnings == []


@pytest.mark.parametrize(
    ("plat", "path", "problem"),
    [("eos", EOS_DOC, EOS_TEXT), ("eos", EOS_ANTA, EOS_TEXT), ("nxos", NXOS, NXOS_TEXT)],
    ids=["eos-documented-fields", "eos-anta", "nxos"],
)
def test_a_text_answer_of_each_command_is_not_read_and_says_so(plat: str, path: Path, problem: str) -> None:
    """Each command answered in text while the others answer in JSON: the JSON ones read exactly as alone,
    the text one gives no value, whole or cut anywhere, and one warning naming it."""
    outs = _outputs(path)
    for cmd, answer in outs.items():
        others = {c: t for c, t in outs.items() if c != cmd}
        alone, _ = _parse(plat, others)
        text = _flattened(answer)
        assert re.search(r"\d", text)  # the numbers are there to be misread
        base = cmd.replace(" | json", "")
        for cut in sorted({len(text), *range(1, len(text), max(1, len(text) // 40))}):
            got, warnings = _parse(plat, {**others, cmd: text[:cut]})
            assert got == alone, (cmd, cut)
            assert warnings == [f"{base if plat == 'eos' else cmd}: {problem}"], (cmd, cut)


def test_health_on_eos_text_answers_is_unknown_with_the_reason(tmp_path: Path) -> None:
    outs = {c: _flattened(t) for c, t in _outputs(EOS_DOC).items()}
    found, dev = _health(tmp_path, "eos", "Ethernet1,Ethernet49", [outs, outs])
    assert found == set() and dev["status"] == "unknown"
    assert dev["reason"].startswith("no counters for any of the intent's ports were read (")
    assert f"show priority-flow-control counters detail: {EOS_TEXT}" in dev["reason"]


def test_health_on_nxos_text_answers_is_unknown_with_the_reason(tmp_path: Path) -> None:
    outs = {c: _flattened(t) for c, t in _outputs(NXOS).items()}
    found, dev = _health(tmp_path, "nxos", "Ethernet1/1-2", [outs, outs])
    assert found == set() and dev["status"] == "unknown"
    assert f"{nxos.QUEUING}: {NXOS_TEXT}" in dev["reason"]


def test_names_not_understood_are_listed_under_debug(caplog: pytest.LogCaptureFixture) -> None:
    """A queue label or counter key a new release might print is listed, not read by guessing."""
    caplog.set_level(logging.DEBUG, logger="roceconf")
    outs = _outputs(EOS_DOC)
    for cmd in outs:
        eos.parse({cmd: outs[cmd]})
    assert "not understood" not in caplog.text  # the documented layout names nothing unknown
    outs[eos.WATCHDOG] = outs[eos.WATCHDOG].replace('"stuckCount"', '"stuckCountNew"', 1)
    outs[eos.QUEUES] = outs[eos.QUEUES].replace('"TC3"', '"TCX"')
    outs[eos.ECN] = outs[eos.ECN].replace('"3":', '"q3x":', 1)
    eos.parse(outs)
    for name in (
        f"{eos.WATCHDOG}: stuckCountNew",
        f"{eos.QUEUES}: traffic class TCX",
        f"{eos.ECN}: queue q3x",
    ):
        assert name in caplog.text, name
    caplog.clear()
    nx = _outputs(NXOS)
    nx[nxos.QUEUING] = nx[nxos.QUEUING].replace('"eq-qosgrp": "3"', '"eq-qosgrp": "q3"', 1)
    nxos.parse(nx)
    assert "eq-qosgrp 'q3'" in caplog.text
