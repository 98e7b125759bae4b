"""Gymnasium env over Crafter, task registry, recipe planner."""
