"""Every child process the kit starts, in one home: how it starts, is sandboxed, limited,
read, timed and killed. Student code runs only in processes started here.

- launch.py: the launch context (sandbox spec, the zygote's and preloader's addresses, the
  grading nonce), decided once by `lab grade` or `lab check` and passed down
- student.py: the one start for student processes (`start_student`; `student_command` for
  the server a real MCP client starts), and their environment and listeners
- trusted.py: the one start of a process outside a sandbox (`python -I` for the kit's own,
  working folder `/`), forked by a preloader when the caller names one (`fork`), new otherwise
- capped.py: the one reader of a child's output (a thread per pipe, the first bytes kept),
  and `parse_json`, the one parser of JSON from a child
- result.py: the one result type of a run (Run: what it wrote, how it ended, how long)
- talk.py: talking to a student process within limits (one run, or a line-by-line conversation)
- groups.py: `Child`, the one child type (a new process or a fork); `stop`, the one kill;
  process groups and CPU budgets
- sandbox.py, sandbox_entry.py: bubblewrap, and joining a running sandbox from the zygote's fork
- preloader.py: the preloader and zygote that fork ready interpreters
- limits.py: rlimits, the keyring filter, control groups

Import from the module that does the job (`from lab.process.student import start_student`):
this package imports nothing by itself, so `lab run` loads only what it uses.
"""
