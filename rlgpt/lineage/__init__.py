"""Content hashes, the run layout and the summary that scripts read."""
