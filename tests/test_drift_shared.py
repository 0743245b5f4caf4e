"""The work an audit shares between devices of one shape gives what the unshared path gives.

``Platform.parse_shared`` (EOS: texts equal outside their one hostname line share a parse) must return
states equal to ``parse`` for every text, whatever the memo holds; ``audit`` (parse memo, shared walks,
shared fixes) must report what ``audit_device`` reports device by device."""

from __future__ import annotations

from pathlib import Path

from roceconf import platforms
from roceconf.desired import desired_states
from roceconf.drift import audit as audit_mod
from roceconf.intent import load_text
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
