"""Floating-point sums in the order ATen's CPU sum kernel adds (SumKernel.cpp's cascade_sum), so a
float32 `x.sum()` rounds as PyTorch's does, not as numpy's pairwise summation does.

A row of a reduction is summed either with vectors (when the row is contiguous and has at least a
vector's worth of elements: each lane of four interleaved vector accumulators sums its elements,
then the tail and the lanes are added one by one) or with four scalar accumulators. Each
accumulator is a four-level cascade: chunks of 2**level_power elements are summed, chunk sums are
summed in groups of as many, and so on. Vectors are 32 bytes on every machine: ATen registers its
sum kernel without AVX-512, so AVX-512 machines run the AVX2 build.
"""

from __future__ import annotations

import math

import numpy as np

from engine import geometry

_ILP = 4
_LEVELS = 4
GRAIN_SIZE = 32768  # above this, ATen may split one reduction across threads: the order is theirs then
_VECTOR_BYTES = 32
_ACCUMULATED_SLICE = 64  # elements per slice up to which _sequential's accumulate beats a loop of adds


def lanes(itemsize: int) -> int:
    """Elements of one vector: 32 bytes, as the AVX2 and default builds of the kernel have (ATen
    does not dispatch its sum kernel to AVX-512)."""
    return _VECTOR_BYTES // itemsize


def _sequential(values: np.ndarray, axis: int) -> np.ndarray:
    """Left-to-right sum from zero along `axis` (one rounding per addition). Small slices go through
    np.add.accumulate, which adds in order (the zero it does not start from only turns a -0. total
    into +0., as adding 0. at the end does); large ones are added in turn, one numpy call each."""
    length = values.shape[axis]
    if length > 0 and values.size <= _ACCUMULATED_SLICE * length:
        running = np.add.accumulate(values, axis=axis, dtype=values.dtype)
        # the last running sum (a view, indexed: np.take's wrapper costs more), then a fresh array
        return running[(slice(None),) * axis + (-1,)] + values.dtype.type(0)
    moved = values.transpose((axis, *(d for d in range(values.ndim) if d != axis)))  # np.moveaxis, quicker
    total = np.zeros(moved.shape[1:], dtype=values.dtype)
    for part in moved:
        total += part
    return total


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _multi_row_sum(data: np.ndarray) -> np.ndarray:
    """multi_row_sum: data (batch, size, k) summed over `size` by k cascaded accumulators."""
    size = data.shape[1]
    power = max(4, _ceil_log2(size) // _LEVELS)
    step = 1 << power
    chunks = size // step
    if not chunks:  # every row lands in the first accumulator, in turn
        return _sequential(data, 1)
    body = data[:, :chunks * step]
    chunk_sums = _sequential(body.reshape(data.shape[0], chunks, step, data.shape[2]), 2)
    acc0 = _sequential(data[:, chunks * step:], 1)
    if chunks < step:  # no group to flush past the second accumulator, whose zeros add nothing
        return acc0 + _sequential(chunk_sums, 1)
    groups, leftover = chunk_sums, []
    for _ in range(_LEVELS - 2):  # levels 1 and 2 flush full groups upward; the rest stays
        full = groups.shape[1] // step
        leftover.append(_sequential(groups[:, full * step:], 1))
        groups = _sequential(groups[:, :full * step].reshape(groups.shape[0], full, step, groups.shape[2]), 2)
    acc3 = _sequential(groups, 1)
    for acc in (*leftover, acc3):
        acc0 = acc0 + acc
    return acc0


def _row_sum(rows: np.ndarray) -> np.ndarray:
    """row_sum: rows (batch, n) with four interleaved accumulators (the `rows` may hold vectors)."""
    batch, n, lane_shape = rows.shape[0], rows.shape[1], rows.shape[2:]
    whole = n // _ILP
    width = _ILP * math.prod(lane_shape)
    body = rows[:, :whole * _ILP].reshape(batch, whole, width)
    partial = _multi_row_sum(body).reshape(batch, _ILP, *lane_shape)
    first = partial[:, 0]
    for i in range(whole * _ILP, n):
        first = first + rows[:, i]
    for k in range(1, _ILP):
        first = first + partial[:, k]
    return first


def _in_turn(items: np.ndarray) -> np.ndarray:
    """items[0] + items[1] + ... left to right along axis 0 (np.add.accumulate adds in order); an
    array even when 0-d (numpy takes arrays faster than its scalars). Two vectors are simply
    added: accumulate's set-up costs more than their addition."""
    if items.ndim > 1 and items.shape[0] == 2:
        return items[0] + items[1]
    return np.add.accumulate(items, axis=0)[-1, ...]


def _short_interleaved(items: np.ndarray) -> np.ndarray:
    """_row_sum of one row of `items` (m, *lane) too short for the cascade's chunks (m < 64), but for
    the sign of a zero (see short_row_sum): the four accumulators sum their items in turn (the
    cascade's empty levels add only zeros), then the first adds the leftover items and the others."""
    whole = items.shape[0] // _ILP
    if not whole:  # the accumulators hold only their zeros
        return _in_turn(items)
    accumulators = _in_turn(items[:whole * _ILP].reshape(whole, _ILP, *items.shape[1:]))
    return _in_turn(np.concatenate((accumulators[:1], items[whole * _ILP:], accumulators[1:])))


def short_row_sum(values: np.ndarray) -> np.ndarray:
    """row_sums of a C-contiguous float32 or float64 array read as one row of fewer than 64 vectors
    (is_short), as a 0-d array that shares its memory with no other (fresh, or a view of a fresh
    partial-sum buffer), in a few vector operations instead of the cascade's reshapes (x.sum() of a
    small tensor, the common case): the same additions in the same order, except that ATen's
    accumulators start at +0. and these do not. That changes only the sign of zeros (x + -0. and
    x + +0. differ only when x is a zero), and an accumulator starting at +0. never holds -0., so
    a zero total is +0. in ATen: a few whole vectors (4x4 float32 or float64) write it so into
    their total, the other lengths add +0. to it (on a Python float, which holds either dtype's
    values exactly, and converts back faster than a numpy call with out= runs)."""
    width = _VECTOR_BYTES // values.itemsize
    vectors, left = divmod(values.size, width)
    if not left and vectors <= _ILP:  # a few whole vectors: one to each accumulator, then the lanes in turn
        rows = values.reshape(vectors, width)
        lane_sums = rows[0] + rows[1] if vectors == 2 else np.add.accumulate(rows)[-1]
        total = np.add.accumulate(lane_sums)[-1, ...]  # the last partial sum, as a 0-d view
        if not total:
            total[()] = 0.0
        return total
    if not vectors:
        total = _short_interleaved(values.reshape(-1))
    elif not left:  # whole vectors: their lane sums, then the lanes in turn
        total = _in_turn(_short_interleaved(values.reshape(vectors, width)))
    else:  # the leftover elements first, then the lanes
        row, body = values.reshape(-1), vectors * width
        total = _in_turn(np.concatenate((row[body:], _short_interleaved(row[:body].reshape(vectors, width)))))
    return np.array(float(total) + 0.0, values.dtype)


_partial_sums = np.add.accumulate  # looked up once: x.sum() of a small tensor calls it every time


def two_vector_sum(row: np.ndarray) -> np.ndarray:
    """short_row_sum of a 1-D C-contiguous float32 or float64 row of exactly two vectors (a 4x4
    float32 tensor's storage): the vectors added lane by lane, then the lanes in turn, with no
    reshape (the same additions as short_row_sum's, as a 0-d view of the partial sums)."""
    width = row.size >> 1
    total = _partial_sums(row[:width] + row[width:])[-1, ...]
    if not total:  # a zero: +0. as ATen's accumulators, starting at +0., end (see short_row_sum)
        total[()] = 0.0
    return total


# Per dtype that two_vector_sum takes, the length of two vectors
TWO_VECTORS = {np.dtype(t): 2 * lanes(np.dtype(t).itemsize) for t in (np.float32, np.float64)}


def is_short(n: int, itemsize: int) -> bool:
    """Whether a contiguous row of n elements sums without the cascade's chunks (fewer than 64
    vectors), which short_row_sum does in a few vector operations."""
    return n < 64 * lanes(itemsize)


# Per dtype that short_row_sum takes, the length from which a row is no longer short (is_short)
SHORT_LENGTH = {np.dtype(t): 64 * lanes(np.dtype(t).itemsize) for t in (np.float32, np.float64)}


def row_sums(rows: np.ndarray, contiguous: bool = True) -> np.ndarray:
    """Each row of `rows` (batch, n), already in the accumulation dtype, summed as ATen sums it."""
    n = rows.shape[1]
    width = lanes(rows.itemsize)
    if contiguous and rows.shape[0] == 1 and is_short(n, rows.itemsize):
        return short_row_sum(rows[0]).reshape(1)
    if not contiguous or n < width:
        return _row_sum(rows)
    vectors = n // width
    lane_sums = _row_sum(rows[:, :vectors * width].reshape(rows.shape[0], vectors, width))
    total = _sequential(rows[:, vectors * width:], 1)
    for lane in range(width):
        total = total + lane_sums[:, lane]
    return total


def outer_sums_in_turn(rows: int, columns: int, itemsize: int) -> bool:
    """Whether outer_sums of (rows, columns) adds each column's rows in turn into one accumulator:
    every column lies in a cascaded group (none in row_sum's tail), and the rows are fewer than
    multi_row_sum's smallest chunk (2**4), so its first accumulator takes them all."""
    group = 4 * lanes(itemsize) if columns >= lanes(itemsize) else 4
    return 1 < rows < 1 << 4 and columns % group == 0


def outer_sums(x: np.ndarray) -> np.ndarray:
    """Each column of a C-contiguous (rows, columns) array, in the accumulation dtype, summed over
    its rows as ATen's cascade_sum sums a reduction over the leading dims of a row-major tensor
    (vectorized_outer_sum, or scalar_outer_sum when the columns are fewer than a vector)."""
    group = 4 * lanes(x.itemsize) if x.shape[1] >= lanes(x.itemsize) else 4
    return _column_sums(x[None], group)[0]


def _column_sums(x: np.ndarray, group: int) -> np.ndarray:
    """Each column of each (rows, columns) block of x (batch, rows, columns) summed over its rows as
    vectorized_outer_sum and scalar_outer_sum do: the first columns `group` at a time (four vectors,
    or four columns) by multi_row_sum's cascade, every other column by row_sum's four interleaved
    accumulators (a vector's lanes are columns of their own either way)."""
    batch, rows, columns = x.shape
    cascaded = columns // group * group
    if cascaded == columns:
        return _multi_row_sum(x)
    tail = _row_sum(x[:, :, cascaded:].transpose(0, 2, 1).reshape(batch * (columns - cascaded), rows))
    tail = tail.reshape(batch, columns - cascaded)
    return np.concatenate((_multi_row_sum(x[:, :, :cascaded]), tail), axis=1) if cascaded else tail


def iteration_dims(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """The (sizes, strides) of a full reduction's input as TensorIterator lays out its loop: the dims
    ordered by reorder_dimensions (geometry.iterator_order: the output's strides are all 0 and
    decide nothing), then coalesce_dimensions' merges, size-1 dims and neighbours where one steps
    exactly over the other (two broadcast dims too)."""
    sizes: list[int] = []
    steps: list[int] = []
    for d in geometry.iterator_order(shape, (strides,)):
        n, step = shape[d], strides[d]
        if sizes and (n == 1 or sizes[-1] == 1 or sizes[-1] * steps[-1] == step):
            if sizes[-1] == 1:
                steps[-1] = step
            sizes[-1] *= n
        else:
            sizes.append(n)
            steps.append(step)
    return sizes, steps


def strided_total(values: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...],
                  acc: np.dtype) -> np.ndarray | None:
    """The sum of every element of a non-dense tensor (values: its numpy view) as ATen's cascade_sum
    adds it on one thread. TensorIterator's loop (iteration_dims) runs its first two dims as one 2-D
    call per index of the others (the third fastest), and every call adds its partial sums in turn
    to an output starting at 0: one per row of the first dim (vectorized_inner_sum where that dim is
    contiguous and at least a vector long, scalar_inner_sum where it steps less than the second),
    else one per column of the second (vectorized_outer_sum where that one is contiguous and at least
    a vector long, else scalar_outer_sum). A broadcast dim (stride 0) is a dim like any other there.
    A float16/bfloat16 input whose loop has more than one row is summed as ATen's sum_out does it
    (should_use_acc_buffer): a dense float32 copy in the input's dim order, as one row; one of a
    single row, loaded as float32; None where a broadcast dim leaves it to numpy."""
    sizes, steps = iteration_dims(shape, strides)
    if not sizes:
        return None
    if values.dtype != acc:
        if len(sizes) > 1:
            copy = values.astype(acc, order="K")
            return row_sums(copy.ravel(order="K").reshape(1, -1))[0] + acc.type(0)
        if steps[0] == 0:
            return None
        row = np.lib.stride_tricks.as_strided(values, shape=(1, sizes[0]), strides=(0, steps[0] * values.itemsize),
                                              writeable=False).astype(acc)
        return row_sums(row, contiguous=steps[0] == 1 and sizes[0] >= lanes(values.itemsize))[0] + acc.type(0)
    size0, step0 = sizes[0], steps[0]
    size1, step1 = (sizes[1], steps[1]) if len(sizes) > 1 else (1, 0)
    calls = np.lib.stride_tricks.as_strided(
        values, shape=(*reversed(sizes[2:]), size1, size0),
        strides=tuple(s * values.itemsize for s in (*reversed(steps[2:]), step1, step0)),
        writeable=False).reshape(-1, size1, size0)
    width = lanes(values.itemsize)
    if step0 == 1 and size0 >= width:  # vectorized_inner_sum
        partial = row_sums(calls.reshape(-1, size0))
    elif step1 == 1 and size1 >= width:  # vectorized_outer_sum
        partial = _column_sums(calls.transpose(0, 2, 1), 4 * width)
    elif step0 < step1:  # scalar_inner_sum
        partial = _row_sum(calls.reshape(-1, size0))
    else:  # scalar_outer_sum
        partial = _column_sums(calls.transpose(0, 2, 1), 4)
    return _in_turn(np.concatenate((np.zeros(1, acc), partial.ravel())))
