"""The skill library that outlives runs."""
