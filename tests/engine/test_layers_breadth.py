"""Layers everyday models use beyond Linear/Conv2d (issue 12's breadth continued), each snippet run in real
PyTorch and in the engine: the same values, shapes, strides, grad_fn names, gradients, module printing,
warnings and errors (see tests/oracle.py). Derivatives are in test_derivative_table.py."""

import pytest

from tests.oracle import reconcile, run_snippet, summarize

torch = pytest.importorskip("torch")
import engine  # noqa: E402  (only once the reference is known to be there)
import engine.nn  # noqa: E402
import engine.nn.functional  # noqa: E402

SEQ = "torch.manual_seed(0); x = torch.randn(2, 3, 8, requires_grad=True)\n"

SNIPPETS = {
    # ------------------------------------------------------------------ 1-D convolution and pooling
    "conv1d": SEQ + ("w = torch.randn(4, 3, 3, requires_grad=True); b = torch.randn(4, requires_grad=True)\n"
                     "y = F.conv1d(x, w, b, stride=2, padding=1, dilation=2); y.sum().backward()\n"
                     "s = F.conv1d(x.detach(), w.detach(), padding='same'); v = F.conv1d(x.detach(), w.detach(), "
                     "padding='valid'); u = F.conv1d(x.detach()[0], w.detach())\n"),
    "conv1d same with an even kernel": SEQ + "w = torch.randn(2, 3, 4); y = F.conv1d(x, w, padding='same')",
    "conv1d groups": SEQ[:-1] + "; w = torch.randn(6, 1, 3); y = F.conv1d(x, w, groups=3)",
    "conv1d channel mismatch": SEQ + "F.conv1d(x, torch.randn(4, 2, 3))",
    "conv1d of a 4-d input": "F.conv1d(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 1))",
    "conv1d same with a stride": SEQ + "F.conv1d(x, torch.randn(4, 3, 3), stride=2, padding='same')",
    "conv1d module": ("torch.manual_seed(0); c = nn.Conv1d(3, 4, 3, stride=2, padding=1, bias=False)\n"
                      "d = nn.Conv1d(4, 4, 3, padding='same', groups=2)\n"
                      "x = torch.randn(2, 3, 9, requires_grad=True); y = d(c(x)); y.sum().backward()\n"
                      "w = c.weight; g = d.bias.grad; print(c, d, nn.Conv1d(3, 4, 3))\n"),
    "max pool 1d": SEQ + ("y = F.max_pool1d(x, 2); y.sum().backward(); z, i = F.max_pool1d(x.detach(), 3, 2, 1, "
                          "return_indices=True); c = F.max_pool1d(x.detach(), 3, ceil_mode=True)"),
    "avg pool 1d": SEQ + ("y = F.avg_pool1d(x, 3, 2, 1); y.sum().backward(); z = F.avg_pool1d(x.detach(), 3, 2, 1, "
                          "count_include_pad=False); c = F.avg_pool1d(x.detach(), 3, ceil_mode=True)"),
    "adaptive pools 1d": SEQ + ("y = F.adaptive_avg_pool1d(x, 3); y.sum().backward(); o = F.adaptive_avg_pool1d("
                                "x.detach(), 1); m, i = F.adaptive_max_pool1d(x.detach(), 3, return_indices=True)"),
    "pool 1d of a 4-d input": "F.max_pool1d(torch.ones(1, 2, 3, 4), 2)",
    "pool modules 1d": ("torch.manual_seed(0); ms = [nn.MaxPool1d(2), nn.MaxPool1d(3, 2, 1, ceil_mode=True), "
                        "nn.AvgPool1d(2), nn.AvgPool1d(3, 2, 1, count_include_pad=False), nn.AdaptiveAvgPool1d(3), "
                        "nn.AdaptiveMaxPool1d(2)]\n"
                        "x = torch.randn(2, 3, 8, requires_grad=True); ys = [m(x) for m in ms]; "
                        "sum(y.sum() for y in ys).backward(); print(ms)"),
    "a 1-d conv net": ("torch.manual_seed(0)\n"
                       "net = nn.Sequential(nn.Conv1d(1, 4, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),\n"
                       "                    nn.Conv1d(4, 8, 3), nn.SiLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), "
                       "nn.Linear(8, 2))\n"
                       "x = torch.randn(3, 1, 16)\n"
                       "loss = F.cross_entropy(net(x), torch.tensor([0, 1, 1]))\n"
                       "loss.backward()\n"
                       "g = net[0].weight.grad\n"
                       "print(net)\n"),
}


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected = summarize(run_snippet(code, torch, torch.nn, torch.nn.functional))
    got = summarize(run_snippet(code, engine, engine.nn, engine.nn.functional))
    assert reconcile(expected, got) == expected
