"""How fast `lab check --watch` answers a save: from the file's write to the new score line.

    python bench/watch_speed.py [--saves N]

Starts `lab check COPY --watch` on a copy of the lesson's solutions (one warm process for
the whole run), waits for its first verdict, then saves server.py, client.py, model.py
and answers.toml in turn (a comment appended: a real change of content) and times each
save until the next "Score" line. Prints the median and the worst per file.
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILES = ("server.py", "client.py", "model.py", "answers.toml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=5, help="saves per file")
    saves = parser.parse_args().saves
    with tempfile.TemporaryDirectory(prefix="lab-watch-bench-") as temp:
        folder = Path(temp) / "work"
        shutil.copytree(REPO / "solutions", folder, ignore=shutil.ignore_patterns("bonus_*", "__pycache__"))
        watcher = subprocess.Popen([sys.executable, "-m", "lab", "check", str(folder), "--watch", "--lang", "en"],
                                   cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        scores: queue.Queue[float] = queue.Queue()

        def read() -> None:
            for line in watcher.stdout:  # type: ignore[union-attr]
                if line.startswith("Score"):
                    scores.put(time.perf_counter())

        threading.Thread(target=read, daemon=True).start()
        try:
            scores.get(timeout=60)  # the first, cold verdict
            times: dict[str, list[float]] = {name: [] for name in FILES}
            for round_ in range(saves):
                for name in FILES:
                    time.sleep(0.3)  # a pause between saves, as a person types
                    comment = "#" if name != "answers.toml" else "#"
                    with open(folder / name, "a", encoding="utf-8") as file:
                        file.write(f"\n{comment} save {round_}\n")
                    saved = time.perf_counter()
                    times[name].append(scores.get(timeout=60) - saved)
        finally:
            watcher.terminate()
            watcher.wait(timeout=10)
    print(f"`lab check --watch`, save-to-verdict, {saves} saves per file, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| file saved | median (s) | worst (s) |")
    print("|---|---|---|")
    for name, samples in times.items():
        print(f"| {name} | {statistics.median(samples):.2f} | {max(samples):.2f} |")


if __name__ == "__main__":
    main()
