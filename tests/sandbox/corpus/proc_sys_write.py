# expect: gate
# gate-off: exception
def act(view):
    with open("/proc/sys/kernel/hostname", "w") as f:
        f.write("owned")
    with open("/proc/sysrq-trigger", "w") as f:
        f.write("h")  # help only: harmless, yet no sandbox may reach it
    yield "noop"
