"""Every child process the kit starts, in one home: how it starts, is limited, read, timed and
killed. Student code runs only in processes started here.

- groups.py: process groups and CPU budgets; killing a child with everything it started
- student.py: starting a student process (the server, the client, the model runner, the bonus
  server, the server a real MCP client starts): sandboxed under `lab grade` (lab/sandbox.py),
  a new interpreter or a preloaded fork joined into its sandbox (lab/sandbox_entry.py); its
  environment and its listeners
- talk.py: talking to it within limits (one run, or a line-by-line conversation), capped output
- preloaded.py: asking a preloader for a fork, and the forked process (the Popen interface)
- preloader.py: `lab grade`'s preloader and zygote, which fork ready interpreters
- limits.py: the class's setrlimit limits, and joining a submission's control group
- fork.py: the kit's own scripts in a fork of this interpreter (`lab run`)

The trusted processes of `lab grade` that run no student code are started where they are
used: the check run of each submission (lab/grading/runner.py) and the real MCP clients'
own processes (lab/real_clients.py); the student servers those clients start come from
student.py's `student_command`.
"""

from lab.process.fork import can_fork, run_python_with_limit, run_script_here, run_with_limit
from lab.process.groups import GROUPS, POSIX, TOKEN_VARIABLE, kill_group, limit_cpu, sweep_group
from lab.process.preloaded import REPLY_LIMIT, Forked, start
from lab.process.student import (PRELOAD_VARIABLE, ZYGOTE_VARIABLE, KitError, child_env, copy_student_file,
                                 joins_here, read_student_file, start_joined, start_python, start_student,
                                 student_command)
from lab.process.talk import Conversation, Run, converse, run_python

__all__ = [
    "GROUPS", "POSIX", "PRELOAD_VARIABLE", "REPLY_LIMIT", "TOKEN_VARIABLE", "ZYGOTE_VARIABLE", "Conversation",
    "Forked", "KitError", "Run", "can_fork", "child_env", "converse", "copy_student_file", "joins_here",
    "kill_group", "limit_cpu", "read_student_file", "run_python", "run_python_with_limit", "run_script_here",
    "run_with_limit", "start", "start_joined", "start_python", "start_student", "student_command", "sweep_group",
]
