"""Orchard's skill API with a package the sandbox root lacks (test_check_world: the view rule)."""
