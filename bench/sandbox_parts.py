"""What one sandboxed student process costs, part by part, as `lab grade` starts them.

    python bench/sandbox_parts.py [--rounds 30]

Prints the median CPU (of the whole machine: bubblewrap, the holder, the zygote's fork, the
program) of:
- bubblewrap alone around /bin/true;
- a holder saying ready: the Python launcher (sandbox.LAUNCHER) with one listener, what the
  zygote's fork of a model runner joins;
- a session with the lesson's server (solutions/server.py, the scenario's seven messages), a
  new interpreter in bubblewrap, as every student server starts;
- a script importing openai, as a new interpreter in bubblewrap and as a fork of the class's
  zygote joined into its sandbox (the model runner's two start paths).
The kinds run in turns, so that a busy spell of a shared host falls on all of them alike.
The CPU is read from a cpuacct control group holding this process and all it starts (the
zygote's forks are not its children): cgroup v1 as root. Elsewhere it says so and stops.
Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from grade_class import cpu_group, group_cpu, machine_speed  # noqa: E402
from lab.process import sandbox  # noqa: E402
from lab.checks.reference import encode_lines, give_helper_bytecode, scenario_messages  # noqa: E402
from lab.process.groups import Child, stop  # noqa: E402
from lab.process.preloader import preloader  # noqa: E402
from lab.process.launch import Launch  # noqa: E402
from lab.process.preloader import ZYGOTE  # noqa: E402
from lab.process.student import SANDBOX_BASE, receive_listeners, start_student  # noqa: E402

ENV = {**SANDBOX_BASE, "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1", "LAB_LANG": "en"}


def bwrap_alone(spec: sandbox.Spec, work: Path, _zygote: str) -> None:
    subprocess.run(sandbox.wrap(spec, ["/bin/true"], work), check=True)


def holder(spec: sandbox.Spec, work: Path, listen: tuple[str, ...]) -> None:
    """A holder started, its "ready" received, then stopped: what a joined fork waits for."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = Child.new(sandbox.wrap(spec, [], work, theirs.fileno(), listen), pass_fds=(theirs.fileno(),),
                        stdin=subprocess.DEVNULL, start_new_session=True)
    theirs.close()
    for listener in receive_listeners(ours, listen, process).values():
        listener.close()
    stop(process)


def python_launcher(spec: sandbox.Spec, work: Path, _zygote: str) -> None:
    holder(spec, work, ("LAB_BENCH_PORT",))


def session(process) -> None:
    process.stdin.write(encode_lines(scenario_messages()))
    process.stdin.close()
    replies = process.stdout.read().count(b"\n")
    process.wait(timeout=10)
    stop(process)
    assert replies == 6, f"{replies} replies"


def server_session(spec: sandbox.Spec, work: Path, _zygote: str) -> None:
    session(start_student(Launch(spec), work / "server.py", cwd=work, env=ENV)[0])


def openai_script(spec: sandbox.Spec, work: Path, zygote: str) -> None:
    process, _ = start_student(Launch(spec, zygote=zygote), work / "uses_openai.py", cwd=work, env=ENV,
                               warm=bool(zygote))
    process.stdin.close()
    assert process.stdout.read() == b"ok\n"
    process.wait(timeout=30)
    stop(process)


PARTS = {
    "bubblewrap around /bin/true": bwrap_alone,
    "holder: the Python launcher (one listener)": python_launcher,
    "server session, a new interpreter": server_session,
    "import openai, a new interpreter": lambda spec, work, _zygote: openai_script(spec, work, ""),
    "import openai, a joined fork of the zygote": openai_script,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    spec = sandbox.find()[0]
    group = cpu_group()
    if spec is None or group is None:
        sys.exit("needs bubblewrap and a cpuacct control group (cgroup v1, as root)")
    speed = machine_speed(10)
    figures: dict[str, list[float]] = {name: [] for name in PARTS}
    with tempfile.TemporaryDirectory(prefix="lab-parts-") as folder, \
            preloader(60, 2 << 30, 64 << 20, dict(SANDBOX_BASE), ZYGOTE) as zygote:
        work = Path(folder)
        for name in ("server.py", "jsonrpc_lines.py"):
            (work / name).write_bytes((ROOT / "solutions" / name).read_bytes())
        (work / "uses_openai.py").write_text("import openai\nprint('ok')\n", encoding="utf-8")
        give_helper_bytecode(work)
        for _ in range(rounds):
            for name, part in PARTS.items():
                before = group_cpu(group)
                part(spec, work, zygote)
                time.sleep(0.02)  # the sandbox's last processes are reaped
                figures[name].append((group_cpu(group) - before) * 1000)
    print(f"{rounds} rounds; machine speed (a Python start; about 30 ms when the host is quiet): {speed:.0f} ms")
    print(json.dumps({name: round(statistics.median(values), 1) for name, values in figures.items()}, indent=1))
    (group.parent / "cgroup.procs").write_text(f"{os.getpid()}\n")
    group.rmdir()


if __name__ == "__main__":
    main()
