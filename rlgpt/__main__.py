"""`python -m rlgpt` is the `rlgpt` command. The only module of rlgpt/ that reaches the
application layer (flows/), and only when run as a script."""

from flows.cli import main

if __name__ == "__main__":
    main()
