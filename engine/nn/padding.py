"""Reflection and replication padding (F.pad's 'reflect' and 'replicate' modes) over the last one or two
dims, as ATen's reflection_pad{1,2}d / replication_pad{1,2}d: the nodes ReflectionPad1DBackward0... keep
the padding and the input; their backward ops sum each padded element's gradient back into the
element it copies, and their own derivative pads the gradient again."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine import errors
from engine.ops.core import record
from engine.tensor import Tensor

_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge"}
_NODE = {"reflect": "ReflectionPad", "replicate": "ReplicationPad"}
_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _source_indices(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of the padded axis, the input position it copies."""
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    period = 2 * (size - 1) if size > 1 else 1
    folded = np.abs(positions) % period
    return np.where(folded >= size, period - folded, folded)


def _axes_pads(pad: Sequence[int]) -> list[tuple[int, int]]:
    """(before, after) per padded axis, first axis first (F.pad lists the last dim first)."""
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    return pairs[::-1]


def _indices(shape: tuple[int, ...], pad: Sequence[int], mode: str) -> tuple[np.ndarray, ...]:
    pairs = _axes_pads(pad)
    lead = len(shape) - len(pairs)
    grids = [_source_indices(shape[lead + k], before, after, mode) for k, (before, after) in enumerate(pairs)]
    return tuple(np.ix_(*grids)) if len(grids) > 1 else (grids[0],)


def padded(input: Tensor, pad: Sequence[int], mode: str) -> Tensor:  # noqa: A002 - torch's names
    spatial = len(pad) // 2
    if len(pad) % 2 or spatial not in (1, 2) or input.ndim not in (spatial + 1, spatial + 2):
        if spatial == 3:
            raise NotImplementedError(f"{mode} padding of three dims is not supported by this engine")
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  + _COMBINATIONS)
    shape = input._shape
    lead = input.ndim - spatial
    if any(n == 0 for n in shape[1:]) or (input.ndim == spatial + 1 and shape[0] == 0):
        raise RuntimeError(f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {errors.shape_text(shape)}")
    if mode == "reflect":
        for k, (before, after) in enumerate(_axes_pads(pad)):
            size = shape[lead + k]
            if before >= size or after >= size:
                argument = 2 + 2 * (spatial - k)
                raise RuntimeError(f"Argument #{argument}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before}, {after}) at dimension {lead + k} of input "
                                   f"{errors.shape_text(shape)}")
    x = input._numpy_view()
    value = x[(Ellipsis, *_indices(shape, pad, mode))]
    out = Tensor._wrap(np.array(value, order="C"), input.dtype)
    record(f"{_NODE[mode]}{spatial}DBackward0", out, (input,), save={"self": input},
           values={"padding": tuple(pad), "_mode": mode})
    return out


def pad_backward(grad_output: Tensor, self: Tensor, pad: Sequence[int], mode: str) -> Tensor:
    """reflection/replication_pad*_backward: each output element's gradient added to its source."""
    from engine.ops.backward_ops import new_zeros

    spatial = len(pad) // 2
    result = new_zeros(grad_output, self._shape)
    np.add.at(result._numpy_view(), (Ellipsis, *_indices(self._shape, pad, mode)), grad_output._numpy_view())
    record(f"{_NODE[mode]}{spatial}DBackwardBackward0", result, (grad_output, self),
           values={"padding": tuple(pad), "_mode": mode})
    return result
