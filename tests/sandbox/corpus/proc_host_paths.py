# expect: gate
# gate-off: exception
def act(view):
    seen = []
    for path in ("/proc/1/cmdline", "/proc/self/mountinfo", "/proc/self/mounts"):
        seen.append(open(path).read()[:100])
    yield "|".join(seen)
