"""Prefect tasks: thin adapters that read typed config, call rlgpt, persist and log."""
