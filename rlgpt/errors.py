"""Error types. A UserError is bad input: the CLI prints its one line and exits 2."""


class RLGPTError(Exception):
    """A failure of the pipeline itself (exit code 1)."""


class UserError(RLGPTError):
    """Bad input the user can fix; the message says what to fix (exit code 2)."""
