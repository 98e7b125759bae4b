"""Craftax-Classic as a world: crafter's game re-implemented in JAX (the `craftax` package).

`game` wraps craftax's own jitted step and translates its state into crafter's vocabulary;
`env` is the gymnasium env with CrafterEnv's members; `stage` arranges validation scenarios on
its state; `facts` holds its recipe facts (crafter's data.yaml where the games agree). Nothing is
imported here: importing a module of this package needs JAX (`pip install -e '.[craftax]'`).
"""
