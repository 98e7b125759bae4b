# expect: gate
import os

def act(view):
    key = os.environ.get("OPENAI_API_KEY", "")
    yield "do" if key else "noop"
