"""The fuzzer's minimal repros of the mismatches the backward engine and the derivative table once
had (gradients as the formula's own strided tensors, backward warnings, a leaf detached in place,
backward twice, validate_outputs after a shape change, `.data =` of another shape or dtype then
backward, Tensor hooks, grad of a no_grad view, setitem's check order, retain_grad on a stale view,
neg_ on a strided view) and any still open (tests/fuzz/known.py, strict xfails naming the cause):
each is the program the shrinker reduced a failing one to, compared in full with torch 2.13 (the
ported-test harness)."""

from __future__ import annotations

import pytest

from tests.upstream.harness import cases, compare

pytest.importorskip("torch")

XFAIL: dict[str, str] = {}  # case -> its class in tests/fuzz/known.py, while one is open

CASES = cases(
    ("hook on a clone of an unfold", """
        f = torch.ones(4, requires_grad=True)
        d = f.unfold(-1, 1, 1)
        h = d.clone()
        r = _err(lambda: h.register_hook(lambda g: g * 0.5))
        """),
    ("autograd.grad of an expanded sum", """
        b = torch.full((1, 3, 1,), 2.0, requires_grad=True)
        c, = torch.autograd.grad(b.sum(), [b], retain_graph=True, allow_unused=True)
        """),
    ("autograd.grad through unbind and reshape", """
        b = (torch.arange(1.) - 0).reshape(1).requires_grad_()
        c = b.T
        d = c.unbind(0)[0]
        e = d.reshape(1)
        d, = torch.autograd.grad(e.sum(), [b], retain_graph=True, allow_unused=True)
        """),
    ("autograd.grad through gather", """
        a = torch.ones(2, requires_grad=True)
        e = a.T
        d = e.gather(0, torch.zeros(2, dtype=torch.long))
        c, = torch.autograd.grad(d.sum(), [a], retain_graph=True, allow_unused=True)
        """),
    ("backward through div_ by zero", """
        a = torch.arange(2.).reshape(2, 1)
        b = (torch.arange(1.) - 0).reshape(1).requires_grad_()
        a.div_(b)
        a.sum().backward(retain_graph=True)
        """),
    ("autograd.grad through div_ of a cat", """
        b = (torch.arange(1.) - 0).reshape(1).requires_grad_()
        c = b.T
        g = torch.cat([b, b * 2], -1)
        e = c[...]
        g.div_(e)
        a, = torch.autograd.grad(g.sum(), [b], retain_graph=True, allow_unused=True)
        """),
    ("backward into a leaf detached in place", """
        f = torch.ones(1, requires_grad=True)
        e = f.T
        f.detach_()
        e.backward()
        """),
    ("backward with a grad into a leaf detached in place", """
        b = torch.full((3, 1,), 2.0, requires_grad=True)
        h = b.permute(0, 1)
        b.detach_()
        h.backward(torch.ones_like(h), retain_graph=True)
        """),
    ("backward after squeeze_ of the leaf under no_grad", """
        a = torch.ones(1, 3, requires_grad=True)
        c = a.clone()
        with torch.no_grad():
            a.squeeze_()
        r = _err(lambda: a.sum().backward())
        """),
    ("backward after .data= changed the leaf's shape", """
        a = torch.ones(4, 4, requires_grad=True)
        c = a.as_strided((1, 1), (1, 1), 1)
        a.data = c
        r = _err(lambda: c.backward())
        """),
    ("backward of a view after .data= on its base", """
        h = (torch.arange(3.) - 1).reshape(3, 1, 1).requires_grad_()
        with torch.no_grad():
            c = h.as_strided((1, 1), (1, 1), 0)
        d = h.reshape(3, 1)
        h.data = c
        r = _err(lambda: d.backward(torch.ones_like(d), retain_graph=True))
        """),
    ("autograd.grad after .data= changed the output's shape", """
        a = (torch.arange(2.) - 1).reshape(2).requires_grad_()
        c = a * 2
        d = c.sum()
        f = d.flatten()
        f.data = c
        r = _err(lambda: torch.autograd.grad(f.sum(), [a], retain_graph=True, allow_unused=True))
        """),
    ("backward of a diagonal given .data", """
        b = torch.full((2, 2,), 2.0, requires_grad=True)
        f = b.diagonal(0, 1, 0)
        f.data = b
        r = _err(lambda: f.sum().backward())
        """),
    ("backward twice through a mul that saved a scalar", """
        a = torch.ones(1, 2, 4, requires_grad=True)
        b = a * 2
        b.sum().backward()
        r = _err(lambda: b.backward(torch.ones_like(b)))
        """),
    ("autograd.grad of a view made under no_grad", """
        a = torch.tensor([1.0, 2.8, -1.4], requires_grad=True)
        with torch.no_grad():
            c = a.unsqueeze(0).expand(1, 3)
        d, = torch.autograd.grad(a.sum(), [c], retain_graph=True, allow_unused=True)
        """),
    ("backward after .data= gave the leaf another shape", """
        a = torch.ones(1, 4, 3, requires_grad=True)
        b = torch.linspace(-1.5, 2.0, 3, dtype=torch.float64).reshape(1, 3, 1)
        f = a.sum(1)
        a.data = b
        r = _err(lambda: a.sum().backward())
        """),
    ("backward of a leaf given a 0-dim .data", """
        b = (torch.arange(3.) - 1).reshape(3).requires_grad_()
        d = b[0]
        b.data = d
        r = _err(lambda: b.backward(retain_graph=True))
        """),
    (".data = of another shape or dtype, then backward through old and new graphs", """
        a = torch.ones(2, 3, requires_grad=True)
        f = a * 2
        a.data = torch.ones(3)
        r1 = _err(lambda: f.sum().backward(retain_graph=True))
        r2 = _err(lambda: a.sum().backward())
        b = torch.ones(1, 3, requires_grad=True)
        g = b * 2
        b.data = torch.ones(2, 3)
        r3 = _err(lambda: b.sum().backward())
        r4 = _err(lambda: g.sum().backward())
        c = torch.ones(3, requires_grad=True)
        h = c * 2
        c.data = torch.ones(3, dtype=torch.float64)
        h.sum().backward()
        r5 = _err(lambda: (c * 2).sum().backward())
        d = torch.ones(3, requires_grad=True)
        k = d.clone()
        k.data = torch.ones(2)
        r6 = _err(lambda: k.sum().backward())
        r7 = _err(lambda: torch.autograd.grad(k.sum(), d))
        """),
    ("setitem with an index tensor on a leaf: autograd refuses before the index is checked", """
        a = torch.ones(1, 1, requires_grad=True)
        c = a.diagonal(1, 0, 1)
        a.data = c
        r1 = _err(lambda: a.__setitem__([0, -1], 3.0))
        b = torch.zeros(3, requires_grad=True)
        r2 = _err(lambda: b.__setitem__([5], 1.0))
        r3 = _err(lambda: b.__setitem__([True], 1.0))
        r4 = _err(lambda: b.__setitem__(5, 1.0))
        """),
    ("retain_grad on a multi-output view whose base changed in place", """
        a = torch.zeros(1, 1, 3)
        f = (torch.arange(1.) - 0).reshape(1).requires_grad_()
        b = a.unbind(-3)[0]
        a.div_(f)
        b.retain_grad()
        r = b.retains_grad
        """),
    ("neg_ on a row of an unbind", """
        a = torch.arange(64.).reshape(4, 4, 4)
        d = a.unbind(-1)[3]
        d.neg_()
        """),
    ("cat and stack into out= one of their empty inputs", """
        b = torch.arange(8.).reshape(2, 4).clone()
        b.set_()
        c = b.clone()
        r1 = _err(lambda: torch.cat([c, c], out=c))
        d = torch.empty(0, 2)
        r2 = _err(lambda: torch.cat([d, d], out=d))
        r3 = _err(lambda: torch.stack([d, d], out=d))
        """),
    ("pow(0.5)'s gradient at -0. (rsqrt, as torch's kernel takes for -0.5)", """
        d = torch.tensor([-1.6, -0.0, float("-inf"), 4.0], requires_grad=True)
        f = d.pow(0.5)
        g, = torch.autograd.grad(f.sum(), [d], retain_graph=True, allow_unused=True)
        h = d.detach().pow(-0.5)
        k = d.detach().clone().pow_(-0.5)
        c = torch.full((1, 2, 3,), 2.0, requires_grad=True)
        m = c.mean()
        m.pow_(0.5)
        b, = torch.autograd.grad(m.sum(), [c], retain_graph=True, allow_unused=True)
        z = torch.tensor(-0.0).pow(-0.5)
        """),
    ("amax and amin over an empty dim name it as written", """
        d = torch.arange(2.).reshape(2, 1)
        d.set_()
        r1 = _err(lambda: d.movedim(-1, -1).amax(-1))
        e = torch.empty(2, 0)
        r2 = _err(lambda: e.amin((0, -1)))
        r3 = _err(lambda: e.max(-1))
        r4 = _err(lambda: e.argmax(-1))
        """),
    ("overflow to inf in square, pow, prod, cumsum, norm and var warns of nothing", """
        g = torch.arange(64.).reshape(4, 4, 4)
        torch.exp(g, out=g)
        h = g.permute(2, 1, 0).square()
        k = g.pow(2)
        e = torch.arange(24.).reshape(4, 3, 2).clone()
        e.exp_()
        p = e.prod()
        c = e.flatten().cumsum(0)
        q = e.flatten().cumprod(0)
        n = torch.tensor([3e38, 3e38]).norm()
        v = torch.tensor([3e38, -3e38]).var()
        """),
    ("a view made a leaf, then its base took a history: the leaf moved into the graph interior", """
        a = torch.arange(1.).reshape(1, 1).clone()
        c = a.transpose(1, 0)
        c.requires_grad_()
        a[1:] = c.sum()
        r1 = _err(lambda: a.backward(retain_graph=True))
        x = torch.zeros(3)
        v = x[:2]
        v.requires_grad_()
        y = v * 2
        x.mul_(torch.ones(3, requires_grad=True))
        r2 = _err(lambda: y.sum().backward())
        """),
    ("leaky_relu_ with a negative slope: its backward refuses, on a view too", """
        a = torch.ones(4, 2, requires_grad=True)
        x = a * 2
        F.leaky_relu_(x, -0.5)
        r1 = _err(lambda: x.sum().backward(retain_graph=True))
        e = a * 2
        b = e.transpose(0, 1)
        F.leaky_relu_(b, -0.5)
        r2 = _err(lambda: torch.autograd.grad(e.sum(), [a], retain_graph=True, allow_unused=True))
        r3 = _err(lambda: torch.autograd.grad(b.sum(), [a], retain_graph=True, allow_unused=True))
        """),
    ("the .grad of a stale view and of a non-leaf given one: no error, no warning", """
        a = torch.tensor([2.9, -1.1, 1.1, -0.2, -1.2], requires_grad=True)
        c = a.chunk(2, 0)[0]
        d = a.detach()
        f = a / 3.0
        d *= f
        g1 = c.grad
        y = a * 2
        y.grad = torch.ones(5)
        g2 = y.grad
        z = a * 3
        g3 = z.grad
        x = torch.zeros(3)
        v = x[:2]
        x.mul_(torch.ones(3, requires_grad=True))
        g4 = v.grad
        """),
    ("setitem through a slice torch does not skip (a start or stop as written), even of nothing", """
        b = torch.full((4,), 2.0, requires_grad=True)
        c = b / -1
        c.set_()
        c[1:] = 0.5
        res = []
        for n in (4, 0):
            for index in (slice(None), slice(0, 10), slice(-10, None), slice(-4, None), slice(1, None),
                          slice(0, -1), slice(None, -1), slice(0, 0)):
                d = torch.full((n,), 2.0, requires_grad=True) * 1
                d[index] = 0.5
                res.append(d.grad_fn.name())
        """),
    ("backward into a leaf whose .data = made it 0-dim: an expanded gradient is copied and does not fit, a dense one is adopted", """
        b = torch.tensor([0.2, -2.0, -0.3, 1.2, -0.5, -0.7], requires_grad=True)
        c = b.sum()
        d = c[...]
        b.data = d
        r = _err(lambda: c.backward(retain_graph=True))
        f = torch.ones(3, requires_grad=True)
        g = f.unbind(-1)[1]
        h = g.clone()
        f.data = h
        h.backward(torch.ones_like(h))
        """),
    ("backward into a leaf .data = made 0-dim: past its rank torch reads strides 1, then 0s", """
        a = (torch.arange(12.) - 6).reshape(4, 1, 3).requires_grad_()
        c = a.mean()
        a.data = c.data
        r = _err(lambda: c.backward())
        b = torch.ones(1, 3, requires_grad=True)
        d = (b * 2).sum()
        b.data = torch.tensor(5.)
        r2 = _err(lambda: d.backward())
        e = torch.ones(2, 3, requires_grad=True)
        f = e.view(2, 3)
        e.data = torch.ones(4).sum()
        f.backward(torch.arange(2.).unsqueeze(1).expand(2, 3))
        g = torch.ones(3, 2, requires_grad=True)
        h = g.view(3, 2)
        g.data = torch.ones(3)
        h.backward(torch.arange(3.).unsqueeze(1).expand(3, 2))
        """),
    ("backward into a leaf squeeze_d under no_grad: past its rank torch reads the strides it had there", """
        a = torch.ones(1, 3, requires_grad=True)
        c = torch.where(a > 0, a, a)
        with torch.no_grad():
            a.squeeze_()
        c.sum().backward()
        b = torch.ones(2, 1, 3, requires_grad=True)
        d = b * 2
        with torch.no_grad():
            b.squeeze_(1)
        d.sum().backward()
        e = torch.ones(2, 3, requires_grad=True)
        f = e * 2
        with torch.no_grad():
            e.t_()
            e.squeeze_()
        r = _err(lambda: f.sum().backward())
        """),
    ("autograd.grad after backward through cat", """
        b = torch.full((1, 3,), 2.0, requires_grad=True)
        d = torch.cat([b, b * 2], -1)
        d.sum().backward()
        r = _err(lambda: torch.autograd.grad(d.sum(), [b], retain_graph=True, allow_unused=True))
        """),
    xfail=XFAIL,
)


@pytest.mark.parametrize(("code", "flag"), CASES)
def test_same_as_torch(code: str, flag: str | None) -> None:
    compare(code, flag)
