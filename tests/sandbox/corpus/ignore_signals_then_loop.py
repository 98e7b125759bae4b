# expect: gate
import signal

def act(view):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        pass
    yield "noop"
