"""tensorscope: see what a deep-learning framework does to memory."""

__version__ = "0.1.0"
