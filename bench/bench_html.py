"""HTML report benchmark: the drift report of the pod (328 devices) and of the 32,768-GPU three-tier fabric
(5,696 devices), each with 5 injected faults, opened in headless Chromium at 1400x900.

Steps per fabric: the intent (inventories/pod, or bench/fabricgen.py for 32k), `roceconf render` it, overwrite
the configs of 5 devices with faulted ones (bench/drift_faults.py), `roceconf drift INTENT --configs DIR
--format html --output F` (timed: generation), then open F in headless Chromium (Debian's chromium +
chromium-driver through selenium, the options of tests/test_html_report.py) and measure, in the page's own
clock (from the start of navigation): the first paint (the browser's ``first-paint`` entry) and the moment the
findings table is painted (the Element Timing entry of its first row, ``elementtiming="findings-table"``), after
checking that its rows are laid out inside the window.

Targets (issue 28): the file is at most 10 MB and the findings table shows in under 3 s on the 2-core machine.

Correctness, the exit status's business: drift finds exactly the 5 faults; the findings table holds one
finding per cause (the JSON report's ``summary.findings``), every faulted device is in a row on the first
screen; clicking a finding selects the node that holds its device on the map and shows its findings; no
console error; no network request (no resource entry; the page's Content-Security-Policy allows none). The
timings are printed with PASS / FAIL (the machine may be shared); the size decides the exit status with the
checks. `--quick`: a 30-device fabric of the same platforms instead of the pod and 32k (the checks, as the test
suite runs them: tests/test_bench_quick.py). `--only pod|32k`: one of the two.

Run: .venv/bin/python bench/bench_html.py [--quick] [--only pod|32k]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLE_BUDGET_S = 3.0
SIZE_BUDGET_MB = 10.0
EXE = [sys.executable, "-m", "roceconf.cli"]

#: in the page: the table's first row is laid out inside the window (the table is on the screen)
_TABLE_SHOWN = """
var rows = document.querySelectorAll('#ftable tbody tr');
if (!rows.length) { return null; }
var r = rows[0].getBoundingClientRect();
return (r.height > 0 && r.bottom <= window.innerHeight) ? performance.now() : null;
"""


def browser():  # noqa: ANN201 - selenium's driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(chromium).exists() and Path(driver).exists()):
        raise SystemExit("chromium and chromium-driver are missing: `make setup` installs them (debian-packages.txt)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(driver), options=opts)
    drv.set_page_load_timeout(120)
    return drv


def _run(argv: list[str], ok: tuple[int, ...] = (0,)) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(EXE + argv, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode not in ok:
        raise SystemExit(f"roceconf {argv[0]} exited {res.returncode}: {res.stderr[-2000:]}")
    return wall


def check_page(drv, page: Path, faults: list[str], findings: int) -> dict:  # noqa: ANN001
    """Open ``page`` and check it (the assertions of the module's docstring); the figures measured."""
    from selenium.webdriver.support.ui import WebDriverWait

    drv.get("about:blank")
    drv.get_log("browser")
    drv.get(page.resolve().as_uri())
    WebDriverWait(drv, 120, poll_frequency=0.02).until(lambda b: b.execute_script(_TABLE_SHOWN))
    # when the browser painted the findings table: the Element Timing entry of its first row's text
    drv.set_script_timeout(30)
    table_ms = drv.execute_async_script(
        "var done=arguments[0];new PerformanceObserver(function(l){l.getEntries().forEach(function(e){"
        "if(e.identifier==='findings-table'){done(e.renderTime);}});}).observe({type:'element',buffered:true});")
    WebDriverWait(drv, 120, poll_frequency=0.05).until(
        lambda b: b.execute_script("return document.getElementById('map').dataset.ready==='1'"))
    paint = drv.execute_script(
        "var p=performance.getEntriesByType('paint').filter(function(e){return e.name==='first-paint';});"
        "return p.length?p[0].startTime:null;")
    ready_ms = drv.execute_script("var n=performance.getEntriesByType('navigation')[0];return n.loadEventEnd;")
    rows = drv.execute_script(
        "return [].map.call(document.querySelectorAll('#ftable tbody tr'),function(r){var b=r.getBoundingClientRect();"
        "return [r.getAttribute('data-dev'), b.bottom<=window.innerHeight && b.height>0];});")
    on_screen = {d for d, vis in rows if vis}
    assert len(rows) == findings, f"{len(rows)} rows in the findings table, the report has {findings} findings"
    missing = sorted(set(faults) - on_screen)
    assert not missing, f"faulted devices not in the findings table on the first screen: {missing}"
    for dev in faults:  # clicking a finding selects its device on the map and shows its findings
        picked = drv.execute_script(
            "var r=document.querySelector('#ftable tbody tr[data-dev=\"'+arguments[0]+'\"]');r.click();"
            "var s=document.querySelector('svg .dev.sel');return [s?s.getAttribute('data-i'):null,"
            "r.getAttribute('data-node'),document.getElementById('details').textContent,"
            "document.querySelector('#hl path').getAttribute('d').length];", dev)
        assert picked[0] is not None and picked[0] == picked[1], f"{dev}: the finding did not select its node"
        assert dev in picked[2], f"{dev}: the details do not show its findings"
        assert picked[3] > 0, f"{dev}: its links are not drawn as selected"
    errors = [e["message"] for e in drv.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    requests = drv.execute_script("return performance.getEntriesByType('resource').map(function(e){return e.name;});")
    assert requests == [], f"the page made network requests: {requests}"
    elements = drv.execute_script("return document.getElementsByTagName('*').length;")
    return {"first_paint_s": (paint or 0) / 1000, "table_s": table_ms / 1000, "loaded_s": ready_ms / 1000,
            "elements": elements, "rows": len(rows)}


def one(name: str, text: str, drv, tmp: Path) -> tuple[bool, bool]:  # noqa: ANN001
    from bench.drift_faults import faulted_configs
    from roceconf.compile import output_name
    from roceconf.intent import load

    work = tmp / name
    work.mkdir()
    intent = work / "intent.yml"
    intent.write_text(text, encoding="utf-8")
    fab = load(intent)
    ndev, nlinks = len(fab.devices), len(fab.links)
    configs = work / "configs"
    t_render = _run(["render", str(intent), "-o", str(configs)])
    files, faults = faulted_configs(fab)
    for dev in faults:  # only the 5 faulted devices' files differ from what render wrote
        fname = output_name(dev, fab.devices[dev].platform)
        (configs / fname).write_text(files[fname], encoding="utf-8")
    del files, fab
    page, rep = work / "drift.html", work / "drift.json"
    t_html = _run(["drift", str(intent), "--configs", str(configs), "--format", "html", "--output", str(page)], ok=(1,))
    _run(["drift", str(intent), "--configs", str(configs), "--format", "json", "--output", str(rep)], ok=(1,))
    report = json.loads(rep.read_text(encoding="utf-8"))
    drifted = sorted(x["device"] for x in report["devices"] if x["status"] == "drift")
    assert drifted == sorted(faults), (drifted, faults)
    size = page.stat().st_size
    figures = check_page(drv, page, sorted(faults), report["summary"]["findings"])
    ok_table, ok_size = figures["table_s"] < TABLE_BUDGET_S, size <= SIZE_BUDGET_MB * 1e6
    print(f"== {name}: {ndev} devices, {nlinks} links; render {t_render:.1f} s; faults {len(faults)}; "
          f"findings {report['summary']['findings']} (per-port items {report['summary']['items']})")
    print(f"   drift --format html: generation {t_html:.2f} s, {size:,} bytes ({size / 1e6:.2f} MB); "
          f"DOM elements {figures['elements']}")
    print(f"   Chromium 1400x900: first paint {figures['first_paint_s']:.2f} s, findings table on screen "
          f"{figures['table_s']:.2f} s (painted), load event {figures['loaded_s']:.2f} s")
    print(f"   table {figures['table_s']:.2f} s < {TABLE_BUDGET_S:.0f} s: {'PASS' if ok_table else 'FAIL'}; "
          f"size {size / 1e6:.2f} MB <= {SIZE_BUDGET_MB:.0f} MB: {'PASS' if ok_size else 'FAIL'}; "
          f"load average {os.getloadavg()[0]:.1f}")
    return ok_table, ok_size


def main() -> int:
    from bench.fabricgen import three_tier

    args = sys.argv[1:]
    only = args[args.index("--only") + 1] if "--only" in args else None
    if "--quick" in args:
        plan = [("quick", lambda: three_tier(hosts=16, nics=2, hosts_per_group=4, leaves_per_pod=4, spines_per_pod=2,
                                             superspines_per_plane=1))]
    else:
        plan = [("pod", lambda: (ROOT / "inventories" / "pod" / "intent.yml").read_text(encoding="utf-8")),
                ("32k", lambda: three_tier(hosts=4096))]
        plan = [p for p in plan if only in (None, p[0])]
    drv = browser()
    sizes_ok = True
    try:
        with tempfile.TemporaryDirectory(prefix="roceconf-html-") as d:
            for name, make in plan:
                _ok_table, ok_size = one(name, make(), drv, Path(d))
                sizes_ok &= ok_size
    finally:
        drv.quit()
    print(f"correct: yes{'' if sizes_ok else '; WRONG: a file is over its size budget'}")
    return 0 if sizes_ok else 1


if __name__ == "__main__":
    sys.exit(main())
