"""Prefect flows and the command line: control flow only."""
