"""Validation of coded actions: the scenarios they run, the judge of each run, the feedback a
model repairs from, and the static lint."""
