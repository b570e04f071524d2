"""Entering a running sandbox from a preloaded fork: the model runner without `import openai`.

`import openai` costs more CPU than all the rest of a submission's checks, and a sandboxed
process cannot be forked from the class's preloader the way an unsandboxed one is: the fork is
born outside. So under `lab grade` a sandboxed model runner starts in two steps (servers and
clients start as new interpreters in bubblewrap, as a real client starts them):
1. bubblewrap builds the sandbox as for any student process (lab/process/sandbox.py), but runs only a
   holder in it (the launcher with no program: it binds the listeners, hands them out, waits);
2. the class's zygote (lab/process/preloader.py, a preloader with only openai loaded, none of
   the kit's checks) forks a child that joins the holder's namespaces with setns(2), drops every
   capability, then forks the runner: the runner is pid 2+ of the sandbox's pid namespace, sees
   only its mount namespace, reaches only its loopback, and dies with the holder.
Joining a user namespace one's own uid made gives every capability inside it (that is how
setns into the others is allowed); they are all dropped, and no_new_privs set, before any
student code runs, as bwrap's `--cap-drop ALL` does for a program it starts itself.

Linux only: setns, capset and prctl through libc (os.setns is Python 3.12+).
"""

from __future__ import annotations

import ctypes
import os
import resource

from lab.process.limits import PR_SET_NO_NEW_PRIVS, SANDBOX_PIDS, cap, check, libc
from lab.process.trusted import PR_SET_DUMPABLE

# The namespaces a sandbox has. The user namespace is joined twice over: first the one that
# owns the others (it gives the capabilities joining them needs), last the process's own. An
# unprivileged bwrap nests the second in the first, so that the sandbox cannot undo its mounts.
NAMESPACES = ("user", "pid", "cgroup", "ipc", "uts", "net", "mnt")
NS_GET_USERNS = 0xB701  # ioctl: the user namespace that owns a namespace (Linux 4.9)

PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63  # above the kernel's last one, prctl says EINVAL: the loop stops there


def join(fds: dict[str, int]) -> None:
    """Join the namespaces whose fds are given (name -> fd of /proc/PID/ns/NAME): the user
    namespace owning them, each of them (the mount namespace last: it changes the root), then
    the process's own user namespace. One the caller is in already is skipped (setns into
    one's own user namespace fails)."""
    import fcntl

    c = libc()
    # The caller's namespaces, read before any is left (once in the sandbox's mount namespace,
    # /proc is the sandbox's, where this process has no entry).
    current = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in NAMESPACES}

    def enter(fd: int, name: str) -> None:
        if os.fstat(fd).st_ino != current[name]:
            check(c.setns(fd, 0), f"setns {name}")
            current[name] = os.fstat(fd).st_ino

    owner = fcntl.ioctl(fds["pid"], NS_GET_USERNS)
    try:
        enter(owner, "user")
    finally:
        os.close(owner)
    for name in NAMESPACES[1:]:
        enter(fds[name], name)
    enter(fds["user"], "user")


def drop_privileges(uid: int = -1) -> None:
    """No capability left in any set, the bounding set emptied, and no way to regain one; with
    `uid` (>= 0: the sandbox's student uid, when the grader is root), that uid and group too,
    as setpriv gives a process bubblewrap starts (lab/process/sandbox.py)."""
    c = libc()
    for capability in range(LAST_CAPABILITY + 1):
        if c.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            break  # past the kernel's last capability
    c.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL on kernels before 4.3: none then
    if uid < 0:  # in the sandbox's user namespace: its process limit, as prlimit gives bwrap's programs
        cap(resource.RLIMIT_NPROC, SANDBOX_PIDS, SANDBOX_PIDS)
    else:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        # A uid change leaves a process undumpable (its /proc entries root's), where an exec
        # would not: as the same process bubblewrap and setpriv start, it may read its own.
        c.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)  # this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: two 32-bit halves each, all zero
    check(c.capset(header, data), "capset")
    check(c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")

