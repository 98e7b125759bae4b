"""LLM backends behind one protocol."""
