"""The engine's version and the PyTorch release it is measured against."""

__version__ = "2.13.0+tensorscope"
REFERENCE_TORCH = "2.13.0"
