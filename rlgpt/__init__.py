"""RL-GPT as a reproducible, auditable pipeline on Crafter."""
