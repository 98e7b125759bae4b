# expect: gate
def act(view):
    for cls in ().__class__.__bases__[0].__subclasses__():
        if cls.__name__ == "Popen":
            cls(["true"])
    yield "noop"
