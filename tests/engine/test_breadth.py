"""The breadth of torch everyday code reaches for (issue 12), each snippet run in real PyTorch and in the
engine: the same output, errors, warnings, and every tensor left behind the same (shape, strides,
version, grad_fn, values, grads, storage sharing; see tests/oracle.py)."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

SNIPPETS = {
    # ------------------------------------------------------------------ ordering, counting, new ops
    "sort descending with ties": "x = torch.tensor([3, 1, 3, 2]); v, i = x.sort(descending=True)",
    "sort records SortBackward0": "x = torch.tensor([3., 1., 2.], requires_grad=True); v, i = torch.sort(x); "
                                  "v.sum().backward(); print(torch.sort(x))",
    "sort puts nan last": "v, i = torch.tensor([float('nan'), 1., 3.]).sort()",
    "topk": "x = torch.tensor([[1., 5., 2.], [4., 0., 3.]], requires_grad=True); t = x.topk(2); "
            "t.values.sum().backward(); print(type(t).__name__)",
    "topk k too large": "torch.tensor([1., 2.]).topk(3)",
    "argsort": "i = torch.argsort(torch.tensor([2, 0, 1]), descending=True)",
    "unique with inverse and counts": "u, inv, c = torch.unique(torch.tensor([3, 1, 3, 2]), return_inverse=True, "
                                      "return_counts=True)",
    "unique rows": "u = torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)",
    "bincount": "b = torch.bincount(torch.tensor([0, 2, 2, 5]), minlength=7)",
    "bincount weights": "b = torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([0.5, 1., 2.]))",
    "bincount negative": "torch.bincount(torch.tensor([-1]))",
    "where with one argument": "idx = torch.where(torch.tensor([[True, False], [True, True]]))",
    "cumprod and its gradient": "x = torch.tensor([[1., 0., 3.], [2., 2., 0.5]], requires_grad=True); "
                                "c = x.cumprod(1); c.sum().backward()",
    "round to decimals": "x = torch.tensor([1.23456, -2.98765, 1234.5], requires_grad=True); "
                         "r = x.round(decimals=2); s = x.round(decimals=-2)",
    "equal": "print(torch.equal(torch.ones(2), torch.ones(2)), torch.equal(torch.ones(2), torch.ones(3)))",
    "finfo and iinfo": "print(torch.finfo(torch.float32), torch.finfo(torch.float16).eps, torch.iinfo(torch.int8), "
                       "torch.finfo(torch.bfloat16).max)",
    "iinfo of a float": "torch.iinfo(torch.float32)",
    "factories with size=": "a = torch.zeros(size=(2, 3)); b = torch.ones(size=[2]); c = torch.full(size=(2,), "
                            "fill_value=3.)",
    "randn with size= and a positional size": "torch.randn(2, size=(2, 3))",
    "range index": "x = torch.arange(12.).view(4, 3); y = x[range(0, 4, 2)]; z = x[range(2), 1]",
    "einsum batched matmul": "a = torch.arange(24.).view(2, 3, 4).requires_grad_(); b = torch.ones(2, 4, 5); "
                             "c = torch.einsum('bij,bjk->bik', a, b); c.sum().backward()",
    "einsum transpose and trace": "m = torch.arange(9.).view(3, 3); t = torch.einsum('ij->ji', m); "
                                  "d = torch.einsum('ii', m); o = torch.einsum('i,j->ij', m[0], m[1])",
    "einsum ellipsis": "a = torch.ones(5, 2, 3); b = torch.arange(12.).view(3, 4); c = torch.einsum('...ij,jk->...ik', a, b)",
    "einsum bad subscripts": "torch.einsum('ij,jk->il', torch.ones(2, 2), torch.ones(2, 2))",
    "baddbmm": "m = torch.zeros(2, 3, 5, requires_grad=True); a = torch.ones(2, 3, 4, requires_grad=True); "
               "b = torch.ones(2, 4, 5); c = torch.baddbmm(m, a, b, beta=0.5, alpha=2.); c.sum().backward()",
    "trace": "m = torch.arange(9.).view(3, 3).requires_grad_(); t = torch.trace(m); t.backward()",
    "repeat_interleave": "r = torch.repeat_interleave(torch.tensor([2, 3]), 2); s = torch.tensor([1, 2]).repeat_interleave(torch.tensor([1, 3]))",
    # ------------------------------------------------------------------ linalg
    "linalg inv, det, solve": "A = torch.tensor([[4., 1.], [2., 3.]], dtype=torch.float64, requires_grad=True); "
                              "b = torch.tensor([1., 2.], dtype=torch.float64); Ai = torch.linalg.inv(A); "
                              "d = torch.linalg.det(A); x = torch.linalg.solve(A, b); (Ai.sum() + d + x.sum()).backward()",
    "linalg qr and cholesky": "A = torch.tensor([[4., 1.], [1., 3.]], dtype=torch.float64); Q, R = torch.linalg.qr(A); "
                              "L = torch.linalg.cholesky(A)",
    "linalg norms": "A = torch.tensor([[1., -2.], [3., 4.]]); n = torch.linalg.norm(A); m1 = torch.linalg.matrix_norm(A, ord=1); "
                    "v = torch.linalg.vector_norm(A, ord=float('inf')); d = torch.linalg.norm(A, dim=1)",
    "linalg inv of a singular matrix": "torch.linalg.inv(torch.zeros(2, 2))",
    "linalg svdvals": "s = torch.linalg.svdvals(torch.tensor([[3., 0.], [0., 4.]]))",
    # ------------------------------------------------------------------ nn layers
    "embedding with padding_idx": "torch.manual_seed(0); e = nn.Embedding(5, 3, padding_idx=0); "
                                  "y = e(torch.tensor([[0, 2], [4, 2]])); y.sum().backward(); w = e.weight; print(e)",
    "embedding index out of range": "e = nn.Embedding(3, 2); e(torch.tensor([3]))",
    "module dict": "d = nn.ModuleDict({'a': nn.ReLU(), 'b': nn.Tanh()}); d['c'] = nn.Identity(); "
                   "print(d, list(d.keys()), len(d), 'a' in d)",
    "group norm": "torch.manual_seed(0); g = nn.GroupNorm(2, 4); x = torch.randn(2, 4, 3, requires_grad=True); "
                  "y = g(x); (y * torch.randn_like(y)).sum().backward(); w = g.weight; print(g)",
    "adaptive max pool": "x = torch.arange(50.).view(1, 2, 5, 5).requires_grad_(); y, i = F.adaptive_max_pool2d(x, (2, 3), "
                         "return_indices=True); y.sum().backward()",
    "conv transpose": "torch.manual_seed(0); c = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1); "
                      "x = torch.randn(1, 2, 4, 4, requires_grad=True); y = c(x); y.sum().backward(); w = c.weight; print(c)",
    "label smoothing": "torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); "
                       "l = F.cross_entropy(x, torch.tensor([0, 1, 3]), label_smoothing=0.2); l.backward()",
    "rnn cell": "torch.manual_seed(0); c = nn.RNNCell(3, 2); h = c(torch.randn(4, 3)); print(c)",
    "lstm cell": "torch.manual_seed(0); c = nn.LSTMCell(3, 2); x = torch.randn(4, 3, requires_grad=True); h, s = c(x); "
                 "(h.sum() + s.sum()).backward()",
    "gru cell": "torch.manual_seed(0); c = nn.GRUCell(3, 2); h = c(torch.randn(4, 3)); h.sum().backward(); g = c.weight_hh.grad",
    "gru layer": "torch.manual_seed(0); m = nn.GRU(3, 4, num_layers=2); o, h = m(torch.randn(5, 2, 3)); o.sum().backward(); "
                 "print(m)",
    "lstm layer float32": "torch.manual_seed(0); m = nn.LSTM(3, 4); x = torch.randn(5, 2, 3, requires_grad=True); "
                          "o, (h, c) = m(x); (o.sum() + c.sum()).backward(); w = m.weight_ih_l0",
    "lstm batch first, bidirectional": "torch.manual_seed(0); m = nn.LSTM(3, 2, batch_first=True, bidirectional=True); "
                                       "o, (h, c) = m(torch.randn(2, 4, 3))",
    "lstm float64 is composite": "torch.manual_seed(0); m = nn.LSTM(3, 2).double(); "
                                 "o, (h, c) = m(torch.randn(4, 2, 3, dtype=torch.float64)); o.sum().backward()",
    "rnn relu unbatched": "torch.manual_seed(0); m = nn.RNN(3, 2, nonlinearity='relu'); o, h = m(torch.randn(4, 3)); print(m)",
    "packed sequence": "torch.manual_seed(0); m = nn.LSTM(2, 3); x = torch.randn(4, 3, 2); "
                       "p = nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1]); o, (h, c) = m(p); "
                       "out, lengths = nn.utils.rnn.pad_packed_sequence(o); d = p.data; bs = p.batch_sizes",
    "packed sequence must be sorted": "nn.utils.rnn.pack_padded_sequence(torch.ones(3, 2, 1), [1, 3])",
    "multihead attention": "torch.manual_seed(0); a = nn.MultiheadAttention(4, 2); x = torch.randn(3, 2, 4); "
                           "o, w = a(x, x, x); o.sum().backward(); g = a.in_proj_weight.grad; print(a)",
    "multihead attention's inference path": "torch.manual_seed(0); a = nn.MultiheadAttention(4, 2, batch_first=True).eval(); "
                                            "x = torch.randn(2, 3, 4)\nwith torch.no_grad():\n    o, w = a(x, x, x)\n"
                                            "o2, w2 = a(x, x, x)",
    "transformer encoder layer": "torch.manual_seed(0); l = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0); "
                                 "x = torch.randn(3, 2, 4); y = l(x, src_mask=nn.Transformer.generate_square_subsequent_mask(3))",
    "scaled dot product attention": "torch.manual_seed(0); q = torch.randn(1, 2, 3, 4, requires_grad=True); "
                                    "k = torch.randn(1, 2, 3, 4); v = torch.randn(1, 2, 3, 4); "
                                    "y = F.scaled_dot_product_attention(q, k, v, is_causal=True); y.sum().backward()",
    "trunc_normal_ and orthogonal_": "torch.manual_seed(0); a = torch.empty(3, 4); nn.init.trunc_normal_(a, std=0.5, a=-0.3, "
                                     "b=0.3); q = torch.empty(2, 5); nn.init.orthogonal_(q)",
    # ------------------------------------------------------------------ modules: state_dict and hooks
    "state_dict order and non-persistent buffers": (
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.l = nn.Linear(2, 2)\n"
        "        self.register_buffer('s', torch.ones(2))\n"
        "        self.register_buffer('t', torch.zeros(1), persistent=False)\n"
        "        self.p = nn.Parameter(torch.ones(1))\n"
        "m = M()\n"
        "m.s = torch.full((2,), 3.)\n"
        "print(list(m.state_dict()), [n for n, _ in m.named_buffers()])\n"
        "r = m.load_state_dict(m.state_dict())\n"
        "print(r)\n"
        "r2 = m.load_state_dict({'p': torch.zeros(1), 'x': torch.ones(1)}, strict=False)\n"
        "print(r2)\n"
        "p = m.p\n"),
    "load_state_dict errors": "m = nn.Linear(2, 2); m.load_state_dict({'weight': torch.ones(3, 2), 'x': torch.ones(1)})",
    "assigning a tensor to a parameter": "m = nn.Linear(2, 2); m.weight = torch.ones(2, 2)",
    "forward hooks and pre-hooks": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(2, 2)\n"
        "seen = []\n"
        "h1 = m.register_forward_hook(lambda mod, args, out: seen.append(out.shape))\n"
        "h2 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))\n"
        "y = m(torch.ones(1, 2))\n"
        "h1.remove(); h2.remove()\n"
        "z = m(torch.ones(1, 2))\n"
        "print(seen, torch.equal(y, m.bias.detach().unsqueeze(0)))\n"),
    "full backward hook": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(2, 3)\n"
        "got = []\n"
        "m.register_full_backward_hook(lambda mod, gi, go: got.append((gi[0].shape, go[0].shape)))\n"
        "x = torch.ones(4, 2, requires_grad=True)\n"
        "y = m(x)\n"
        "y.sum().backward()\n"
        "print(got)\n"),
    "deepcopy of a module": "import copy\ntorch.manual_seed(0); m = nn.BatchNorm1d(2); c = copy.deepcopy(m); "
                            "w = c.weight; b = c.running_mean; print(w is m.weight)",
    "save and load through a buffer": (
        "import io\n"
        "buf = io.BytesIO()\n"
        "a = torch.arange(6.).view(2, 3)\n"
        "torch.save({'a': a, 'b': a[1], 'n': 3}, buf)\n"
        "buf.seek(0)\n"
        "loaded = torch.load(buf)\n"
        "x, y = loaded['a'], loaded['b']\n"
        "print(loaded['n'])\n"),
    "module half and bfloat16": "m = nn.Linear(2, 2).half(); w = m.weight; b = nn.Linear(2, 1).to(torch.bfloat16).bias",
    # ------------------------------------------------------------------ optim and schedulers
    "adam state keyed by parameter": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(2, 1)\n"
        "o = torch.optim.Adam(m.parameters(), lr=0.1)\n"
        "m(torch.ones(3, 2)).sum().backward()\n"
        "o.step()\n"
        "s = o.state[m.weight]\n"
        "step, avg = s['step'], s['exp_avg']\n"
        "print(o.state_dict()['param_groups'])\n"
        "w = m.weight\n"),
    "adamw, rmsprop, adadelta, sgd nesterov": (
        "torch.manual_seed(0)\n"
        "ps = [nn.Parameter(torch.randn(3)) for _ in range(4)]\n"
        "opts = [torch.optim.AdamW([ps[0]], lr=0.1), torch.optim.RMSprop([ps[1]], lr=0.1, momentum=0.5, centered=True),\n"
        "        torch.optim.Adadelta([ps[2]]), torch.optim.SGD([ps[3]], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)]\n"
        "for _ in range(3):\n"
        "    for p, o in zip(ps, opts):\n"
        "        o.zero_grad()\n"
        "        (p ** 2).sum().backward()\n"
        "        o.step()\n"
        "a, b, c, d = ps\n"
        "print(opts[1])\n"),
    "optimizer load_state_dict": (
        "torch.manual_seed(0)\n"
        "p = nn.Parameter(torch.ones(2))\n"
        "o = torch.optim.SGD([p], lr=0.1, momentum=0.9)\n"
        "p.grad = torch.ones(2)\n"
        "o.step()\n"
        "q = nn.Parameter(torch.ones(2))\n"
        "o2 = torch.optim.SGD([q], lr=0.5)\n"
        "o2.load_state_dict(o.state_dict())\n"
        "print(o2.param_groups[0]['lr'], o2.param_groups[0]['momentum'])\n"
        "buf = o2.state[q]['momentum_buffer']\n"),
    "lr schedulers": (
        "p = nn.Parameter(torch.ones(1))\n"
        "out = []\n"
        "for make in (lambda o: torch.optim.lr_scheduler.StepLR(o, 2), lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 3),\n"
        "             lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=5), lambda o: torch.optim.lr_scheduler.LinearLR(o),\n"
        "             lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.5), lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [1, 3])):\n"
        "    o = torch.optim.SGD([p], lr=0.1, momentum=0.9)\n"
        "    s = make(o)\n"
        "    for _ in range(4):\n"
        "        o.step()\n"
        "        s.step()\n"
        "    out.append(s.get_last_lr())\n"
        "print(out)\n"),
    "scheduler stepped before the optimizer warns": (
        "o = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)\n"
        "s = torch.optim.lr_scheduler.StepLR(o, 1)\n"
        "s.step()\n"),
    # ------------------------------------------------------------------ utils
    "clip_grad_norm_ and clip_grad_value_": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(3, 2)\n"
        "m(torch.randn(4, 3)).sum().backward()\n"
        "n = nn.utils.clip_grad_norm_(m.parameters(), 0.5)\n"
        "nn.utils.clip_grad_value_(m.parameters(), 0.1)\n"
        "g = m.weight.grad\n"),
    "parameters_to_vector and back": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(2, 2)\n"
        "v = nn.utils.parameters_to_vector(m.parameters())\n"
        "nn.utils.vector_to_parameters(torch.zeros(6), m.parameters())\n"
        "w = m.weight\n"),
    "dataloader shuffle draws from the manual seed": (
        "torch.manual_seed(0)\n"
        "ds = torch.utils.data.TensorDataset(torch.arange(10.), torch.arange(10))\n"
        "batches = [y.tolist() for _, y in torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True)]\n"
        "after = torch.rand(1)\n"
        "print(batches, len(torch.utils.data.DataLoader(ds, batch_size=4)))\n"),
    "random_split": (
        "a, b = torch.utils.data.random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(1))\n"
        "print(list(a), list(b))\n"),
    "checkpoint, non-reentrant": (
        "torch.manual_seed(0)\n"
        "m = nn.Sequential(nn.Linear(3, 3), nn.GELU())\n"
        "x = torch.randn(2, 3, requires_grad=True)\n"
        "y = torch.utils.checkpoint.checkpoint(m, x, use_reentrant=False)\n"
        "y.sum().backward()\n"
        "g = m[0].weight.grad\n"),
    "checkpoint without use_reentrant warns": (
        "m = nn.Linear(2, 2)\n"
        "y = torch.utils.checkpoint.checkpoint(m, torch.ones(1, 2, requires_grad=True))\n"),
    # ------------------------------------------------------------------ dtypes and modes
    "bfloat16 storage and printing": "x = torch.tensor([1.001, 2.5, 1e-3, 1e5]).to(torch.bfloat16); y = x * 3; z = y.float()",
    "inference mode": (
        "with torch.inference_mode():\n"
        "    b = torch.ones(2) * 2\n"
        "    print(torch.is_inference_mode_enabled())\n"
        "c = b.clone()\n"
        "print(b.is_inference(), c.is_inference(), torch.is_inference_mode_enabled())\n"
        "try:\n"
        "    b._version\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    b.mul_(2)\n"
        "except RuntimeError as e:\n"
        "    print(e, b)\n"
        "try:\n"
        "    b * torch.ones(2, requires_grad=True)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "del b\n"),
    "autocast": (
        "torch.manual_seed(0)\n"
        "m = nn.Linear(3, 2)\n"
        "x = torch.randn(4, 3)\n"
        "with torch.autocast('cpu'):\n"
        "    y = m(x)\n"
        "    print(y.dtype, torch.is_autocast_enabled())\n"
        "y.float().sum().backward()\n"
        "g = m.weight.grad\n"),
}


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected
