"""The seccomp filter of the sandboxed worker (libseccomp, through pyseccomp): every system call
is allowed but those a coded action never needs, which fail with EPERM.

Denied: all of the socket API (no family is needed: the worker talks over inherited pipes),
debugging and other processes' memory (ptrace, process_vm_*), namespaces and mounts (unshare,
setns, mount, pivot_root, chroot, and clone with any CLONE_NEW* flag), the kernel's key store,
BPF, perf, userfaultfd, io_uring, modules, kexec, reboot, swap, accounting, quotas, syslog and
handle-based opens. clone3 answers ENOSYS, so the C library falls back to clone, whose flags the
filter can inspect. Also denied, as budgets a worker would share with the host's processes of
its uid or with the whole host: inotify instances (128 per uid), POSIX message queues, and
pipe resizing (F_SETPIPE_SZ: pipe pages are counted per uid; a shrunk request pipe is also how a
worker would try to block its host's writes). And execveat, the one way to run a memfd.
"""

from __future__ import annotations

import errno
import functools
import os

DENIED = (
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto",
    "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "getsockopt", "setsockopt",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsmount",
    "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "open_by_handle_at",
    "name_to_handle_at", "iopl", "ioperm", "lookup_dcookie", "fanotify_init", "personality",
    "inotify_init", "inotify_init1", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
    "mq_notify", "mq_getsetattr", "execveat", "memfd_secret",
)  # fmt: skip
F_SETPIPE_SZ = 1031
CLONE_NEW_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET


@functools.cache
def filter_bytes() -> bytes:
    """The compiled BPF program. Raises ImportError or OSError where libseccomp is missing."""
    import pyseccomp as sc

    rules = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(sc.ERRNO(errno.EPERM), name)
        except (ValueError, OSError):  # a call this kernel's architecture does not have
            continue
    rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(sc.ERRNO(errno.EPERM), "fcntl", sc.Arg(1, sc.EQ, F_SETPIPE_SZ))
    for bit in range(32):
        flag = 1 << bit
        if CLONE_NEW_FLAGS & flag:
            rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    fd = os.memfd_create("rlgpt-seccomp")
    try:
        with os.fdopen(os.dup(fd), "wb") as out:
            rules.export_bpf(out)
        os.lseek(fd, 0, os.SEEK_SET)
        data = b""
        while chunk := os.read(fd, 65_536):
            data += chunk
    finally:
        os.close(fd)
    return data


def filter_fd() -> int:
    """A fresh readable fd holding the filter, for bubblewrap's --seccomp (it reads it all)."""
    fd = os.memfd_create("rlgpt-seccomp")
    os.write(fd, filter_bytes())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
