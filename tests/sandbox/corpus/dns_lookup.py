# expect: gate
import socket

def act(view):
    socket.gethostbyname("example.com")
    yield "noop"
