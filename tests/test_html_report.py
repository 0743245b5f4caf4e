"""The HTML reports in a real browser (Debian's chromium + chromium-driver through selenium): no console
errors, the devices drawn in each colour match the report, clicking a device shows its findings."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from roceconf.compile import load_valid, output_name, render_fabric
from roceconf.reports import html

pytestmark = pytest.mark.xdist_group("browser")

ROOT = Path(__file__).resolve().parents[1]
EXE = [sys.executable, "-m", "roceconf.cli"]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(DRIVER).exists(), (
        "chromium and chromium-driver are missing: `make setup` installs them (debian-packages.txt)"
    )
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()


def _open(browser, path: Path) -> None:
    browser.get(path.resolve().as_uri())
    browser.get_log("browser")  # drop what loading printed before the check below
    browser.refresh()


def _console_errors(browser) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def _drawn(browser) -> Counter:
    """Devices drawn per colour (an aggregate node counts each of its members)."""
    counts: Counter = Counter()
    for el in browser.find_elements("css selector", "svg .dev"):
        counts[el.get_attribute("data-color")] += int(el.get_attribute("data-count"))
    return counts


def _legend(browser) -> dict[str, int]:
    return {el.get_attribute("data-legend"): int(el.text) for el in browser.find_elements("css selector", "[data-legend]")}


def _click(browser, name: str) -> str:
    el = browser.find_element("css selector", f'svg .dev[data-name="{name}"]')
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", el)
    return browser.find_element("id", "details").text


def test_demo_drift_report(browser, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    res = subprocess.run(EXE + ["demo", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    page = out / "report.html"
    text = page.read_text()
    # no address but XML namespace names (the SVG's and svg-pan-zoom's, which are names, not requests)
    assert "http://" not in re.sub(r"http://www\.w3\.org/[\w/.-]*", "", text) and "https://" not in text
    _open(browser, page)
    assert _console_errors(browser) == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    want: Counter = Counter()
    for d in report["devices"]:
        want["ok" if d["status"] == "in_sync" else "unknown" if d["status"] == "unknown" else d["worst_severity"]] += 1
    assert _drawn(browser) == want
    assert {k: v for k, v in _legend(browser).items() if v} == dict(want)
    drifted = next(d for d in report["devices"] if d["device"] == "leaf1")
    details = _click(browser, "leaf1")
    assert "leaf1" in details
    for finding in drifted["findings"]:  # one per cause: its changes and its ports
        for change in finding["changes"]:
            assert change["field"] in details
        for ports in finding["interfaces"]:
            assert ports in details
    # clicking a finding of a small fabric (every name written) keeps the whole map in view: no tier cut off
    row = next(r for r in browser.find_elements("css selector", "#findings tbody tr") if r.get_attribute("data-dev") == "leaf1")
    browser.execute_script("arguments[0].click()", row)
    outside = browser.execute_script(
        "var m = document.getElementById('map').getBoundingClientRect();"
        "return [].slice.call(document.querySelectorAll('svg .dev')).filter(function (n) {"
        "  var r = n.getBoundingClientRect();"
        "  return r.left < m.left || r.right > m.right || r.top < m.top || r.bottom > m.bottom;"
        "}).map(function (n) { return n.getAttribute('data-name'); });"
    )
    assert outside == []
    # filter and search work
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "fsev")).select_by_value("critical")
    dim = browser.find_elements("css selector", "svg .dev.dim")
    assert len(dim) == len(report["devices"]) - want["critical"]
    browser.find_element("id", "q").send_keys("spine2")
    assert browser.find_element("id", "qres").text == "1 match(es)"
    assert "spine2" in browser.find_element("id", "details").text
    browser.save_screenshot(str(tmp_path / "demo-drift.png"))
    assert (tmp_path / "demo-drift.png").stat().st_size > 10_000


@pytest.mark.parametrize(("inventory", "count"), [("lab", 8), ("pod", 5)])
def test_drift_findings_come_first(browser, tmp_path: Path, inventory: str, count: int) -> None:
    """At 1400x900: one row per cause, every faulted device's finding on the first screen, a click on a
    finding selects its device and links on the map and shows its findings, no console error, no request
    (bench/bench_html.py runs the same checks on the 32k fabric)."""
    from bench.bench_html import check_page
    from bench.drift_faults import faulted_configs, write_configs

    intent = ROOT / "inventories" / inventory / "intent.yml"
    files, faults = faulted_configs(load_valid(intent), count)
    write_configs(files, tmp_path / "cfg")
    page, rep = tmp_path / "drift.html", tmp_path / "drift.json"
    for fmt, out in (("html", page), ("json", rep)):
        res = subprocess.run(EXE + ["drift", str(intent), "--configs", str(tmp_path / "cfg"), "--format", fmt,
                                    "--output", str(out)], capture_output=True, text=True)
        assert res.returncode == 1, res.stderr[-2000:]
    summary = json.loads(rep.read_text())["summary"]
    assert summary["findings"] == count  # one finding per injected fault, whatever the ports it spans
    browser.set_window_size(1400, 900)
    try:
        figures = check_page(browser, page, sorted(faults), summary["findings"])
        assert figures["rows"] == count
        # the details panel: no column wider than the panel (nothing clipped at 1400x900)
        assert browser.execute_script(
            "var d=document.getElementById('details');return d.scrollWidth<=d.clientWidth;")
    finally:
        browser.set_window_size(1500, 1000)


def test_a_group_opens_onto_its_devices(browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tier drawn as groups: the group carries its worst member's colour and count, a click lists its
    devices worst first, a click on one shows its findings; a finding of a grouped device selects its group."""
    from roceconf.reports import fabricmap
    from roceconf.reports.fabricmap import DeviceMark, Item, build

    monkeypatch.setattr(fabricmap, "MAX_TIER", 2)  # the lab's four leaves become groups
    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
    marks = {"leaf2": DeviceMark(color="critical", items=[Item("critical", "mtu 1500, expected 9214", "Ethernet2",
                                                               rule="mtu")])}
    fmap = build(fab, marks, "t", "drift", "s")
    group = next(n for n in fmap.nodes if "leaf2" in n.members)
    assert len(group.members) > 1 and group.color == "critical"
    page = tmp_path / "g.html"
    page.write_text(html.render(fmap))
    _open(browser, page)
    assert _console_errors(browser) == []
    el = browser.find_element("css selector", f'svg .dev[data-name="{group.id}"]')
    assert el.get_attribute("data-count") == str(len(group.members)) and el.get_attribute("data-color") == "critical"
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", el)
    chips = [c.text for c in browser.find_elements("css selector", "#details .chip")]
    assert sorted(chips) == sorted(group.members) and chips[0] == "leaf2"
    assert "mtu 1500, expected 9214" in browser.find_element("id", "details").text
    other = next(m for m in group.members if m != "leaf2")
    browser.execute_script("[].find.call(document.querySelectorAll('#details .chip'),function(c){"
                           "return c.textContent===arguments[0];}).click()".replace("arguments[0]", json.dumps(other)))
    assert "No findings." in browser.find_element("id", "details").text
    browser.find_element("css selector", '#ftable tbody tr[data-dev="leaf2"]').click()
    assert browser.find_element("css selector", "svg .dev.sel").get_attribute("data-name") == group.id
    assert _console_errors(browser) == []


def test_unknown_headroom_is_drawn_as_unknown() -> None:
    """A switch whose headroom need cannot be worked out is drawn "needed unknown", never "needed 0"."""
    from types import SimpleNamespace

    known = SimpleNamespace(device="leaf1", unknown="", total=120_000, budget=1_000_000, margin=880_000,
                            rows=[SimpleNamespace(required=120_000)])
    unknown = SimpleNamespace(device="leaf2", unknown="", total=0, budget=1_000_000, margin=None,
                              rows=[SimpleNamespace(required=None)])
    chart = html._headroom_chart([known, unknown])
    assert "needed unknown" in chart and "needed 0" not in chart and "needed 120,000" in chart
    assert chart.index("leaf2") < chart.index("leaf1")  # the unknown one is listed before the one that fits


def test_drift_markdown_has_a_mermaid_diagram_of_the_drifted_devices(tmp_path: Path) -> None:
    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
    saved = tmp_path / "saved"
    saved.mkdir()
    for name, text in render_fabric(fab).items():
        (saved / name).write_text(text.replace("mtu 9214", "mtu 1500") if name == "leaf1.cfg" else text)
    res = subprocess.run(EXE + ["drift", str(ROOT / "inventories" / "lab" / "intent.yml"), "--configs", str(saved),
                                "--format", "markdown"], capture_output=True, text=True)
    assert res.returncode == 1, res.stderr
    block = res.stdout[res.stdout.index("```mermaid"):]
    assert '["leaf1<br/>eos"]:::critical' in block or '["leaf1<br/>eos"]:::warning' in block
    assert "spine1<br/>nxos" in block  # a neighbour of the drifted leaf
    assert "leaf3<br/>" not in block  # untouched devices without a link to it stay out


def test_check_report_on_the_pod(browser, tmp_path: Path) -> None:
    page = tmp_path / "check.html"
    res = subprocess.run(EXE + ["check", "inventories/pod/intent.yml", "--format", "html", "--output", str(page)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode in (0, 1), res.stderr
    js = json.loads(subprocess.run(EXE + ["check", "inventories/pod/intent.yml", "--format", "json"],
                                   capture_output=True, text=True, cwd=ROOT).stdout)
    _open(browser, page)
    assert _console_errors(browser) == []
    fab = load_valid(ROOT / "inventories" / "pod" / "intent.yml")
    drawn = _drawn(browser)
    assert sum(drawn.values()) == len(fab.devices)
    assert _legend(browser) == {c: drawn.get(c, 0) for c in ("critical", "warning", "info", "unknown", "ok")}
    findings = [d for d in js["diagnostics"] if d["severity"] in ("error", "warning")]
    assert (sum(v for k, v in drawn.items() if k != "ok") > 0) == bool(findings)
    browser.save_screenshot(str(tmp_path / "check.png"))
    assert browser.find_elements("css selector", ".chart svg rect"), "headroom chart missing"


def test_plan_report(browser, tmp_path: Path) -> None:
    page = tmp_path / "plan.html"
    base, ecn = "tests/intents/plan/base.yml", "tests/intents/plan/ecn.yml"
    res = subprocess.run(EXE + ["plan", base, ecn, "--format", "html", "--output", str(page)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    plan = json.loads(subprocess.run(EXE + ["plan", base, ecn, "--format", "json"], capture_output=True, text=True,
                                     cwd=ROOT).stdout)
    touched = {d for c in plan["changes"] for d in c["devices"]}
    _open(browser, page)
    assert _console_errors(browser) == []
    colored = {el.get_attribute("data-name") for el in browser.find_elements("css selector", "svg .dev")
               if el.get_attribute("data-color") != "ok"}
    assert colored == touched
    some = sorted(touched)[0]
    assert plan["changes"][0]["summary"].split()[0] in _click(browser, some) or "change" in _click(browser, some)
    assert browser.find_elements("css selector", ".chart svg rect"), "blast-radius chart missing"
    md = subprocess.run(EXE + ["plan", base, ecn, "--format", "markdown"], capture_output=True, text=True, cwd=ROOT)
    assert "```mermaid" in md.stdout


def test_health_scenario_report(browser, tmp_path: Path) -> None:
    from roceconf.health.collect import health_live
    from roceconf.lab.server import Lab

    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
    files = render_fabric(fab)
    user, pw = f"ops{secrets.token_hex(3)}", secrets.token_urlsafe(16)
    with Lab(user, pw) as lab:
        for name, dev in fab.devices.items():
            lab.add(name, dev.platform, files[output_name(name, dev.platform)])
        lab.set_scenarios(["pfc-storm@leaf1"])
        inv = lab.write_inventory(tmp_path / "inventory.yml")
        report = health_live(fab, inv, samples=3, interval=0.3, credentials=(user, pw), timeout=10)
    page = tmp_path / "health.html"
    page.write_text(html.render(html.health_map(report, fab)))
    _open(browser, page)
    assert _console_errors(browser) == []
    worst = {d.device: d.worst for d in report.devices}
    want = Counter("unknown" if d.status == "unknown" else (worst[d.device] or "ok") for d in report.devices)
    assert _drawn(browser) == want
    assert worst["leaf1"] == "critical"
    details = _click(browser, "leaf1")
    assert any(f.rule in details for f in next(d for d in report.devices if d.device == "leaf1").findings)
    assert browser.find_elements("css selector", ".chart svg path"), "rates chart missing"
    browser.save_screenshot(str(tmp_path / "health.png"))


def test_values_are_escaped() -> None:
    from roceconf.reports.fabricmap import DeviceMark, Item, build

    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
    m = {"leaf1": DeviceMark(color="critical", items=[Item("critical", "<script>alert(1)</script>", "</script>")])}
    page = html.render(build(fab, m, "t", "drift", "s"))
    assert "<script>alert(1)</script>" not in page and "<\\/script>" in page
    # the findings table carries it as text, escaped; the page's script sets it as text only
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in page
    assert ".innerHTML" not in page


def test_cabling_report_colours_each_link_by_its_verdict(browser, tmp_path: Path) -> None:
    """`roceconf cabling --counters --format html` on the lab: FCS errors on spine2:et-0/0/1 (its link red), a
    miswire at leaf4:Ethernet49/50 (RC501: those links red), spine1's link counters missing (its other links grey,
    unknown: never green), every other link green; n/a checks (RC519) colour nothing and the summary names them.
    Each leaf's ECMP group is drawn over its uplinks in its verdict's colour: leaf1's imbalanced (RC520, a
    warning), leaf2's (NVUE) and leaf4's ok, leaf3's (SONiC reads no bytes) n/a; a click shows the spread."""
    from roceconf.lab.counters import Scenario
    from tests.test_cabling import save
    from tests.test_cabling_links import SAVED_SUFFIX, save_counters

    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")
    lldp = save(fab, tmp_path / "lldp", lambda w: w.swap("leaf4", "Ethernet49", "miswire"))  # leaf4's uplinks
    counters = save_counters(fab, tmp_path / "counters", {"spine2": [Scenario("crc", "et-0/0/1")],
                                                          "leaf1": [Scenario("ecmp-imbalance", "Ethernet50")]})
    (counters / ("spine1" + SAVED_SUFFIX)).unlink()
    page, rep = tmp_path / "cabling.html", tmp_path / "cabling.json"
    for fmt, out in (("html", page), ("json", rep)):
        res = subprocess.run(EXE + ["cabling", str(ROOT / "inventories" / "lab" / "intent.yml"), "--lldp", str(lldp),
                                    "--counters", str(counters), "--format", fmt, "-o", str(out)],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 1, res.stderr[-2000:]
    report = json.loads(rep.read_text())
    assert sorted((f["rule"], f["device"], f["port"]) for f in report["findings"]) == [
        ("RC501", "leaf4", "Ethernet49"), ("RC501", "leaf4", "Ethernet50"), ("RC501", "spine1", "Ethernet1/4"),
        ("RC501", "spine2", "et-0/0/3"), ("RC510", "spine2", "et-0/0/1"), ("RC520", "leaf1", "Ethernet50")]
    color = {"ok": "ok", "unknown": "unknown", "fail": "critical"}
    want = Counter(color[li["status"]] for li in report["links"])
    # 3 red (the FCS link, leaf4's two uplinks), spine1's 3 other links grey, the 10 others green
    assert want == Counter({"ok": 10, "critical": 3, "unknown": 3}), want
    text = page.read_text()
    assert "http://" not in re.sub(r"http://www\.w3\.org/[\w/.-]*", "", text) and "https://" not in text
    _open(browser, page)
    assert _console_errors(browser) == []
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    # each link of the lab is its own pair of nodes: one segment per link, in its verdict's colour
    drawn = Counter()
    for el in browser.find_elements("css selector", "svg .links path"):
        drawn[el.get_attribute("class").removeprefix("l-")] += el.get_attribute("d").count("M")
    assert drawn == want
    pos = {el.get_attribute("data-name"): (float(el.get_attribute("data-x")), float(el.get_attribute("data-y")))
           for el in browser.find_elements("css selector", "svg .dev")}
    red = browser.find_element("css selector", "svg .links path.l-critical").get_attribute("d")
    (x1, y1), (x2, y2) = pos["leaf2"], pos["spine2"]
    assert f"M{x1},{y1}L{x2},{y2}" in red or f"M{x2},{y2}L{x1},{y1}" in red  # the FCS link leaf2 - spine2
    devices = {el.get_attribute("data-name"): el.get_attribute("data-color")
               for el in browser.find_elements("css selector", "svg .dev")}
    assert devices["spine2"] == "critical" and devices["leaf4"] == "critical" and devices["spine1"] == "critical"
    assert devices["gpu1"] == "ok" and devices["leaf2"] == "ok"
    assert "RC510" in _click(browser, "spine2") and "et-0/0/1" in _click(browser, "spine2")
    summary = browser.find_element("css selector", "header p").text
    assert "n/a, not observable (RC519): " in summary and "nvue fec, rx_power, tx_power, temperature, fec_mode;" in summary
    assert "sonic fcs, flaps, ecmp" in summary and "eos fec, rx_power, tx_power, temperature, fec_mode;" in summary
    # the ECMP groups: each leaf's member links (to the two spines) in its verdict's colour
    groups = {el.get_attribute("data-device"): (el.get_attribute("class"), el.get_attribute("d"))
              for el in browser.find_elements("css selector", "svg .ecmp path")}
    assert {d: c for d, (c, _p) in groups.items()} == {"leaf1": "e-warning", "leaf2": "e-ok", "leaf3": "e-na",
                                                       "leaf4": "e-ok"}
    (x1, y1), (xs, ys) = pos["leaf1"], pos["spine2"]
    assert groups["leaf1"][1].count("M") == 2 and f"M{x1},{y1}L{xs},{ys}" in groups["leaf1"][1]
    leaf1 = _click(browser, "leaf1")
    assert "RC520" in leaf1 and "ECMP group: finding · 2 links · max/mean 1.60 · CV 0.60" in leaf1
    assert "Ethernet50 spine2 5000.0" in leaf1  # the hot member: 4 x 1250 MB/s
    assert "ECMP group: n/a" in _click(browser, "leaf3") and "not observable on sonic" in _click(browser, "leaf3")
    browser.save_screenshot(str(tmp_path / "cabling.png"))  # (kept with --basetemp to look at)
    assert (tmp_path / "cabling.png").stat().st_size > 10_000


def test_cabling_map_without_counters_and_hostile_lldp_text(tmp_path: Path) -> None:
    """LLDP only: the crossed rail's two links red, the rest ok; a neighbour's system name is device text: it
    reaches the page escaped, never as markup."""
    from roceconf.cabling.collect import cabling_offline
    from tests.test_cabling import save

    fab = load_valid(ROOT / "inventories" / "lab" / "intent.yml")

    def hostile(dev: str, rows: list) -> list:
        return [type(r)(r.local_port, "<script>alert(1)</script>", r.port_id, r.port_descr, r.chassis_id)
                if dev == "leaf3" and r.local_port == "Ethernet248" else r for r in rows]

    report = cabling_offline(fab, save(fab, tmp_path / "s", lambda w: w.swap("gpu1", None, "crossed-rail"), hostile))
    fmap = html.cabling_map(report, fab)
    colors = Counter(c for _a, _b, c, _k in fmap.links)
    assert colors == Counter({"ok": 13, "critical": 3}), colors  # gpu1's two links and leaf3's uplink
    assert {(a, b) for a, b, c, _k in fmap.links if c == "critical"} == {("gpu1", "leaf1"), ("gpu1", "leaf2"),
                                                                         ("leaf3", "spine1")}
    page = html.render(fmap)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
