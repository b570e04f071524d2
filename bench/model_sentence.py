"""Is the model's sentence right? `lab run` N times against a real model, counted.

    python bench/model_sentence.py --llama-server BIN --model FILE.gguf [--runs 10] [--lang fr]
    python bench/model_sentence.py --url http://127.0.0.1:4000 [--runs 10] [--server rich]

With --llama-server, it serves the model on 127.0.0.1 with docker-compose.yml's own ai-local
flags (read from the file: --temp, --no-repack, --ctx-size, ...), on a free port, and stops it
at the end. --server rich runs a copy of solutions/ whose server announces tools, resources and
prompts with listChanged true. Each run is judged from what `lab run` printed:
  fallback   no model answered (the recorded sample was printed);
  doubtful   the kit's post-check doubted the sentence (model_setup.doubts);
  right      otherwise; "strict" also asks, when a listChanged is false, that the sentence says
             the list will not be announced as changing (a negated change, the JSON quoted back
             aside), which the kit's post-check does not require.
It prints each sentence (read them: the counts are only as good as the post-check) and one
Markdown row: runs, right, strict, doubtful, fallback, median and slowest run, server memory.
The GGUF files used for docs/docker.md come from PyPI packages (docs/docker.md says which).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "solutions"))
from model_setup import CHANGE, NEGATION  # noqa: E402  (the kit's own words for a change, and its negation)

LESSON_CAPABILITIES = '{"tools": {"listChanged": False}}'
RICH_CAPABILITIES = ('{"tools": {"listChanged": True}, "resources": {"listChanged": True}, '
                     '"prompts": {"listChanged": True}}')
SAYS = ("le modèle dit : ", "the model says: ")
FALLBACK = ("Échantillon enregistré : aucun modèle", "Recorded sample: no model")
DOUBT = ("La phrase ci-dessous peut être fausse", "The sentence below may be wrong")


def compose_flags() -> list[str]:
    """ai-local's command line in docker-compose.yml, less --model, --host and --port."""
    command = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]["ai-local"]["command"]
    flags, skip = [], False
    for arg in command:
        if skip:
            skip = False
        elif arg in ("--model", "--host", "--port"):
            skip = True
        else:
            flags.append(str(arg))
    return flags


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(binary: Path, model: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    argv = [str(binary), "--model", str(model), "--host", "127.0.0.1", "--port", str(port), *compose_flags()]
    print("serving:", " ".join(argv), flush=True)
    server = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"llama-server stopped with code {server.returncode}: see {log}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=5) as answer:
                if answer.status == 200:
                    return server, url
        except OSError:
            pass
        time.sleep(1)
    server.kill()
    raise SystemExit("llama-server was not healthy within 600 s")


def peak_memory(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "?"
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return f"{int(found.group(1)) / 1024:.0f} MiB" if found else "?"


def folder_for(server: str, scratch: Path) -> Path:
    if server == "lesson":
        return REPO / "solutions"
    folder = scratch / "rich"
    shutil.copytree(REPO / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    code = (folder / "server.py").read_text(encoding="utf-8")
    assert LESSON_CAPABILITIES in code, "server.py's capabilities line moved: update this bench"
    (folder / "server.py").write_text(code.replace(LESSON_CAPABILITIES, RICH_CAPABILITIES), encoding="utf-8")
    return folder


def judge(stdout: str, rich: bool) -> tuple[str, str]:
    lines = stdout.splitlines()
    said = next((line for line in reversed(lines) if line.startswith(SAYS)), "")
    sentence = said.split(": ", 1)[1] if ": " in said else ""
    if any(line.startswith(FALLBACK) for line in lines):
        return "fallback", sentence
    if any(line.startswith(DOUBT) for line in lines):
        return "doubtful", sentence
    lower = re.sub(r"\{.*\}|listchanged", "", sentence.lower())  # the JSON quoted back says nothing
    strict = rich or bool(re.search(CHANGE, lower) and re.search(NEGATION.replace("|false", ""), lower))
    return "strict" if strict else "right", sentence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-server", type=Path, help="llama.cpp's llama-server binary")
    parser.add_argument("--model", type=Path, help="the GGUF file it serves")
    parser.add_argument("--url", help="an OpenAI-compatible endpoint already serving (AI_URL)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--lang", choices=("fr", "en"), default="fr")
    parser.add_argument("--server", choices=("lesson", "rich"), default="lesson")
    parser.add_argument("--timeout", help="AI_TIMEOUT for lab run (default: the kit's, 30 s); a loaded machine "
                        "makes a right answer late, and a late one is a fallback")
    args = parser.parse_args()
    if not args.url and not (args.llama_server and args.model):
        parser.error("give --url, or --llama-server and --model")
    server = None
    with tempfile.TemporaryDirectory(prefix="bench-sentence-") as temp:
        scratch = Path(temp)
        if args.url:
            url = args.url
        else:
            server, url = serve(args.llama_server, args.model, scratch / "llama-server.log")
        try:
            folder = folder_for(args.server, scratch)
            counts = {"right": 0, "strict": 0, "doubtful": 0, "fallback": 0}
            seconds = []
            for run in range(1, args.runs + 1):
                env = {key: value for key, value in os.environ.items() if not key.startswith(("AI_", "LAB_"))}
                env["AI_URL"] = url
                if args.timeout:
                    env["AI_TIMEOUT"] = args.timeout
                started = time.monotonic()
                done = subprocess.run([sys.executable, "-m", "lab", "--lang", args.lang, "run", str(folder)],
                                      capture_output=True, text=True, env=env, cwd=scratch, timeout=300)
                seconds.append(time.monotonic() - started)
                verdict, sentence = judge(done.stdout, args.server == "rich")
                counts[verdict] += 1
                doubt = next((line for line in done.stdout.splitlines() if line.startswith(DOUBT)), "")
                print(f"{run:3} {verdict:9} {seconds[-1]:6.1f} s  {sentence}" + (f"\n      {doubt}" if doubt else ""),
                      flush=True)
            memory = peak_memory(server.pid) if server else "?"
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
    model = args.model.name if args.model else url
    right = counts["right"] + counts["strict"]
    print("\n| model | lang | server | runs | right | of which strict | doubtful | fallback | median | slowest "
          "| memory |\n|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {model} | {args.lang} | {args.server} | {args.runs} | {right} | {counts['strict']} | "
          f"{counts['doubtful']} | {counts['fallback']} | {statistics.median(seconds):.1f} s | {max(seconds):.1f} s "
          f"| {memory} |")


if __name__ == "__main__":
    main()
