"""copy_ between two views of the same memory, in the order ATen's CPU copy kernel writes.

torch refuses a copy whose source partly overlaps the written memory only when it can tell
(both layouts dense). Where one is not (`f[..., -1] = f[0:-1]`, `a[:, 1:] = a[:, :-1]`), the copy
runs, and a later element reads what an earlier one wrote: TensorIterator orders the dims by the
operands' strides (innermost first, ties to the smaller dim), merges what it can, and walks the
inner run either element by element or, when both operands are contiguous there (or the source
is one repeated element), in blocks of two 32-byte vectors, each block read whole before it is
written (ATen registers its copy kernel without AVX-512), the tail element by element.
"""

from __future__ import annotations

import itertools

import numpy as np

from engine import geometry

_BLOCK_BYTES = 64  # two 32-byte vectors per step of vectorized_loop
GRAIN_SIZE = 32768  # above this ATen may split the copy across threads: the order is theirs then


def _coalesced(shape: list[int], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """TensorIterator's coalesce_dimensions over dims already innermost first."""
    shape, strides = list(shape), [list(st) for st in strides]
    prev = 0
    for d in range(1, len(shape)):
        if shape[prev] == 1 or shape[d] == 1 or all(shape[prev] * st[prev] == st[d] for st in strides):
            if shape[prev] == 1:
                for st in strides:
                    st[prev] = st[d]
            shape[prev] *= shape[d]
        else:
            prev += 1
            if prev != d:
                for st in strides:
                    st[prev] = st[d]
                shape[prev] = shape[d]
    return shape[:prev + 1], [st[:prev + 1] for st in strides]


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _last_byte(array: np.ndarray) -> int:
    return _address(array) + sum((n - 1) * st for n, st in zip(array.shape, array.strides)) + array.itemsize


def copy_in_order(target: np.ndarray, source: np.ndarray) -> None:
    """target[...] = source (broadcast to it), two views of one buffer in one dtype, without negative
    strides, as ATen's copy writes it."""
    if not target.size:
        return
    item = target.itemsize
    first = target if _address(target) <= _address(source) else source  # either one may be written through
    source = np.broadcast_to(source, target.shape)
    low = _address(first)
    span = (max(_last_byte(target), _last_byte(source)) - low) // item
    buffer = np.lib.stride_tricks.as_strided(first, (span,), (item,), writeable=True)
    perm = geometry.iterator_order(target.shape, (target.strides, source.strides))
    shape, (t_strides, s_strides) = _coalesced(
        [target.shape[d] for d in perm],
        [[target.strides[d] // item for d in perm], [source.strides[d] // item for d in perm]])
    t0, s0 = (_address(target) - low) // item, (_address(source) - low) // item
    inner, inner_t, inner_s = shape[0], t_strides[0], s_strides[0]
    block = _BLOCK_BYTES // item if inner_t == 1 and inner_s in (1, 0) else 0
    for outer in itertools.product(*(range(n) for n in reversed(shape[1:]))):
        at_t = t0 + sum(i * st for i, st in zip(reversed(outer), t_strides[1:]))
        at_s = s0 + sum(i * st for i, st in zip(reversed(outer), s_strides[1:]))
        _run(buffer, at_t, at_s, inner, inner_t, inner_s, block)


def _run(buffer: np.ndarray, t: int, s: int, n: int, ts: int, ss: int, block: int) -> None:
    """One inner run of n elements: vectorized_loop's blocks (read whole, then written) and the
    tail element by element, or basic_loop's elements one by one when `block` is 0. A repeated
    source element is read once for the blocks, and afresh for each tail element."""
    i = 0
    if block:
        held = buffer[s] if ss == 0 else None
        while i <= n - block:
            buffer[t + i:t + i + block] = held if ss == 0 else buffer[s + i:s + i + block].copy()
            i += block
    while i < n:
        buffer[t + i * ts] = buffer[s + i * ss]
        i += 1


def put_in_order(target: np.ndarray, index: tuple, source: np.ndarray, order: list[int]) -> None:
    """target[index] = source (broadcast to the selection), two views of one buffer in one dtype,
    without negative strides, as ATen's index_put_ kernel writes it: one element at a time, each
    read from the source just before it is written, the dims walked in TensorIterator's `order`
    (innermost first)."""
    item = target.itemsize
    positions = geometry.storage_indices(target.shape, tuple(st // item for st in target.strides), 0)[index]
    reads = np.broadcast_to(geometry.storage_indices(
        source.shape, tuple(st // item for st in source.strides), (_address(source) - _address(target)) // item),
        positions.shape)
    low = min(0, int(reads.min()))
    first = target if _address(target) <= _address(source) else source
    span = (max(_last_byte(target), _last_byte(source)) - _address(first)) // item
    buffer = np.lib.stride_tricks.as_strided(first, (span,), (item,), writeable=True)
    walk = tuple(reversed(order))
    for at, read in zip((positions.transpose(walk) - low).ravel().tolist(),
                        (reads.transpose(walk) - low).ravel().tolist()):
        buffer[at] = buffer[read]
