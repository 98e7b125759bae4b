# sub-action: collect_wood
# budget: 80
# expect: syntax
# mistake: leaves the markdown code fence of its chat answer around the code
```python
def collect_wood(view):
    """Walk to the nearest tree and collect one wood."""
    start = view.inventory["wood"]
    while view.inventory["wood"] == start:
        if view.facing_name == "tree":
            yield "do"
        else:
            reached = yield from approach(view, "tree")
            if not reached:
                yield from explore(view, 8)
```
