"""paddle.utils: dlpack (sharing a tensor's memory through a capsule)."""

from typing import Any

from engine.paddle.utils import dlpack

__all__ = ["dlpack"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.utils", name)
