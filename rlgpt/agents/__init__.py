"""The three RL-GPT agents: slow (planner), fast (coder / RL designer), critic."""
