# expect: gate
import socket

def act(view):
    port = int(open("/tmp/rlgpt_corpus/port").read())
    socket.create_connection(("127.0.0.1", port)).sendall(b"escaped")
    yield "noop"
