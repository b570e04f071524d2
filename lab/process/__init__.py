"""Every child process the kit starts, in one home: how it starts, is limited, read, timed and
killed. Student code runs only in processes started here.

- groups.py: process groups and CPU budgets; killing a child with everything it started
- student.py: starting a student process (the server, the client, the model runner, the bonus
  server, the server a real MCP client starts): sandboxed under `lab grade` (lab/process/sandbox.py),
  a new interpreter or a preloaded fork joined into its sandbox (lab/process/sandbox_entry.py); its
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

Import from the module that does the job (`from lab.process.student import start_student`):
this package imports nothing by itself, so `lab run` loads only what it uses.
"""
