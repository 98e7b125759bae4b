"""The OS boundary of generated code and its client: the static gate, the sandboxed worker and
its limits, the pipes, pool and plans that talk to it."""
