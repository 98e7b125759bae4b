# expect: gate
# gate-off: invalid_action
import os

HELD = []


def act(view):
    for _ in range(3000):  # the host's pool of ptys for new devpts instances is 3072
        try:
            HELD.append(os.openpty())
        except OSError:
            break
    yield f"ptys held: {len(HELD)}"
