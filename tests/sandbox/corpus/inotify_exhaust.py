# expect: gate
# gate-off: exception|invalid_action
# (no ctypes inside: libffi is not in the root; and inotify_init is denied by seccomp)
import ctypes

HELD = []


def act(view):
    libc = ctypes.CDLL(None, use_errno=True)
    for _ in range(200):  # the host uid's whole budget is 128
        fd = libc.inotify_init1(0)
        if fd < 0:
            break
        HELD.append(fd)
    yield f"inotify instances held: {len(HELD)}"
