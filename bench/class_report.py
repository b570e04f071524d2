"""Benchmark the class report: its size and its rendering time in headless Chromium.

    python bench/class_report.py [--count 300] [--runs 5] [--lang fr|en] [--format gradescope]
                                 [--screenshot docs/img/class-report.png] [--keep DIR]

Writes a synthetic graded class (tests/synthetic_class.py: the real check list, the answers
checks really run, five kinds of runs that did not finish), times `write_report` (reading
the folder back and writing report.html), then opens the page from file:// in headless
Chromium `--runs` times and prints the time from navigation to the load event and to the
first frame drawn after it. Targets for 300 submissions: under 1 MB, under 1 s.
Saves a screenshot of the page's top (the docs' picture) unless --screenshot "" is given.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import Browser, find_chromium  # noqa: E402
from lab.grading.class_report import write_report  # noqa: E402
from synthetic_class import build_class  # noqa: E402

FIRST_FRAME = "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
LOAD_END = 'performance.getEntriesByType("navigation")[0].loadEventEnd'
SCREENSHOT_SIZE = (1100, 1700)  # pixels: the header, the histogram, the lesson parts, the top failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", choices=("fr", "en"), default="en")
    parser.add_argument("--format", dest="fmt", default="gradescope")
    parser.add_argument("--screenshot", default=str(ROOT / "docs" / "img" / "class-report.png"))
    parser.add_argument("--keep", type=Path, help="write the class here instead of a temporary folder")
    options = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("chromium is not installed (Debian/Ubuntu: apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lab-report-bench-") as scratch:
        out = options.keep or Path(scratch) / "grades"
        started = time.monotonic()
        build_class(out, options.count, fmt=options.fmt, lang=options.lang)
        built = time.monotonic() - started
        started = time.monotonic()
        page = write_report(out, options.lang)
        written = time.monotonic() - started
        size = page.stat().st_size
        print(f"{options.count} submissions ({options.fmt}): class written in {built:.2f} s, "
              f"report read back and written in {written:.2f} s")
        print(f"report.html: {size:,} bytes ({size / 1024**2:.2f} MiB; target < 1 MB: "
              f"{'ok' if size < 1_000_000 else 'OVER'})")
        loads, frames, load_events = [], [], []
        with Browser(chromium, timeout=60) as browser:
            for _ in range(options.runs):
                started = time.monotonic()
                loads.append(browser.open(page.as_uri()))
                browser.evaluate(FIRST_FRAME)
                frames.append(time.monotonic() - started)
                load_events.append(browser.evaluate(LOAD_END) / 1000)
                problems = browser.console_errors()
                requests = [url for url in browser.requested_urls() if url != page.as_uri()]
                if problems or requests:
                    print(f"console errors: {problems}; other requests: {requests}", file=sys.stderr)
                    return 1
            rows = browser.evaluate('document.querySelectorAll("#students tbody tr").length')
            if options.screenshot:
                shot = Path(options.screenshot)
                shot.parent.mkdir(parents=True, exist_ok=True)
                browser.open(page.as_uri(), width=SCREENSHOT_SIZE[0])
                browser.screenshot(shot, *SCREENSHOT_SIZE)
                print(f"screenshot: {shot}")
        print(f"rendered {rows} student rows; {options.runs} loads in headless Chromium (median / worst):")
        print(f"  navigation to load event (Navigation Timing): {statistics.median(load_events):.3f} s / {max(load_events):.3f} s")
        print(f"  navigation to load event (DevTools, wall):    {statistics.median(loads):.3f} s / {max(loads):.3f} s")
        print(f"  navigation to the first frame drawn:          {statistics.median(frames):.3f} s / {max(frames):.3f} s "
              f"(target < 1 s: {'ok' if max(frames) < 1 else 'OVER'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
