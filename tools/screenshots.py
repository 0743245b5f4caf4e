#!/usr/bin/env python3
"""Regenerate the lab's drift-report screenshot in README.md and docs/report.md (docs/images/lab-drift.png).

Runs `roceconf demo` (the loopback lab with its eight injected faults), opens the HTML report in headless
Chromium at 1400x900 through selenium (Debian's chromium + chromium-driver, installed by `make setup`), selects
leaf3's finding and saves the window. Look at the picture before committing it.

    .venv/bin/python tools/screenshots.py [--device leaf3] [--out docs/images/lab-drift.png]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="leaf3", help="the device whose finding is selected")
    ap.add_argument("--out", default=str(ROOT / "docs" / "images" / "lab-drift.png"))
    args = ap.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        res = subprocess.run([sys.executable, "-m", "roceconf.cli", "demo", "-o", str(demo)], capture_output=True,
                             text=True, timeout=600)
        if res.returncode != 0:
            print(res.stderr[-2000:], file=sys.stderr)
            return 1
        opts = webdriver.ChromeOptions()
        opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
            opts.add_argument(a)
        drv = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts)
        try:
            drv.get((demo / "report.html").resolve().as_uri())
            rows = [r for r in drv.find_elements("css selector", "#findings tbody tr")
                    if r.get_attribute("data-dev") == args.device]
            if not rows:
                have = sorted({r.get_attribute("data-dev") for r in drv.find_elements("css selector", "#findings tbody tr")})
                print(f"error: no finding of {args.device} in the demo's report (findings of: {', '.join(have)})",
                      file=sys.stderr)
                return 1
            drv.execute_script("arguments[0].click()", rows[0])
            drv.save_screenshot(args.out)
        finally:
            drv.quit()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
