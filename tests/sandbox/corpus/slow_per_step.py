# expect: timeout
# gate-off: timeout
def act(view):
    while True:  # about 80 ms of CPU per step: under the reply deadline, over the CPU budget
        total = 0
        for i in range(1_500_000):
            total += i % 7
        yield "noop"
