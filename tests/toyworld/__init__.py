"""Orchard, a toy world that is not Crafter's: a 7x7 plain with berry bushes and an oven; pick
berries, bake a pie of two. It meets the World protocol (rlgpt/worlds/base.py) with the least
code, and passes `check_world` (docs/worlds.md, The smallest adapter that works)."""
