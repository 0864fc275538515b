"""Property tests: random chains of view ops and in-place writes on a base tensor.

A base `arange(n).reshape(shape).clone()` gets a random tree of views (transpose, permute, t,
slices with steps, select, narrow, unsqueeze, squeeze, expand, diagonal, view where legal,
unfold) and random in-place writes through any of them (add_, mul_, fill_, zero_, copy_,
setitem). A numpy model follows along: every view is an array of the storage positions its
elements live at, and the storage is a flat array, so a write through a view is
`flat[positions] op= value`. Invariants checked after every step:

- every view has the model's shape, and element i lives at storage_offset + sum(i * stride) ==
  the model's position for i (strides and offsets are right without needing torch);
- values of the base and of every view equal the model's;
- every view shares the base's storage (untyped_storage().data_ptr(), data_ptr() offset) and
  its version counter: after a write through any of them, each _version equals the base's, and
  each write bumps it by exactly one;
- `_base` of every view is the base, and `_is_view()` holds;
- with real torch installed, the same chain replayed in torch gives the same shape, stride,
  storage_offset and values for every view.

Writes only go through views whose elements do not overlap (expand / unfold can make several
elements share one memory location, where torch's result depends on the write order).
"""

import importlib.util

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine

HAVE_TORCH = importlib.util.find_spec("torch") is not None


# ----------------------------------------------------------------------------------------------
# drawing ops
# ----------------------------------------------------------------------------------------------


def view_shapes(numel, max_ndim=3):
    """Every shape of 1..max_ndim dims with this many elements."""
    out = [(numel,)]
    if max_ndim > 1:
        for a in range(1, numel + 1):
            if numel % a == 0:
                out += [(a,) + s for s in view_shapes(numel // a, max_ndim - 1)]
    return sorted(set(out))


def is_dense(pos):
    """Storage positions consecutive in C order: what torch calls contiguous (numel > 0)."""
    flat = pos.ravel()
    return flat.size > 0 and bool(np.array_equal(flat, flat[0] + np.arange(flat.size)))


def draw_view_op(data, pos):
    shape = pos.shape
    nd = len(shape)
    kinds = ["unsqueeze", "expand"]
    if nd >= 1:
        kinds += ["transpose", "permute", "slice", "select", "narrow", "squeeze", "unfold"]
        if any(s >= 2 for s in shape):
            kinds.append("view_split")
    if nd <= 2:
        kinds.append("t")
    if nd >= 2:
        kinds.append("diagonal")
    if is_dense(pos):
        kinds.append("view")
    kind = data.draw(st.sampled_from(kinds), label="view op")
    dim = st.integers(-nd, nd - 1) if nd else None
    if kind == "transpose":
        return (kind, data.draw(dim), data.draw(dim))
    if kind == "permute":
        return (kind, tuple(data.draw(st.permutations(range(nd)))))
    if kind == "t":
        return (kind,)
    if kind == "slice":
        d = data.draw(dim)
        n = shape[d]
        start = data.draw(st.none() | st.integers(-n - 1, n + 1))
        stop = data.draw(st.none() | st.integers(-n - 1, n + 1))
        step = data.draw(st.none() | st.integers(1, 3))
        return (kind, d, start, stop, step)
    if kind == "select":
        d = data.draw(dim)
        if shape[d] == 0:
            return None
        return (kind, d, data.draw(st.integers(-shape[d], shape[d] - 1)))
    if kind == "narrow":
        d = data.draw(dim)
        if shape[d] == 0:
            return None
        start = data.draw(st.integers(-shape[d], shape[d] - 1))
        length = data.draw(st.integers(0, shape[d] - (start % shape[d])))
        return (kind, d, start, length)
    if kind == "unsqueeze":
        return (kind, data.draw(st.integers(-nd - 1, nd)))
    if kind == "squeeze":
        return (kind, data.draw(st.none() | dim))
    if kind == "expand":
        sizes = [data.draw(st.integers(1, 3)) if s == 1 else data.draw(st.sampled_from([-1, s]))
                 for s in shape]
        lead = data.draw(st.lists(st.integers(1, 2), max_size=1 if nd < 4 else 0))
        return (kind, tuple(lead + sizes))
    if kind == "diagonal":
        d1 = data.draw(dim)
        d2 = data.draw(dim.filter(lambda d: d % nd != d1 % nd))
        return (kind, data.draw(st.integers(-2, 2)), d1, d2)
    if kind == "view":
        new = data.draw(st.sampled_from(view_shapes(pos.size)))
        if data.draw(st.booleans()):
            j = data.draw(st.integers(0, len(new) - 1))
            new = new[:j] + (-1,) + new[j + 1:]
        return (kind, new)
    if kind == "view_split":
        d = data.draw(st.sampled_from([i for i, s in enumerate(shape) if s >= 2]))
        a = data.draw(st.sampled_from([f for f in range(1, shape[d] + 1) if shape[d] % f == 0]))
        return ("view", shape[:d] + (a, shape[d] // a) + shape[d + 1:])
    if kind == "unfold":
        d = data.draw(dim)
        if shape[d] == 0:
            return None
        return (kind, d, data.draw(st.integers(1, shape[d])), data.draw(st.integers(1, 3)))
    raise AssertionError(kind)


def apply_view(t, op):
    """Apply a view op to a tensor: the same code for the engine and for torch."""
    kind, args = op[0], op[1:]
    if kind == "slice":
        d, start, stop, step = args
        d = d % t.dim()
        return t[(slice(None),) * d + (slice(start, stop, step),)]
    if kind == "t":
        return t.t()
    if kind == "squeeze":
        return t.squeeze() if args[0] is None else t.squeeze(args[0])
    if kind == "expand":  # varargs form, or the tuple form (the only one for 0 dims)
        return t.expand(*args[0]) if args[0] else t.expand(args[0])
    if kind == "view":
        return t.view(*args[0])
    return getattr(t, kind)(*args)


def model_view(pos, op):
    """The same op on the array of storage positions."""
    kind, args = op[0], op[1:]
    nd = pos.ndim
    if kind == "transpose":
        return np.swapaxes(pos, args[0], args[1])
    if kind == "permute":
        return pos.transpose(args[0])
    if kind == "t":
        return pos.T
    if kind == "slice":
        d, start, stop, step = args
        return pos[(slice(None),) * (d % nd) + (slice(start, stop, step),)]
    if kind == "select":
        return np.take(pos, args[1], axis=args[0])
    if kind == "narrow":
        d, start, length = args
        start %= pos.shape[d]
        return pos[(slice(None),) * (d % nd) + (slice(start, start + length),)]
    if kind == "unsqueeze":
        return np.expand_dims(pos, args[0])
    if kind == "squeeze":
        if args[0] is None:
            return pos.reshape([s for s in pos.shape if s != 1])
        return np.squeeze(pos, args[0]) if pos.shape[args[0]] == 1 else pos
    if kind == "expand":
        sizes = list(args[0])
        lead = len(sizes) - nd
        shape = [s if s != -1 else pos.shape[i - lead] for i, s in enumerate(sizes)]
        return np.broadcast_to(pos, shape)
    if kind == "diagonal":
        offset, d1, d2 = args
        return np.diagonal(pos, offset, d1 % nd, d2 % nd)
    if kind == "view":
        return pos.reshape(args[0])
    if kind == "unfold":
        d, size, step = args
        d %= nd
        win = np.lib.stride_tricks.sliding_window_view(pos, size, axis=d)
        return win[(slice(None),) * d + (slice(None, None, step),)]
    raise AssertionError(kind)


WRITES = ["add_", "mul_", "fill_", "zero_", "copy_", "setitem ...", "setitem [0]", "setitem [::2]"]


def apply_write(t, write, value, full):
    """Apply an in-place write; `full` builds a tensor of a shape filled with value."""
    if write in ("add_", "mul_", "fill_"):
        return getattr(t, write)(value)
    if write == "zero_":
        return t.zero_()
    if write == "copy_":
        return t.copy_(full(tuple(t.shape), value))
    key = {"setitem ...": Ellipsis, "setitem [0]": 0, "setitem [::2]": slice(None, None, 2)}[write]
    t[key] = value
    return t


def model_write(flat, pos, write, value):
    if write == "add_":
        flat[pos] += value
    elif write == "mul_":
        flat[pos] *= value
    elif write == "zero_":
        flat[pos] = 0
    elif write in ("fill_", "copy_", "setitem ..."):
        flat[pos] = value
    elif write == "setitem [0]":
        flat[pos[0]] = value
    elif write == "setitem [::2]":
        flat[pos[::2]] = value


def writable(pos, write):
    if np.unique(pos).size != pos.size:  # overlapping elements: torch's result is order-dependent
        return False
    return pos.ndim >= 1 and pos.shape[0] >= 1 if write in ("setitem [0]", "setitem [::2]") else True


# ----------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------


def positions(t):
    """Storage position of every element, from the tensor's own shape / stride / offset."""
    pos = np.full(tuple(t.shape), t.storage_offset(), dtype=np.int64)
    for d, (n, s) in enumerate(zip(t.shape, t.stride(), strict=True)):
        shape = [1] * t.dim()
        shape[d] = n
        pos = pos + (np.arange(n) * s).reshape(shape)
    return pos


def check(base, views, flat, base_version):
    assert base._version == base_version
    assert base.tolist() == flat.reshape(tuple(base.shape)).tolist()
    for i, (v, pos, op) in enumerate(views):
        where = f"view #{i} made by {op}"
        assert tuple(v.shape) == pos.shape, where
        if pos.size:
            assert np.array_equal(positions(v), pos), where + f": stride {v.stride()}, offset {v.storage_offset()}"
            assert v.data_ptr() - v.untyped_storage().data_ptr() == v.storage_offset() * v.element_size(), where
        assert v.tolist() == flat[pos].tolist(), where
        assert v._version == base._version, where
        assert v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(), where
        assert v._is_view() and v._base is base, where


def check_same_as_torch(views, tviews):
    for (v, _, op), tv in zip(views, tviews, strict=True):
        got = (tuple(v.shape), tuple(v.stride()), v.storage_offset(), v.tolist())
        assert got == (tuple(tv.shape), tuple(tv.stride()), tv.storage_offset(), tv.tolist()), op


@st.composite
def base_shapes(draw):
    return tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=base_shapes(), data=st.data())
def test_views_and_writes_follow_the_model(shape, data):
    n = int(np.prod(shape))
    base = engine.arange(n, dtype=engine.float32).reshape(shape).clone()
    flat = np.arange(n, dtype=np.float64)
    views = []  # (tensor, positions, op that made it)
    tbase, tviews = None, []
    if HAVE_TORCH:
        import torch

        tbase = torch.arange(n, dtype=torch.float32).reshape(shape).clone()
    version = 0
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        # one of: a new view of the base or of an earlier view, or a write through one of them
        j = data.draw(st.integers(-1, len(views) - 1), label="source (-1 = base)")
        if j < 0:
            src, src_pos, tsrc = base, np.arange(n).reshape(shape), tbase
        else:
            src, src_pos, _ = views[j]
            tsrc = tviews[j] if HAVE_TORCH else None
        if data.draw(st.booleans(), label="write?"):
            write = data.draw(st.sampled_from(WRITES), label="write")
            if not writable(src_pos, write):
                continue
            value = data.draw(st.sampled_from([-2, -1, 2, 3]), label="value")
            r = apply_write(src, write, value, lambda s, v: engine.full(s, float(v)))
            assert r is src
            model_write(flat, src_pos, write, value)
            if HAVE_TORCH:
                apply_write(tsrc, write, value, lambda s, v: torch.full(s, float(v)))
            version += 1
        else:
            op = draw_view_op(data, src_pos)
            if op is None:
                continue
            views.append((apply_view(src, op), model_view(src_pos, op), op))
            if HAVE_TORCH:
                tviews.append(apply_view(tsrc, op))
        check(base, views, flat, version)
    if HAVE_TORCH:
        check_same_as_torch(views, tviews)
        assert base.tolist() == tbase.tolist()

