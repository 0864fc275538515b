"""Activations and losses everyday training code uses, each snippet run in real PyTorch and in the engine:
the same values, dtypes, shapes, strides, versions, grad_fn names, gradients, printing, warnings and
errors (see tests/oracle.py). Their first and second derivatives are in test_derivative_table.py."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

X = "x = torch.tensor([[-3.5, -1.0, -0.25, 0.0], [0.5, 2.0, 3.0, 25.0]], requires_grad=True)\n"
EDGES = "e = torch.tensor([-30., -3., -1e-4, 0., 1e-4, 3., 30.], requires_grad=True)\n"


def _activation(call: str) -> str:
    """A call on x, its gradient, and the same call on a transposed view and on float64 edge values."""
    return (X + EDGES + f"y = {call.format('x')}\ny.backward(torch.ones_like(y))\n"
            f"t = {call.format('x.detach().t()')}\n"
            f"d = {call.format('e.double()')}\nd.sum().backward()\n"
            f"h = {call.format('x.detach().half()')}\n")


SNIPPETS = {
    # ------------------------------------------------------------------ weighted loss modules
    "weighted loss modules keep weight as a buffer and use it": (
        "w = torch.tensor([1.0, 2.0, 0.5])\np = torch.tensor([0.2, 0.7, 0.9], requires_grad=True)\n"
        "t = torch.tensor([0.0, 1.0, 1.0])\nm = torch.nn.BCELoss(weight=w)\nsd = list(m.state_dict())\n"
        "loss = m(p, t)\nloss.backward()\ns = torch.nn.BCELoss(w, reduction='sum')(p, t)\n"
        "c = torch.nn.CrossEntropyLoss(weight=w)\ncb = len(list(c.buffers()))\n"
        "ce = c(torch.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]]), torch.tensor([1, 2]))\n"
        "n = list(torch.nn.NLLLoss(weight=w).state_dict())"),
    # ------------------------------------------------------------------ activations
    "silu": _activation("F.silu({})"),
    "mish": _activation("F.mish({})"),
    "softplus": _activation("F.softplus({})"),
    "softplus beta threshold": _activation("F.softplus({}, beta=2, threshold=3)"),
    "elu": _activation("F.elu({}, alpha=0.7)"),
    "selu": _activation("F.selu({})"),
    "celu": _activation("F.celu({}, alpha=0.5)"),
    "hardswish": _activation("F.hardswish({})"),
    "hardsigmoid": _activation("F.hardsigmoid({})"),
    "logsigmoid": _activation("F.logsigmoid({})"),
    "softsign": _activation("F.softsign({})"),
    "tanhshrink": _activation("F.tanhshrink({})"),
    "softmin": X + "y = F.softmin(x, dim=1); y.backward(torch.ones_like(y)); z = F.softmin(x, 0, dtype=torch.float64)",
    "glu": X + "y = F.glu(x); y.backward(torch.ones_like(y)); a = F.glu(x.detach(), 0); b = F.glu(x.detach().t(), 0)",
    "glu odd size": "F.glu(torch.ones(2, 3))",
    "glu of a scalar": "F.glu(torch.tensor(1.))",
    "glu dim out of range": "F.glu(torch.ones(2, 4), 2)",
    "in-place activations keep torch's nodes": (
        X + "a = x * 1; F.silu(a, inplace=True); b = x * 1; F.elu(b, inplace=True); c = x * 1; F.selu_(c)\n"
        "d = x * 1; F.celu(d, 0.5, inplace=True); m = x * 1; F.mish(m, inplace=True)\n"
        "h = x * 1; F.hardswish(h, inplace=True); s = x * 1; F.hardsigmoid(s, inplace=True)\n"
        "(a + b + c + d + m + h + s).sum().backward()\n"),
    "elu_ saves its result, so a later write breaks backward": (
        X + "b = x * 1; F.elu_(b); b.mul_(2); b.sum().backward()"),
    "silu in place saves a copy of its input": X + "a = x * 1; F.silu(a, inplace=True); a.mul_(2); a.sum().backward()",
    "activations of integers": "F.silu(torch.ones(2, dtype=torch.long))",
    "softplus of integers": "F.softplus(torch.ones(2, dtype=torch.long))",
    "elu of integers": "F.elu(torch.ones(2, dtype=torch.long))",
    "logsigmoid of integers": "F.logsigmoid(torch.ones(2, dtype=torch.long))",
    "in-place activation of a leaf": "x = torch.ones(2, requires_grad=True); F.silu(x, inplace=True)",
    "prelu": ("torch.manual_seed(0); x = torch.randn(2, 3, 2, requires_grad=True); w = torch.tensor([0.1, 0.2, 0.3], "
              "requires_grad=True); y = F.prelu(x, w); y.sum().backward(); s = F.prelu(x.detach(), torch.tensor([0.5]))"),
    "prelu channel mismatch": "F.prelu(torch.ones(2, 3), torch.ones(2))",
    "prelu weight of two dims": "F.prelu(torch.ones(2, 3), torch.ones(1, 3))",
    "prelu weight of another dtype": "F.prelu(torch.ones(2, 3), torch.ones(3, dtype=torch.float64))",
    "prelu module": ("torch.manual_seed(0); m = nn.PReLU(3, init=0.1); x = torch.randn(4, 3, requires_grad=True); "
                     "y = m(x); y.sum().backward(); w = m.weight; print(m, list(m.state_dict()))"),
    "activation modules print as torch's": (
        "print(nn.SiLU(), nn.SiLU(True), nn.Mish(), nn.Mish(True), nn.Softplus(), nn.Softplus(2, 5), nn.ELU(), "
        "nn.ELU(0.5, True), nn.CELU(), nn.CELU(0.5, True), nn.SELU(), nn.SELU(True), nn.Hardswish(True), "
        "nn.Hardsigmoid(True), nn.LogSigmoid(), nn.GLU(), nn.Softmin(1), nn.Softmin(), nn.PReLU(), nn.Softsign(), "
        "nn.Tanhshrink())"),
    "activation modules in a model": (
        "torch.manual_seed(0)\n"
        "m = nn.Sequential(nn.Linear(3, 4), nn.SiLU(), nn.Linear(4, 4), nn.ELU(), nn.Linear(4, 4), nn.Mish(),\n"
        "                  nn.Linear(4, 4), nn.Hardswish(), nn.Linear(4, 4), nn.Softplus(), nn.Linear(4, 2), nn.GLU())\n"
        "x = torch.randn(5, 3)\n"
        "y = m(x)\n"
        "y.sum().backward()\n"
        "g = m[0].weight.grad\n"
        "print(m)\n"),
    "hardshrink and softshrink": (
        "x = torch.tensor([0.5, -0.5, 0.6, -0.7, 0.1], requires_grad=True); h = F.hardshrink(x); "
        "s = F.softshrink(x, 0.3); t = torch.hardshrink(x, 0.2); u = x.hardshrink(); (h + s + t).sum().backward(); "
        "print(nn.Hardshrink(), nn.Softshrink(0.3)); v = nn.Softshrink(0.1)(x)"),
    "softshrink with a negative lambda": "F.softshrink(torch.ones(2), -1.)",
    "hardshrink of integers": "F.hardshrink(torch.ones(2, dtype=torch.long))",
    "hardtanh, relu6 and threshold modules": (
        "x = torch.tensor([-3., -0.5, 0.5, 7.], requires_grad=True); a = nn.Hardtanh()(x); b = nn.Hardtanh(-2, 2)(x); "
        "c = nn.ReLU6()(x); t = nn.Threshold(0.1, 20.)(x); y = x * 1; nn.ReLU6(inplace=True)(y); "
        "(a + b + c + t + y).sum().backward(); "
        "print(nn.Hardtanh(), nn.Hardtanh(-2, 2, True), nn.ReLU6(), nn.ReLU6(True), nn.Threshold(0.1, 20), "
        "nn.Threshold(0.1, 20., True))"),
    "hardtanh bounds the wrong way": "nn.Hardtanh(2, 1)",
    # ------------------------------------------------------------------ losses
    "bce with logits": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); t = torch.rand(3, 4, "
                        "requires_grad=True); l = F.binary_cross_entropy_with_logits(x, t); l.backward()"),
    "bce with logits weight pos_weight reductions": (
        "torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True) * 20; t = (torch.rand(3, 4) > 0.5).float()\n"
        "w = torch.tensor([1., 2., 0.5, 0.]); p = torch.tensor([3., 1., 0.5, 2.])\n"
        "a = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=p)\n"
        "b = F.binary_cross_entropy_with_logits(x, t, pos_weight=p, reduction='sum')\n"
        "c = F.binary_cross_entropy_with_logits(x, t, weight=w, reduction='none')\n"
        "(a + b + c.sum()).backward()\n"),
    "bce with logits size mismatch": "F.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(3))",
    "bce with logits integer target": "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2, dtype=torch.long))",
    "bce with logits bad reduction": "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2), reduction='avg')",
    "bce with logits pos_weight that requires grad": (
        "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2), pos_weight=torch.ones(2, requires_grad=True))"),
    "bce with logits module": ("torch.manual_seed(0); m = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.])); "
                               "x = torch.randn(4, 1, requires_grad=True); l = m(x, torch.ones(4, 1)); l.backward(); "
                               "print(m, dict(m.named_buffers()), list(m.state_dict()))"),
    "smooth l1": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); y = torch.randn(3, 4, "
                  "requires_grad=True); a = F.smooth_l1_loss(x, y); b = F.smooth_l1_loss(x, y, beta=0.3, "
                  "reduction='sum'); c = F.smooth_l1_loss(x, y, reduction='none'); (a + b + c.sum()).backward()"),
    "smooth l1 with beta 0 is l1": ("x = torch.tensor([1., -2., 3.], requires_grad=True); "
                                    "l = F.smooth_l1_loss(x, torch.zeros(3), beta=0.); l.backward()"),
    "smooth l1 broadcast warns": ("x = torch.ones(2, 3, requires_grad=True); l = F.smooth_l1_loss(x, torch.zeros(3)); "
                                  "l.backward()"),
    "smooth l1 negative beta": "F.smooth_l1_loss(torch.ones(2), torch.zeros(2), beta=-1.)",
    "smooth l1 of integers": "F.smooth_l1_loss(torch.ones(2, dtype=torch.long), torch.zeros(2, dtype=torch.long))",
    "huber": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True) * 2; y = torch.randn(3, 4); "
              "a = F.huber_loss(x, y, delta=0.5); b = F.huber_loss(x, y, reduction='none'); "
              "c = F.huber_loss(x, y, weight=torch.rand(3, 4)); (a + b.sum() + c).backward()"),
    "huber non-positive delta": "F.huber_loss(torch.ones(2), torch.zeros(2), delta=0.)",
    "huber weight of another size": "F.huber_loss(torch.ones(2), torch.zeros(2), weight=torch.ones(3))",
    "kl div": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); t = torch.rand(3, 4).softmax(1)\n"
               "a = F.kl_div(x.log_softmax(1), t, reduction='batchmean')\n"
               "b = F.kl_div(x.log_softmax(1), t.log(), reduction='sum', log_target=True)\n"
               "c = F.kl_div(x.log_softmax(1), t, reduction='none')\n"
               "(a + b + c.sum()).backward()\n"),
    "kl div mean warns": "l = F.kl_div(torch.tensor([[-1., -2.]]), torch.tensor([[0., 1.]]))",
    "kl div of integers": "F.kl_div(torch.ones(2, dtype=torch.long), torch.ones(2))",
    "kl div bad reduction": "F.kl_div(torch.ones(2), torch.ones(2), reduction='avg')",
    "loss modules": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); y = torch.randn(3, 4)\n"
                     "ms = [nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=0.5, reduction='sum'), nn.HuberLoss(delta=2.), "
                     "nn.KLDivLoss(reduction='batchmean', log_target=True)]\n"
                     "ls = [m(x, y) for m in ms]\n"
                     "sum(ls).backward()\n"
                     "print(ms, [m.reduction for m in ms], ms[1].beta, ms[2].delta, ms[3].log_target)\n"),
    "margin losses": (
        "torch.manual_seed(0); a = torch.randn(4, 3, requires_grad=True); p = torch.randn(4, 3); n = torch.randn(4, 3)\n"
        "t = F.triplet_margin_loss(a, p, n); s = F.triplet_margin_loss(a, p, n, "
        "margin=0.5, p=1, swap=True, reduction='none')\n"
        "x1 = torch.randn(5, requires_grad=True); x2 = torch.randn(5); y = torch.tensor([1., -1., 1., 1., -1.])\n"
        "r = F.margin_ranking_loss(x1, x2, y, margin=0.2); q = F.margin_ranking_loss(x1, x2, y, reduction='sum')\n"
        "m = F.multilabel_soft_margin_loss(a, (p > 0).float()); w = F.multilabel_soft_margin_loss(a, (p > 0).float(), "
        "weight=torch.tensor([1., 2., 0.5]), reduction='none')\n"
        "(t + s.sum() + r + q + m + w.sum()).backward()\n"),
    "triplet margin must be positive": "F.triplet_margin_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), margin=0.)",
    "margin ranking ranks differ": "F.margin_ranking_loss(torch.ones(2, 1), torch.ones(2), torch.ones(2))",
    "margin loss modules": (
        "torch.manual_seed(0); ms = [nn.MarginRankingLoss(0.1), nn.TripletMarginLoss(margin=0.5, p=1.), "
        "nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1., 2., 3.]))]\n"
        "a = torch.randn(4, 3, requires_grad=True); b = torch.randn(4, 3); c = torch.randn(4, 3)\n"
        "l = ms[0](a[:, 0], b[:, 0], torch.ones(4)) + ms[1](a, b, c) + ms[2](a, (b > 0).float()); l.backward()\n"
        "print(ms, list(ms[2].state_dict()))\n"),
    # ------------------------------------------------------------------ distances
    "normalize": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); a = F.normalize(x); "
                  "b = F.normalize(x, p=1, dim=0); z = F.normalize(torch.zeros(2, 3)); (a + b).sum().backward()"),
    "normalize out=": "o = torch.empty(2, 3); r = F.normalize(torch.arange(6.).view(2, 3), out=o); same = r is o",
    "cosine similarity": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); y = torch.randn(4, "
                          "requires_grad=True); c = F.cosine_similarity(x, y, dim=-1); c.sum().backward(); "
                          "z = F.cosine_similarity(torch.zeros(2), torch.zeros(2), dim=0)"),
    "cosine similarity of integers": "F.cosine_similarity(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long))",
    "cosine similarity of an integer and a float": "c = F.cosine_similarity(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3))",
    "cosine similarity shape mismatch": "F.cosine_similarity(torch.ones(2, 3), torch.ones(3, 3))",
    "pairwise distance": ("torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); y = torch.randn(3, 4); "
                          "d = F.pairwise_distance(x, y); e = F.pairwise_distance(x, y, p=1, keepdim=True); "
                          "(d.sum() + e.sum()).backward(); s = F.pairwise_distance(torch.tensor(1.), torch.tensor(3.))"),
    "distance modules": ("torch.manual_seed(0); c = nn.CosineSimilarity(dim=0); p = nn.PairwiseDistance(p=1.); "
                         "x = torch.randn(3, 2); y = torch.randn(3, 2); a = c(x, y); b = p(x, y); print(c, p)"),
    "torch-level names": ("x = torch.tensor([[-1., 0.5], [2., -3.]], requires_grad=True); a = torch.selu(x); "
                          "b = torch.celu(x, 0.5); c = torch.prelu(x, torch.tensor([0.2, 0.3])); "
                          "d = torch.kl_div(x, x.detach().exp(), 1); e = x.prelu(torch.tensor([0.1])); "
                          "f = torch.binary_cross_entropy_with_logits(x, torch.ones(2, 2)); "
                          "g = torch.cosine_similarity(x, x * 2); h = torch.pairwise_distance(x, x + 1); "
                          "i = torch.selu_(x.detach().clone()); j = torch.celu_(x.detach().clone())"),
    "xlogy": ("x = torch.tensor([0., 1., 2., 0., 3.], requires_grad=True); y = torch.tensor([0., -1., 3., float('nan'), "
              "2.], requires_grad=True); z = torch.xlogy(x, y); z.sum().backward(); s = torch.xlogy(2, y.detach()); "
              "r = x.detach().xlogy(3.); i = torch.xlogy(torch.tensor([1, 2]), torch.tensor([3, 4]))"),
    "xlogy_ in place": "x = torch.tensor([0., 1., 2.]); x.xlogy_(torch.tensor([5., 2., 3.])); v = x._version",
}


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected
