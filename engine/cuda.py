"""torch.cuda on a machine without a GPU: the answers PyTorch's CPU build gives."""

from __future__ import annotations


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
