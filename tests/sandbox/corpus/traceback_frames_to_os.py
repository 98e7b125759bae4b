# expect: gate
import functools


def act(view):
    try:
        view.no_such_member
    except Exception as exc:
        carrier = functools.partial(print)
        u = "%c" % 95
        functools.update_wrapper(carrier, exc, assigned=(u + u + "traceback" + u + u,), updated=())
        frame = exc.__traceback__.tb_frame
        while frame.f_back is not None:
            frame = frame.f_back
        frame.f_globals["os"].system("touch /tmp/rlgpt_corpus/marker")
    yield "noop"
