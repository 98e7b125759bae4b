"""What the grid worlds (Crafter, Craftax-Classic, Craftax) share: the geometry of validation
states, the clock and settings of the states from later in an episode, the paper's task names
and the lookup of a task."""
