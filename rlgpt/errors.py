"""Error types. A UserError is bad input: the CLI prints its one line and exits 2."""


class RLGPTError(Exception):
    """A failure of the pipeline itself (exit code 1)."""


class UserError(RLGPTError):
    """Bad input the user can fix; the message says what to fix (exit code 2)."""


class MacroError(Exception):
    """A coded action failed in its sandboxed worker. kind: exception or api_misuse (its code
    raised), invalid_action (it yielded something that is not an action), timeout (no answer in
    time, the worker was killed) or crash (the worker died or broke the protocol). Not an
    RLGPTError: a stage that dies of it may be retried (a training retry resumes from its
    checkpoint)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
