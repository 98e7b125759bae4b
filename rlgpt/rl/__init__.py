"""PPO training, reward terms, evaluation and metrics."""
