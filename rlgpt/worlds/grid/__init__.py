"""What the grid worlds (Crafter, Craftax-Classic, Craftax) share: the geometry of validation
states and the clock and settings of the states from later in an episode."""
