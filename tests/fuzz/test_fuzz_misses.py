"""The differential fuzzer's misses at seeds 3000..45999, each now agreeing with torch 2.13 both ways
(the engine as torch, and `tensorscope replay`'s trace) but those left to torch's MKL and to memory
torch leaves undefined (strict xfails saying why), with the smaller programs that show what
each was about: a copy whose source overlaps what it writes, index_fill_ and index_put_ on a tensor
emptied by set_(), a retain_grad'ed tensor whose history an in-place view op changed, and the
node a version error names for an in-place op on a view."""

from __future__ import annotations

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

MISSES = {6182: "setitem from an overlapping source", 9799: "setitem from an overlapping source",
          9031: "index_fill_ after set_()", 9501: "setitem into a tensor emptied by set_()",
          8008: "retain_grad, then transpose_ of a view", 7776: "version error after leaky_relu_ on a view",
          16581: "an in-place op reading a stale view of split, with a dtype it cannot cast",
          10668: "clamp_'s backward mask made in place, keeping a size-1 dim's stride",
          18529: "copy_ from a stale view of chunk, which also overlaps what it writes",
          18547: "an empty list index on a (0, 2, 1) slice",
          25732: "the sum of an expanded tensor, in cascade_sum's order",
          27229: "stack of an unfold window, channels-last", 39068: "stack of an unfold window, channels-last",
          30779: "sum into an expanded gradient as out=",
          31855: "backward into a leaf .data = made 0-dim, a mean's dense gradient",
          41114: "setitem of rows from a strided view of the rows written first",
          41443: "backward into a leaf squeeze_d under no_grad"}


# float32 exp in torch is MKL's vsExp (torch.backends.mkl): within an ulp, not always the nearest
# float, and not reproducible from numpy; e**15 is 3269017.5 there, 3269017.25 here (the nearest), and
# sin of either (their ulp is 0.25 there) differs in the first digit. Nothing to fix short of MKL.
LIBM = {8148: "exp(15.) in float32 is MKL's 3269017.5, the engine's is the nearest float, 3269017.25; "
              "a following sin turns that last bit into 0.96172 against 0.99962",
        43444: "exp then sin of float32 arange(27.): e**24 is an ulp off in MKL, its sin 0.9617 against 0.9996"}

# float32 sin and cos (and tan, and sqrt of either float dtype) run MKL's VML (vmsSin, vmsCos, vmdSqrt,
# VML_HA) on every layout, a 0-dim tensor too: within an ulp, but not the nearest float for about 5% of
# float32 sin/cos inputs and 0.9% of float64 sqrt ones (measured over random inputs; the C library's
# cosf agrees with neither), and MKL's algorithm is its own. The engine rounds float64's nearest.
MKL = {25874: "cos(-1.) in float32 is MKL's 0.54030234, the nearest float is 0.5403023",
       34351: "sin(-2.4) in float32 is MKL's -0.6754631, the nearest float is -0.67546314",
       39425: "sin(2.4) in float32 is MKL's 0.6754631, the nearest float is 0.67546314",
       39833: "sqrt(2.) in float64 is MKL's 0x1.6a09e667f3bccp+0, one ulp under the nearest; squared and "
              "cast to int64 it gives 1 against 2",
       41970: "the same float64 sqrt(2.), squared and cast to int64 by sum's out="}


# torch's resize sets the new sizes before it finds the storage cannot grow (it is held by numpy):
# the error is the same, but torch's tensor is left reading past its memory, whose values are
# whatever lies there. The engine keeps the tensor as it was. And an out= that grows over memory an
# input reads was checked for overlap before the resize: its kernel's order decides the values.
UNDEFINED = {13370: "after the failed resize of out=, torch's d has the new shape over its old 16 bytes",
             29720: "torch.mul(d, c, out=b): b, a 0-dim view, grows over the element c reads; torch checked the "
                    "overlap before the resize, and its kernel then reads c afresh for each element it writes "
                    "(fewer than two vectors), so b[1] is d[1] times the b[0] it just wrote; the generator leaves "
                    "such operands out from seed 46000 on"}


def _seeds() -> list:
    return [pytest.param(seed, id=f"{seed} {why}") for seed, why in MISSES.items()] + \
        [pytest.param(seed, id=f"{seed} float32 exp then sin near 3e6",
                      marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=why))
         for seed, why in LIBM.items()] + \
        [pytest.param(seed, id=f"{seed} MKL's sin, cos and sqrt",
                      marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=why))
         for seed, why in MKL.items()] + \
        [pytest.param(seed, id=f"{seed} out= left undefined by torch",
                      marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=why))
         for seed, why in UNDEFINED.items()]


@pytest.mark.parametrize("seed", _seeds())
def test_the_former_miss_agrees_both_ways(seed: int) -> None:
    from tests.fuzz.generate import generate
    from tests.fuzz.run import check

    program = generate(seed, torch)
    mismatch = check(program)
    assert mismatch is None, (
        f"{program.source()}\nstep {mismatch.step} [{mismatch.path}] {mismatch.field}:\n"
        f"  torch : {mismatch.expected}\n  engine: {mismatch.got}")



W = "w = torch.ones(2, 3, requires_grad=True)\nb = w * 2\n"
RETAINED = {
    "t_ of a retained tensor, then its backward: .grad in the old layout":
        "x = w * 2\nx.retain_grad()\nx.t_()\nx.sum().backward()",
    "t_ of a retained tensor, then an in-place op": "x = w * 2\nx.retain_grad()\nx.t_()\nx.mul_(2)",
    "t_ of a retained view, then its backward": W + "g = b.t()\ng.retain_grad()\ng.t_()\ng.sum().backward()",
    "unsqueeze_ of a retained view, then backward":
        W + "g = b[0]\ng.retain_grad()\ng.unsqueeze_(0)\n(g * 1).sum().backward()",
    "t_ of a retained view, then its base written": W + "g = b.t()\ng.retain_grad()\ng.t_()\nb.mul_(1)\nn = g.grad_fn",
    "and its grad_fn read twice":
        W + "g = b.t()\ng.retain_grad()\ng.t_()\nb.mul_(1)\ntry:\n    g.grad_fn\nexcept RuntimeError:\n"
            "    pass\nn = type(g.grad_fn).__name__",
    "t_ of a retained view, then written itself": W + "g = b.t()\ng.retain_grad()\ng.t_()\ng.mul_(2)",
    "squeeze_, as_strided_ and swapdims_ alike":
        W + "g = b[:1]\ng.retain_grad()\ng.squeeze_(0)\nb.mul_(1)\nn = g.grad_fn",
    "retain_grad after the t_": W + "g = b.t()\ng.t_()\ng.retain_grad()\nb.mul_(1)\nn = type(g.grad_fn).__name__",
    "no t_: retain_grad moves to the new history":
        W + "g = b.t()\ng.retain_grad()\nb.mul_(1)\ng.sum().backward()",
}


@pytest.mark.parametrize("code", RETAINED.values(), ids=RETAINED.keys())
def test_retain_grad_stays_on_the_node_an_in_place_view_op_replaced(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


LEAKY = "w = torch.ones(2, 3, requires_grad=True)\nb = w * 1\na = b[0]\nF.leaky_relu_(a, -0.5)\n"
NAMED = {
    "the base written, the view's history rebuilt": LEAKY + "b.add_(1)\na.sum().backward()",
    "the view written itself": LEAKY + "a.add_(1)\na.sum().backward()",
    "another view written": LEAKY + "b[1].add_(1)\na.sum().backward()",
    "the base's backward, the view untouched": LEAKY + "b.add_(1)\nb.sum().backward()",
    "sigmoid_ on a view": "w = torch.ones(2, 3, requires_grad=True)\nb = w * 1\na = b[0]\na.sigmoid_()\n"
                          "b.add_(1)\na.sum().backward()",
}


@pytest.mark.parametrize("code", NAMED.values(), ids=NAMED.keys())
def test_a_version_error_names_the_views_node_while_it_lives(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected


STALE_SPLIT = ("b = torch.tensor([1.2, -1.5, 0.4], requires_grad=True)\nc = b.split(1, -1)[-1]\n"
               "b.requires_grad_(False)\nb[0:] = -1\n")


@pytest.mark.parametrize("statement", ["torch.arange(3).sub_(c)", "torch.arange(3).mul_(c)",
                                       "torch.arange(3).clamp_(c, c)", "torch.zeros(3).sub_(c)",
                                       "b[1:2].copy_(c)", "torch.zeros(3).copy_(c)"])
def test_a_stale_view_of_split_fails_before_the_dtype_check_of_an_inplace_op(statement: str) -> None:
    expected, got = torch_and_engine(STALE_SPLIT + statement)
    assert got == expected


LAYOUTS = {
    "where's condition is one of TensorIterator's inputs":
        "y = torch.full((2, 1), 2.0).swapaxes(0, 1).clone()\nm = y >= -1\n"
        "w = torch.where(m, torch.ones(()).expand(1, 2), torch.scalar_tensor(0.))",
    "clamp_'s backward through a transposed clone of a (2, 1) leaf":
        "a = torch.full((2, 1,), 2.0, requires_grad=True)\nc = a.swapaxes(0, 1).clone()\nc.clamp_(-1, 1)\n"
        "g, = torch.autograd.grad(c.sum(), [a])",
}


@pytest.mark.parametrize("code", list(LAYOUTS.values()), ids=list(LAYOUTS))
def test_size_one_dims_keep_torch_s_strides(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected
