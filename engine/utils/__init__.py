"""torch.utils: data loading, activation checkpointing and hook handles."""

from __future__ import annotations

from engine.utils import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
