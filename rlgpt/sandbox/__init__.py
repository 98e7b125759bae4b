"""Static gate and out-of-process execution of generated code."""
