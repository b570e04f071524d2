"""Every time limit of the kit, in seconds, each with why it is what it is: the one place to
change one. The modules that apply a limit name it from here (`REPLY_LIMIT = SERVER_REPLY`);
a probe's own limit is built from these (lab/checks/*: `PROBES`), a submission's limit
under `lab grade` is SUBMISSION (`--timeout`), longer by what its probes add up to when they
run in turn (lab/checks/__init__.py::probes_time, lab/grading/classroom.py::in_turn_limits).
The docs point here rather than repeat a figure.

Most limits are generous on purpose: a class graded in parallel on a busy machine must not
pass for a student program that hangs. What a correct submission takes is far below each
(bench/RESULTS.md has the figures)."""

# ---------------------------------------------------------------- a whole run

# One submission's check run under `lab grade` (--timeout), its probes side by side: above what
# most probes may take, so that their precise verdicts win; this catches what the engine itself
# could not stop (a probe whose own limit is longer is stopped here with the run).
SUBMISSION = 90.0
LAB_RUN = 120.0  # `lab run`: a student's program run by hand, then stopped with what it started
WORKER_STOP = 10.0  # a stopped run (Ctrl-C) waits this for each of its threads to end, its processes killed

# ---------------------------------------------------------------- the lesson's server (server_session.py, parts.py)

# A reply, from when its request was sent, the input still open: a correct server needs a
# millisecond; one that never flushes is told from a slow machine by this.
SERVER_REPLY = 3.5
SERVER_STARTUP = 8.0  # the first reply: the sandbox's and the interpreter's start are in it (slow under load)
SERVER_FINISH = 3.5  # after the input closed: the rest written, the process gone
SERVER_SESSION = 20.0  # one session in all, however slowly each reply comes
PART_LOAD = 8.0  # a parts runner's first answer: the sandbox's start, the interpreter's and the import
PART_CALL = 3.0  # each later call of a written part
PARTS = 10.0  # one parts runner in all (the three run side by side)

# ---------------------------------------------------------------- the lesson's client (client_checks.py)

CLIENT = 8.0  # the student's client run against the spy server: a correct one needs a fraction of one
CLIENT_HOLD_LAST = 0.25  # the spy's last reply waits this long: a client that closes the input early does it within
CLIENT_SPY_DRAIN = 2.0  # once the client ended, the spy ends writing down what reached it (the relay is gone: no wait)

# ---------------------------------------------------------------- the model helper (model_checks.py, endpoints.py)

MODEL_PREPARE = 10.0  # the runner's sandbox and interpreter started, openai imported (the kit's part)
MODEL_IMPORT = 15.0  # model.py imported, once the kit's own imports are done
MODEL_CASES = 32.0  # the four cases in all: their own limits (AI_TIMEOUT + MODEL_CASE_ROOM each) added, with room
MODEL_BARRIER = 2.0  # the runner's answer to the order after the last case
MODEL_CASE_ROOM = 2.0  # a case's limit beyond the AI_TIMEOUT the helper is given
MODEL_REFUSED_TIMEOUT = 2.0  # AI_TIMEOUT for the refused port: quick, so a helper that never returns is caught early
MODEL_ANSWER_TIMEOUT = 10.0  # AI_TIMEOUT where the model answers at once (or errs): a busy machine is not a slow helper
MODEL_SLOW_TIMEOUT = 0.1  # AI_TIMEOUT for the silent model: the helper must give up after it...
MODEL_GIVE_UP = 1.0  # ...within this much more
MODEL_SILENT = 60.0  # how long the silent endpoint keeps a connection without answering, if never closed

# ---------------------------------------------------------------- real MCP clients (real_clients.py)

# One SDK mode: connect and list tools. A healthy server needs milliseconds; the SDK itself
# waits longer for a `server/discover` answer, so a server that ignores the probe fails here.
SDK_STEP = 6.0
SDK = 45.0  # the whole SDK child: the import, every mode, and the SDK's own shutdown of the server
INSPECTOR = 30.0  # the Inspector CLI once npx has the package (the Inspector's own wait is longer)
INSPECTOR_FETCH = 90.0  # the same when npx must fetch it first from the npm registry

# ---------------------------------------------------------------- probes (lab/checks/engine.py)

PROBE_ROOM = 2.0  # a probe's limit beyond its student process's own: starting it, reading its end
MODEL_PROBE_ROOM = 3.0  # the same for the model probe, whose local endpoints start and stop within it too
ANSWERS_READ = 2.0  # reading answers.toml: no process, a capped read of one small file
PROBE_GRACE = 5.0  # a check waits this beyond a probe's own limit before giving up on it (a kit bug)

# ---------------------------------------------------------------- CPU budgets (seconds of CPU, not of the clock)

# An endless loop is stopped at its budget rather than burn a core the rest of a class needs;
# a correct program needs a small fraction of each.
SERVER_CPU = 0.5  # one server session
PARTS_CPU = 3  # one parts runner
CLIENT_CPU = 2  # the client, and the spy server it starts (each)

# ---------------------------------------------------------------- the process layer (lab/process)

PRELOADER_READY = 60.0  # a preloader's imports: far above what they take
PRELOADER_REPLY = 10.0  # a preloader's fork and its answer with the pid
SANDBOX_TRIAL = 10.0  # the "does bwrap work here" trial run
SANDBOX_LISTENERS = 10.0  # a sandbox's launcher handing its listeners out
ZYGOTE_JOIN = 10.0  # a zygote's fork saying it joined its sandbox
REAP = 5.0  # a killed process reaped (longer: stuck in the kernel, left to be reaped later)
EXIT_GRACE = 0.5  # reading what is left in a trusted process's pipes once it has ended
# The same for a student process: a grandchild in another group may hold a pipe open
# long after; never wait for it.
PIPE_GRACE = 1.0
CPU_LOOK = 0.1  # between two looks at a conversation's CPU, once its budget could be spent (talk.py)
