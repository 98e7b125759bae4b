"""Full Craftax's skill API for coded actions (api.py): the view, navigation on a floor,
fighting, moving between floors and lighting them, survival, chests, spells and enchanting.

This package runs inside the sandbox (bound read-only into its root): standard library only.
"""
