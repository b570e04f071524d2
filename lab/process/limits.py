"""The class's resource limits, set with setrlimit in a student-side process before it runs
anything (everything that process starts inherits them), the seccomp filter that keeps every
kernel keyring out of reach, and control groups: the one reader of this process's, and the
submission's (lab/grading/cgroup.py makes it) that a zygote's fork joins."""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import struct
import sys
import threading
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC = Path("/proc")
# Processes and threads one sandbox may hold (a real client, node, holds about 15 with the
# server it starts): RLIMIT_NPROC set inside its own user namespace counts that sandbox alone.
SANDBOX_PIDS = 24
THREAD_STACK = 1024 * 1024  # bytes of stack for each new Python thread of a limited process


def cap(kind: int, soft: int, hard: int) -> None:
    """Lower a limit, never raise it above what this process was given already."""
    old_hard = resource.getrlimit(kind)[1]
    if old_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, old_hard), min(hard, old_hard)
    resource.setrlimit(kind, (soft, hard))


def apply_limits(cpu_seconds: int, memory_bytes: int, file_bytes: int) -> None:
    cap(resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 2)  # SIGXCPU first, SIGKILL 2 s later
    cap(resource.RLIMIT_AS, memory_bytes, memory_bytes)
    # A thread's stack reserves 8 MiB of address space by default: the check run's threads (one
    # or more per probe) would not fit in a --memory of a few hundred MiB ("can't start new thread").
    threading.stack_size(THREAD_STACK)
    cap(resource.RLIMIT_FSIZE, file_bytes, file_bytes)
    cap(resource.RLIMIT_CORE, 0, 0)
    if sys.platform == "linux" and platform.machine() in KEYRING_CALLS:
        forbid_keyrings()


# Per machine: the seccomp audit arch, then add_key, request_key and keyctl's numbers.
KEYRING_CALLS = {"x86_64": (0xC000003E, 248, 249, 250), "aarch64": (0xC00000B7, 217, 218, 219),
                 "riscv64": (0xC00000F3, 217, 218, 219)}
X32_BIT = 0x40000000  # x86_64's x32 calls: none is needed here, all are refused
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
LOAD, JUMP_IF_EQUAL, JUMP_IF_AT_LEAST, RETURN = 0x20, 0x15, 0x35, 0x06
ALLOW, REFUSE = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM


def keyring_filter(machine: str) -> bytes:
    """A classic BPF program: add_key, request_key and keyctl (and any call of another ABI)
    return EPERM; everything else is allowed. Each instruction is (code, jt, jf, k)."""
    arch, *calls = KEYRING_CALLS[machine]
    program = [(LOAD, 0, 0, 4), (JUMP_IF_EQUAL, 0, 6, arch), (LOAD, 0, 0, 0), (JUMP_IF_AT_LEAST, 4, 0, X32_BIT),
               *[(JUMP_IF_EQUAL, 3 - index, 0, number) for index, number in enumerate(calls)],
               (RETURN, 0, 0, ALLOW), (RETURN, 0, 0, REFUSE)]
    return b"".join(struct.pack("HBBI", *instruction) for instruction in program)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    """OSError with errno's word when a libc call said no."""
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def forbid_keyrings() -> None:
    """No kernel keyring for this process and all it starts: a keyring is per uid, and a root
    grader's sandboxes share one uid with no user namespace of their own, so a key one
    submission adds would be read by the next; the session keyring is the grader's. Python,
    openai and the real clients use none (docker's default seccomp profile refuses them too)."""
    code, c = keyring_filter(platform.machine()), libc()
    if os.geteuid() != 0:  # without CAP_SYS_ADMIN, a filter needs no_new_privs (bwrap sets it anyway)
        c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    check(c.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(SockFprog(len(code) // 8, code)), 0, 0), "seccomp")


def join_group(procs: list[str]) -> None:
    """Move this process into the submission's student group, where its sandbox's holder was
    born (`procs`: the cgroup.procs files of Spec.group): a zygote's fork is born outside it,
    and must count against it. A move refused is an error, as it is for the holder."""
    if not isinstance(procs, list) or not all(
            isinstance(path, str) and path.startswith(f"{CGROUP_ROOT}/") and path.endswith("/cgroup.procs")
            for path in procs):
        raise ValueError("a group is a list of cgroup.procs files")
    for path in procs:
        Path(path).write_text("0\n")  # 0: the writer


def cgroup_paths(proc: Path = PROC) -> dict[str, str]:
    """controller -> this process's cgroup path, from /proc/self/cgroup ("": cgroup v2's one tree)."""
    paths: dict[str, str] = {}
    try:
        lines = (proc / "self" / "cgroup").read_text().splitlines()
    except OSError:
        return paths
    for _, controllers, path in (line.split(":", 2) for line in lines if line.count(":") >= 2):
        paths.update(dict.fromkeys(controllers.split(","), path))
    return paths
