# expect: gate
import threading

def act(view):
    for _ in range(300):
        threading.Thread(target=lambda: None).start()
    yield "noop"
