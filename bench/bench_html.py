"""HTML report benchmark: the 32,768-GPU three-tier fabric's drift report, opened in headless Chromium.

Steps: generate the intent (bench/fabricgen.py), `roceconf render` it, overwrite the configs of 5 devices with
faulted ones (bench/drift_faults.py), `roceconf drift INTENT --configs DIR --format html --output F` (timed),
then open F in headless Chromium (Debian's chromium + chromium-driver through selenium, the options of
tests/test_html_report.py) and time until the page is loaded and its script has run (readyState complete and
the map's devices present, the click handlers attached).

Targets: the page opens in < 5 s and the file is < 20 MB. The devices drawn per colour (the sum of data-count
per data-color) must equal the drift report's counts (5 drifted).

Correctness: drift finds exactly the 5 faults, the page has no script error, draws the report's counts, and a
click on a drifted device shows its findings. The exit status follows it and the file size (the same on every
machine); the open time is printed (PASS / FAIL), the machine may be shared. `--quick`: a 30-device fabric of
the same platforms (the correctness checks, as the test suite runs them: tests/test_bench_quick.py).

Run: .venv/bin/python bench/bench_html.py [--quick]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OPEN_BUDGET_S = 5.0
SIZE_BUDGET_MB = 20.0
EXE = [sys.executable, "-m", "roceconf.cli"]


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(chromium).exists() and Path(driver).exists()):
        raise SystemExit("chromium and chromium-driver are missing: `make setup` installs them (debian-packages.txt)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1500,1000"):
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


def main() -> int:
    from bench.drift_faults import faulted_configs
    from bench.fabricgen import three_tier
    from roceconf.compile import output_name
    from roceconf.intent import load

    quick = "--quick" in sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="roceconf-html-") as d:
        tmp = Path(d)
        intent = tmp / "32k.yml"
        text = (
            three_tier(hosts=16, nics=2, hosts_per_group=4, leaves_per_pod=4, spines_per_pod=2, superspines_per_plane=1)
            if quick
            else three_tier(hosts=4096)
        )
        intent.write_text(text, encoding="utf-8")
        fab = load(intent)
        ndev, nlinks = len(fab.devices), len(fab.links)
        configs = tmp / "configs"
        t_render = _run(["render", str(intent), "-o", str(configs)])
        files, faults = faulted_configs(fab)
        for dev in faults:  # only the 5 faulted devices' files differ from what render wrote
            name = output_name(dev, fab.devices[dev].platform)
            (configs / name).write_text(files[name], encoding="utf-8")
        del files, fab
        print(f"== {'quick' if quick else '32k'}: {ndev} devices, {nlinks} links; render {t_render:.1f} s; faults: {faults}")

        page, rep = tmp / "drift.html", tmp / "drift.json"
        t_html = _run(["drift", str(intent), "--configs", str(configs), "--format", "html", "--output", str(page)],
                      ok=(1,))
        _run(["drift", str(intent), "--configs", str(configs), "--format", "json", "--output", str(rep)], ok=(1,))
        report = json.loads(rep.read_text(encoding="utf-8"))
        size_mb = page.stat().st_size / 1e6
        print(f"drift --format html: {t_html:.1f} s, {size_mb:.2f} MB")

        want: Counter = Counter()
        for dev in report["devices"]:
            st = dev["status"]
            want["ok" if st == "in_sync" else "unknown" if st == "unknown" else dev["worst_severity"]] += 1
        drifted = sorted(x["device"] for x in report["devices"] if x["status"] == "drift")
        assert drifted == sorted(faults), (drifted, faults)

        drv = _browser()
        try:
            from selenium.webdriver.support.ui import WebDriverWait

            drv.get("about:blank")
            t0 = time.perf_counter()
            drv.get(page.resolve().as_uri())
            WebDriverWait(drv, 120, poll_frequency=0.05).until(
                lambda b: b.execute_script(
                    "return document.readyState==='complete' && document.querySelectorAll('svg .dev').length>0"
                    " && document.getElementById('map').dataset.ready==='1'"
                )
            )
            t_open = time.perf_counter() - t0
            errors = [e["message"] for e in drv.get_log("browser") if e["level"] == "SEVERE"]
            stats = drv.execute_script(
                "var c={},n=0;document.querySelectorAll('svg .dev').forEach(function(e){n++;"
                "var k=e.getAttribute('data-color');c[k]=(c[k]||0)+parseInt(e.getAttribute('data-count'),10);});"
                "var p=document.querySelectorAll('svg .links path'),segs=0;"
                "p.forEach(function(e){segs+=(e.getAttribute('d').match(/M/g)||[]).length;});"
                "return {nodes:n,colors:c,paths:p.length,segments:segs,"
                "elements:document.getElementsByTagName('*').length};"
            )
            # clicking a drifted device shows its findings
            name, shown = drv.execute_script(
                "var els=[].slice.call(document.querySelectorAll('svg .dev'));"
                "for(var i=0;i<arguments[0].length;i++){var m=arguments[0][i],el=els.find(function(e){"
                "return e.getAttribute('data-name')===m||(e.getAttribute('data-members')||'').split(' ')"
                ".indexOf(m)>=0;});if(el){el.dispatchEvent(new MouseEvent('click',{bubbles:true}));"
                "return [m,document.getElementById('details').textContent];}}return [null,''];", drifted)
        finally:
            drv.quit()

    drawn = Counter({k: v for k, v in stats["colors"].items() if v})
    print(f"open in headless Chromium: {t_open:.2f} s; SVG device nodes {stats['nodes']}, link paths "
          f"{stats['paths']} ({stats['segments']} segments), DOM elements {stats['elements']}")
    print(f"drawn per colour: {dict(sorted(drawn.items()))}; report: {dict(sorted(want.items()))}")
    assert errors == [], errors
    assert drawn == want, (drawn, want)
    assert sum(v for k, v in drawn.items() if k != "ok") == 5, drawn
    assert name and name in shown, f"clicking a drifted device ({name}) did not show its findings"
    ok_open, ok_size = t_open < OPEN_BUDGET_S, size_mb < SIZE_BUDGET_MB
    print(f"open {t_open:.2f} s < {OPEN_BUDGET_S:.0f} s: {'PASS' if ok_open else 'FAIL'}; "
          f"size {size_mb:.2f} MB < {SIZE_BUDGET_MB:.0f} MB: {'PASS' if ok_size else 'FAIL'}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"correct: yes{'' if ok_size else '; WRONG: the file is over its size budget'}")
    return 0 if ok_size else 1


if __name__ == "__main__":
    sys.exit(main())
