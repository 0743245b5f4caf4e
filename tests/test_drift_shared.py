"""The work an audit shares between devices of one shape gives what the unshared path gives.

``Platform.parse_shared`` (EOS: texts equal outside their one hostname line share a parse) must return
states equal to ``parse`` for every text, whatever the memo holds; ``audit`` (parse memo, shared walks,
shared fixes) must report what ``audit_device`` reports device by device."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pickle
import random
from pathlib import Path

import pytest

from roceconf import platforms
from roceconf.drift import audit as audit_mod
from roceconf.drift import report as report_mod
from roceconf.intent import load_text
from roceconf.intent.desired import desired_states
from roceconf.render import render_state

INTENT = """version: 1
fabric: shared
qos:
  classes:
    - {name: roce, role: roce, dscp: [26], priority: 3, lossless: true,
       ecn: {min: 150KB, max: 1500KB, probability: 100}, scheduling: {mode: dwrr, weight_percent: 50}}
    - {name: cnp, role: cnp, dscp: [48], priority: 6, scheduling: {mode: strict}}
    - {name: default, dscp: [0], priority: 0, scheduling: {mode: dwrr, weight_percent: 50}}
mtu: {switch_port: 9214, host_nic: 9000, roce_path: 4096}
devices:
  - {name: 'leaf[1-6]', platform: eos, role: leaf, asic: tomahawk4,
     interfaces: [{name: Ethernet1-8, speed: 400G, role: host}]}
"""


def _texts() -> list[str]:
    fab = load_text(INTENT, "intent.yml")
    base = render_state(desired_states(fab)["leaf1"])
    assert "hostname leaf1\n" in base
    variants = [base.replace("hostname leaf1\n", f"hostname {n}\n") for n in ("leaf1", "leaf2", "l3", "x")]
    return [
        *variants,
        base.replace("hostname leaf1\n", "hostname leaf9\r\n"),  # CRLF: the stripped line is the source text
        base.replace("hostname leaf1\n", "hostname leaf9\n   ignored under hostname\n"),  # other line count
        base.replace("hostname leaf1\n", "hostname leaf1\nhostname leaf7\n"),  # two: merged by the parser
        base.replace("hostname leaf1\n", "hostname a b\n"),  # not a hostname line for the parser
        base.replace("hostname leaf1\n", ""),  # none
        base.replace("hostname leaf1\n", "hostname leaf5\n").replace("   mtu 9214\n", "   mtu 9000\n", 1),
        base.replace("hostname leaf1\n", "hostname leaf6\n").replace("priority 3 no-drop", "priority 4 no-drop"),
        "hostname only\n",
    ]


def test_parse_shared_equals_parse_whatever_the_memo_holds() -> None:
    eos = platforms.get("eos")
    assert eos.parse_shared is not None
    texts = _texts()
    memo: dict = {}
    for round_ in range(2):  # the second round hits the memo for every text
        for text in texts:
            shared = eos.parse_shared(text, memo)
            assert shared == eos.parse(text), (round_, text[:200])
            assert shared.semantic() == eos.parse(text).semantic()
    assert memo, "texts equal outside their hostname line share a parse"
    # a copy from the memo is its own state: changing its meta data leaves the memo's state alone
    a = eos.parse_shared(texts[1], memo)
    a.warn("x")
    assert eos.parse_shared(texts[2], memo) == eos.parse(texts[2])


def test_audit_with_shared_work_reports_what_audit_device_reports(tmp_path: Path) -> None:
    fab = load_text(INTENT, str(tmp_path / "intent.yml"))
    texts = {n: render_state(st) for n, st in desired_states(fab).items()}
    texts["leaf2"] = texts["leaf2"].replace("   mtu 9214\n", "   mtu 9000\n", 1)
    texts["leaf3"] = texts["leaf3"].replace("priority 3 no-drop", "priority 4 no-drop")
    texts["leaf5"] = texts["leaf5"].replace("priority 3 no-drop", "priority 4 no-drop")
    for n, text in texts.items():
        (tmp_path / f"{n}.cfg").write_text(text, encoding="utf-8")
    report = audit_mod.audit(fab, configs=tmp_path, workers=1)
    fast = [{k: v for k, v in r.to_dict().items() if k != "seconds"} for r in report.devices]
    ref = [
        {k: v for k, v in audit_mod.audit_device(fab, n, configs=tmp_path).to_dict().items() if k != "seconds"}
        for n in sorted(fab.devices)
    ]
    assert fast == ref
    assert [d["status"] for d in fast] == ["in_sync", "drift", "drift", "in_sync", "drift", "in_sync"]
    # leaf3 and leaf5 drift alike: their items name their own device
    assert {i["device"] for i in fast[2]["items"]} == {"leaf3"}
    assert {i["device"] for i in fast[4]["items"]} == {"leaf5"}
    assert fast[2]["remediation"] == fast[4]["remediation"]


def _shaped_configs(fab, tmp_path: Path) -> None:
    texts = {n: render_state(st) for n, st in desired_states(fab).items()}
    for n in ("leaf2", "leaf3", "leaf4"):  # one shape: no-drop lost on every port
        texts[n] = texts[n].replace("   priority-flow-control priority 3 no-drop\n", "")
    texts["leaf5"] = texts["leaf5"].replace("   mtu 9214\n", "   mtu 9000\n", 1)
    texts["leaf6"] = texts["leaf6"].replace("priority 3 no-drop", "priority 4 no-drop")
    for n, text in texts.items():
        (tmp_path / f"{n}.cfg").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("workers", [1, 2])
def test_json_written_per_shape_is_what_json_dumps_writes(
    tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The devices of one shape report from one template: their items name their own device and file, and the
    JSON written from the template (``report._json_by_shape``) is byte for byte the general encoder's. A
    device whose fix has by-hand notes (they name its file) is reported on its own."""
    real = audit_mod.remediation

    def with_note(desired, items, is_host, actual=None, running=None):  # type: ignore[no-untyped-def]
        out = real(desired, items, is_host, actual, running)
        if "hostname leaf6\n" in (running or ""):
            out[0] = dataclasses.replace(out[0], manual=[f"remove it by hand ({items[0].location})"])
        return out

    monkeypatch.setattr(audit_mod, "remediation", with_note)
    intent = INTENT.replace("leaf[1-6]", "leaf[1-40]")
    fab = load_text(intent, str(tmp_path / "intent.yml"))
    _shaped_configs(fab, tmp_path)
    (tmp_path / "leaf7.cfg").unlink()  # unknown: not read
    report = audit_mod.audit(fab, configs=tmp_path, workers=workers)
    by = {d.device: d for d in report.devices}
    assert by["leaf7"].status == "unknown" and by["leaf6"].status == "drift"
    assert by["leaf6"].shape is None and by["leaf6"].remediation[0].manual
    assert by["leaf3"].shape is not None and by["leaf4"].shape is not None
    # a report written from the shapes' templates builds no item of theirs (the first device's excepted)
    text = report_mod.to_json(report)
    assert report.counts["items"] >= 3 * 8 and by["leaf4"].worst == "critical"
    assert "items" not in vars(by["leaf4"]) and "items" not in vars(by["leaf3"])
    lazy = pickle.loads(pickle.dumps(by["leaf4"]))
    assert "items" not in vars(lazy) and lazy == by["leaf4"] and "items" in vars(lazy)
    assert by["leaf5"].shape is not None and by["leaf5"].shape is not by["leaf4"].shape
    if workers > 1:  # from the worker processes: the shapes come back without the states they were keyed by
        assert by["leaf4"].shape.keep == () and by["leaf4"].actual is None
    assert {i.device for i in by["leaf4"].items} == {"leaf4"}
    assert {i.file for i in by["leaf4"].items} == {str(tmp_path / "leaf4.cfg")}
    assert all("leaf4" in i.explanation and "\x00" not in i.explanation for i in by["leaf4"].items)
    assert len(by["leaf4"].items) == 8 and by["leaf4"].items[0].field.endswith("pfc.no_drop")
    fast = report_mod._json_by_shape(report)
    assert fast is not None and fast == text
    assert fast == json.dumps(report.to_dict(), indent=2) + "\n"
    # and what each device reports is what it reports alone
    ref = audit_mod.audit_device(fab, "leaf4", configs=tmp_path).to_dict()
    assert {**by["leaf4"].to_dict(), "seconds": 0} == {**ref, "seconds": 0}


def test_hostname_lines_are_the_regex_matches() -> None:
    """``_hostname_lines`` finds with ``str.find`` exactly what ``_HOSTNAME_LINE.finditer`` finds."""
    from roceconf.platforms.eos.parser import _HOSTNAME_LINE, _hostname_lines

    rnd = random.Random(16)
    alphabet = ["hostname", " ", "\n", "a", "\r", "\t", "hostnam", "\x0c", "\u2003", "\nhostname"]
    texts = ["", "hostname", "hostname a", "x\nhostname b\nhostname c d\n", "hostnamex\nhostname\tq\r\n"]
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14))) for _ in range(20000)]
    for text in texts:
        want = [(m.start(), m.end()) for m in _HOSTNAME_LINE.finditer(text)]
        assert [(m.start(), m.end()) for m in _hostname_lines(text)] == want, repr(text)


def test_saved_configs_are_read_as_text_mode_read_them(tmp_path: Path) -> None:
    """`read_backup`: universal newlines and UTF-8 with replacement as before; what is no regular file
    (a directory, a FIFO) is "no saved config", without blocking on the FIFO."""
    from roceconf.drift.collect import CollectError, read_backup

    (tmp_path / "a.cfg").write_bytes(b"hostname a\r\ninterface Ethernet1\r   mtu 9214\n\xff\n")
    text, path = read_backup(tmp_path, "a", "eos")
    assert text == (tmp_path / "a.cfg").read_text(encoding="utf-8", errors="replace")
    assert text == "hostname a\ninterface Ethernet1\n   mtu 9214\n\ufffd\n" and path == tmp_path / "a.cfg"
    assert read_backup(tmp_path, "a", "eos", tmp_path.resolve()) == (text, path)
    (tmp_path / "d.cfg").mkdir()
    os.mkfifo(tmp_path / "f.cfg")
    for name in ("d", "f", "missing"):
        with pytest.raises(CollectError, match="no saved config"):
            read_backup(tmp_path, name, "eos")


def test_progress_lines_count_devices_and_their_items(tmp_path: Path) -> None:
    """The progress line of a device reported from its shape names its item count, and the total stays the
    number of devices."""
    fab = load_text(INTENT.replace("leaf[1-6]", "leaf[1-12]"), str(tmp_path / "intent.yml"))
    _shaped_configs(fab, tmp_path)
    out = io.StringIO()
    audit_mod.audit(fab, configs=tmp_path, workers=1, progress=audit_mod.plain_progress(out))
    lines = out.getvalue().splitlines()
    assert len(lines) == 12 and all(line.startswith(f"[{i}/12] ") for i, line in enumerate(lines, 1))
    assert "[4/12] leaf4: drift (8 item(s))" in lines and "[1/12] leaf1: in_sync" in lines


def _lab_scripts(platform: str) -> list[str]:
    """The lab host of `platform` rendered, and rendered again for another host name."""
    from roceconf.intent import load

    fab = load("inventories/lab/intent.yml")
    states = desired_states(fab)
    state = next(st for n, st in sorted(states.items()) if fab.devices[n].platform == platform)
    return [render_state(state), render_state(state.model_copy(update={"hostname": "peer7"}))]


@pytest.mark.parametrize("platform", ["bnxt", "linux-dcb"])
def test_host_script_parse_shared_equals_parse(platform: str) -> None:
    """``linux_dcb.shared_parse`` (HostParser scripts equal but for their host's name share one parse)
    returns what ``parse`` returns for every script, whatever the memo holds."""
    plat = platforms.get(platform)
    assert plat.parse_shared is not None
    a, b = _lab_scripts(platform)
    line = next(x for x in a.splitlines() if x.startswith("EXPECTED_HOST="))
    texts = [
        a,
        b,
        a.replace(line, "EXPECTED_HOST=other"),  # the same script, another host
        a.replace(line, "export EXPECTED_HOST='quoted'  # a comment"),
        a.replace(line, f"{line}\nEXPECTED_HOST=x"),  # two
        a.replace(line + "\n", ""),  # none
        a.replace(line, f"true \\\n{line}"),  # in a continuation
        a.replace(line, f"f() {{\n{line}\n}}"),  # in a function body: not read
        a.replace("\n#", "\n# \\", 1),  # a comment continued onto the next line
        a.replace("\n# ", "\n#   ", 3),  # other comment text, same lines
        a.replace("\n", "\n# another comment\n", 2),
        a.replace("mtu 9000", "mtu 4200", 1),
        a.replace("\n", "\r\n"),
        "EXPECTED_HOST=lonely\n",
    ]
    memo: dict = {}
    for round_ in range(2):  # the second round hits the memo for every script it keeps
        for text in texts:
            assert plat.parse_shared(text, memo) == plat.parse(text), (round_, text[:300])
    assert memo, "scripts equal but for their host's name share a parse"
    other = plat.parse_shared(texts[2], memo)
    assert other.hostname == "other" and other.sources["hostname"].text == "EXPECTED_HOST=other"
    assert other.interfaces == plat.parse(a).interfaces


@pytest.mark.parametrize(
    ("platform", "old", "new"),
    [
        ("nvue", "hostname: '{name}'", "hostname: '{other}'"),
        ("junos", "set system host-name {name}", "set system host-name {other}"),
    ],
)
def test_named_line_parse_shared_equals_parse(platform: str, old: str, new: str) -> None:
    """``base.parse_shared_by_line`` (configs equal but for the line naming the device share one parse)
    returns what ``parse`` returns for every config, whatever the memo holds: names the platform's syntax
    reads otherwise (YAML booleans, numbers, nulls, quotes), two naming lines or none."""
    plat = platforms.get(platform)
    assert plat.parse_shared is not None
    a, b = _lab_scripts(platform)
    name = next(n for n in ("leaf2", "spine2") if old.format(name=n) in a)
    line = old.format(name=name)

    def named(other: str) -> str:
        return a.replace(line, new.format(other=other))

    texts = [a, b, named("other"), named("x.y-z_1"), a.replace(line, f"{line}\n{line}"), a.replace(line, "")]
    if platform == "nvue":
        texts += [named(w) for w in ("yes", "Null", "1e3", "'x'y'")]
        # plain scalars: YAML reads some as booleans, nulls or numbers, not as the name they spell
        texts += [a.replace(line, f"hostname: {w}") for w in ("plain-name", "yes", "Null", "On", "1e3", "0x1f")]
        texts += [a.replace(line, f'hostname: "{name}"'), a.replace(line, "hostname:  spaced  "), a.replace("\n", "\n# c\n", 1)]
        texts += [a.replace("# ", "#  ", 1), a.replace(line, f"hostname: '{name}' # named")]
    else:
        texts += [named('"quoted"'), named("two words"), a.replace(line, f"set system host-name {name} ## x")]
        texts += ["#\n" + a, a.replace("\n", "\r\n")]
    memo: dict = {}
    for round_ in range(2):  # the second round hits the memo for every config it keeps
        for text in texts:
            assert plat.parse_shared(text, memo) == plat.parse(text), (round_, text[:300])
    assert memo, "configs equal but for their naming line share a parse"
    other = plat.parse_shared(named("other"), memo)
    assert other.hostname == "other" and other.sources["hostname"].text == new.format(other="other").strip()
