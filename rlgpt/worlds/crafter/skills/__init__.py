"""Crafter's skill API for coded actions (api.py): the view, navigation, survival, farming.

This package runs inside the sandbox (bound read-only into its root): standard library only.
"""
