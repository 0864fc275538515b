"""A node's saved dims and indices read as torch shows them: `grad_fn._saved_index` of `x[:, -2]` is
2**64 - 2 in torch 2.13 (its int64 fields come back as unsigned), while Scalar fields (alpha, exponent,
clamp's bounds) keep their sign. The graph pane and users' own prints read these attributes."""

import pytest

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn.functional  # noqa: E402

SAVED = {
    "select dim and index": lambda t, x: (x.select(-1, 0).grad_fn._saved_dim, x[:, -2].grad_fn._saved_index),
    "slice start and end": lambda t, x: (x[:, -3:-1].grad_fn._saved_start, x[:, -3:-1].grad_fn._saved_end),
    "narrow wraps its start itself": lambda t, x: x.narrow(-1, -2, 1).grad_fn._saved_start,
    "unsqueeze and squeeze": lambda t, x: (x.unsqueeze(-1).grad_fn._saved_dim,
                                           x.unsqueeze(0).squeeze(-3).grad_fn._saved_dim),
    "transpose, permute, flip, roll": lambda t, x: (x.transpose(-1, 0).grad_fn._saved_dim0,
                                                    x.permute(-1, 0).grad_fn._saved_dims,
                                                    x.flip(-1).grad_fn._saved_dims, x.roll(-1, 0).grad_fn._saved_shifts),
    "unfold, diagonal, tril": lambda t, x: (x.unfold(-1, 2, 1).grad_fn._saved_dimension,
                                            t.ones(3, 3, requires_grad=True).diagonal(-1).grad_fn._saved_offset,
                                            x.tril(-1).grad_fn._saved_diagonal),
    "split, chunk, unbind, cat, stack": lambda t, x: (x.split(2, -1)[0].grad_fn._saved_dim,
                                                     x.chunk(2, -1)[0].grad_fn._saved_dim,
                                                     x.unbind(-1)[0].grad_fn._saved_dim,
                                                     t.cat([x, x], -1).grad_fn._saved_dim,
                                                     t.stack([x, x], -1).grad_fn._saved_dim),
    "gather and index_select": lambda t, x: (x.gather(-1, t.zeros(3, 1, dtype=t.long)).grad_fn._saved_dim,
                                             x.index_select(-1, t.tensor([0])).grad_fn._saved_dim),
    "reductions": lambda t, x: (x.sum(-1).grad_fn._saved_dim, x.softmax(-1).grad_fn._saved_dim,
                                x.max(-1)[0].grad_fn._saved_dim),
    "a negative pad": lambda t, x: t.nn.functional.pad(x, (-1, 1)).grad_fn._saved_pad,
    "Scalar fields keep their sign": lambda t, x: (x.add(x, alpha=-2).grad_fn._saved_alpha,
                                                   x.pow(-2).grad_fn._saved_exponent, x.clamp(-1, 1).grad_fn._saved_min),
}


@pytest.mark.parametrize("read", list(SAVED.values()), ids=list(SAVED))
def test_saved_fields_read_as_in_torch(read):
    expected = read(torch, torch.ones(3, 4, requires_grad=True))
    got = read(engine, engine.ones(3, 4, requires_grad=True))
    assert repr(got) == repr(expected)


def test_backward_still_uses_the_signed_index():
    for lib in (torch, engine):
        x = lib.arange(12.).reshape(3, 4).requires_grad_()
        x[:, -2].sum().backward()
        assert x.grad[:, 2].tolist() == [1.0, 1.0, 1.0]
