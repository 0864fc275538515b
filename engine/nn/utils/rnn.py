"""torch.nn.utils.rnn: PackedSequence and the functions that pack and pad variable-length batches."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes
from engine.ops import factories, indexing, views
from engine.ops.core import record
from engine.ops.selection import sort
from engine.tensor import Tensor


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Time steps stacked without padding: `data` holds batch_sizes[t] rows for each step t."""

    __slots__ = ()

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def __repr__(self) -> str:
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, unsorted_indices={self.unsorted_indices!r})")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    output = factories.empty_like(permutation)
    return output.scatter_(0, permutation, factories.arange(permutation.numel()))


def pack_padded_sequence(input: Tensor, lengths: Any, batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:
    lengths = lengths.to(dtype=dtypes.int64) if isinstance(lengths, Tensor) \
        else factories.as_tensor(lengths, dtype=dtypes.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        input = indexing.index_select(input, 0 if batch_first else 1, sorted_indices)  # noqa: A001
    counts = lengths._numpy_view()
    if counts.size and (counts <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if enforce_sorted and (np.diff(counts) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    steps = input.transpose(0, 1) if batch_first else input
    batch_sizes = np.array([(counts > t).sum() for t in range(int(counts[0]) if counts.size else 0)], dtype=np.int64)
    source = steps._numpy_view()
    data = np.concatenate([source[t, :b] for t, b in enumerate(batch_sizes)], axis=0)
    data_t = Tensor._wrap(np.ascontiguousarray(data), input.dtype)
    batch_sizes_t = Tensor._wrap(batch_sizes, dtypes.int64)
    record("PackPaddedSequenceBackward0", data_t, (input,), save_outputs={"result1": batch_sizes_t},
           values={"batch_first": batch_first, "input_sym_sizes": input._shape})
    return PackedSequence(data_t, batch_sizes_t, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    batch_sizes = sequence.batch_sizes._numpy_view()
    max_length = batch_sizes.size
    if total_length is not None:
        if total_length < max_length:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_length}")
        max_length = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    output = factories.empty(max_length, batch, *data._shape[1:], dtype=data.dtype).fill_(padding_value)
    lengths = np.zeros(batch, dtype=np.int64)
    offset, previous_batch, previous_t = 0, batch, 0
    for t in range(batch_sizes.size + 1):
        size = int(batch_sizes[t]) if t != batch_sizes.size else 0
        if size != previous_batch:
            count = previous_batch * (t - previous_t)
            chunk = views.view(views.slice_dim(data, 0, offset, offset + count), t - previous_t, previous_batch,
                               *data._shape[1:])
            target = views.slice_dim(views.slice_dim(output, 0, previous_t, t), 1, 0, previous_batch)
            target.copy_(chunk)
            offset += count
            previous_t = t
        lengths[size:previous_batch] = t
        previous_batch = size
    if batch_first:
        output = views.transpose(output, 0, 1)
    lengths_t = Tensor._wrap(lengths, dtypes.int64)
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return indexing.index_select(output, 0 if batch_first else 1, order), lengths_t[order]
    return output, lengths_t


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    sequences = list(sequences)
    longest = max(s._shape[0] for s in sequences)
    trailing = sequences[0]._shape[1:]
    shape = (len(sequences), longest, *trailing) if batch_first else (longest, len(sequences), *trailing)
    output = factories.empty(*shape, dtype=sequences[0].dtype).fill_(padding_value)  # ATen fills in place
    for i, seq in enumerate(sequences):
        n = seq._shape[0]
        row = views.select(output, 0 if batch_first else 1, i)
        start = 0 if padding_side == "right" else longest - n
        views.narrow(row, 0, start, n).copy_(seq)
    return output


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    lengths = factories.as_tensor([s.size(0) for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
           "pad_sequence"]
