"""Orchard's skill API (standard library only: a sandbox could bind it)."""
