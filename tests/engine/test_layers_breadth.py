"""Layers everyday models use beyond Linear/Conv2d (issue 12's breadth continued), each snippet run in real
PyTorch and in the engine: the same values, shapes, strides, grad_fn names, gradients, module printing,
warnings and errors (see tests/oracle.py). Derivatives are in test_derivative_table.py."""

import pytest

from tests.oracle import torch_and_engine

torch = pytest.importorskip("torch")

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
    # ------------------------------------------------------------------ normalisation
    "rms norm": ("torch.manual_seed(0); x = torch.randn(2, 3, 8, requires_grad=True); w = torch.randn(8, "
                 "requires_grad=True); a = F.rms_norm(x, (8,), w); b = F.rms_norm(x, (3, 8), eps=1e-3); "
                 "(a.sum() + (b * b).sum()).backward(); h = F.rms_norm(x.detach().half(), [8])"),
    "rms norm shape errors": "x = torch.ones(2, 8); F.rms_norm(x, (4,))",
    "rms norm weight shape": "F.rms_norm(torch.ones(2, 8), (8,), torch.ones(4))",
    "rms norm module": ("torch.manual_seed(0); m = nn.RMSNorm(8); n = nn.RMSNorm([3, 8], eps=1e-5, "
                        "elementwise_affine=False); x = torch.randn(2, 3, 8, requires_grad=True); y = m(x) + n(x); "
                        "y.sum().backward(); g = m.weight.grad; print(m, n, list(m.state_dict()))"),
    "instance norm": ("torch.manual_seed(0); x = torch.randn(2, 3, 4, 4, requires_grad=True); y = F.instance_norm(x); "
                      "(y * y.detach()).sum().backward(); rm = torch.zeros(3); rv = torch.ones(3); "
                      "z = F.instance_norm(x.detach(), rm, rv, torch.ones(3), torch.zeros(3))"),
    "instance norm of one pixel": "F.instance_norm(torch.ones(2, 3, 1, 1))",
    "instance norm modules": ("torch.manual_seed(0); a = nn.InstanceNorm2d(3); b = nn.InstanceNorm2d(3, affine=True, "
                              "track_running_stats=True); c = nn.InstanceNorm1d(3)\n"
                              "x = torch.randn(2, 3, 4, 4, requires_grad=True); y = a(x) + b(x); y.sum().backward()\n"
                              "u = a(torch.randn(3, 4, 4)); s = c(torch.randn(2, 3, 5)); w = b.weight.grad\n"
                              "rm = b.running_mean; n = b.num_batches_tracked; b.eval(); e = b(x.detach())\n"
                              "print(a, b, c, list(b.state_dict()))\n"),
    "instance norm wrong channels": "nn.InstanceNorm2d(4)(torch.randn(2, 3, 4, 4))",
    "instance norm wrong channels affine": "nn.InstanceNorm2d(4, affine=True)(torch.randn(2, 3, 4, 4))",
    "instance norm wrong rank": "nn.InstanceNorm2d(3)(torch.randn(2, 3, 4, 4, 1))",
    # ------------------------------------------------------------------ reshaping, dropout, containers
    "unflatten": ("x = torch.arange(24.).view(2, 12).requires_grad_(); u = nn.Unflatten(1, (3, 4)); y = u(x); "
                  "y.sum().backward(); z = nn.Unflatten(-1, (2, -1))(x.detach()); print(u)"),
    "unflatten bad sizes": "nn.Unflatten(1, (4, 4))(torch.ones(2, 6))",
    "pixel shuffle": ("x = torch.arange(32.).view(1, 8, 2, 2).requires_grad_(); y = F.pixel_shuffle(x, 2); "
                      "(y * torch.arange(32.).view(1, 2, 4, 4)).sum().backward(); z = F.pixel_unshuffle(y.detach(), 2); "
                      "m = nn.PixelShuffle(2); n = nn.PixelUnshuffle(2); w = n(m(x.detach())); print(m, n)"),
    "pixel shuffle channel error": "F.pixel_shuffle(torch.ones(1, 3, 2, 2), 2)",
    "pixel unshuffle height error": "F.pixel_unshuffle(torch.ones(1, 1, 3, 3), 2)",
    "dropout2d": ("torch.manual_seed(0); x = torch.ones(2, 4, 3, 3, requires_grad=True); y = F.dropout2d(x, 0.5); "
                  "y.sum().backward(); e = F.dropout2d(x, 0.5, training=False); z = F.dropout2d(x.detach(), 1.)"),
    "dropout2d of a 3-d input warns": "torch.manual_seed(0); y = F.dropout2d(torch.ones(2, 4, 3))",
    "dropout2d of a 2-d input warns": "torch.manual_seed(0); y = F.dropout2d(torch.ones(4, 3))",
    "dropout1d": ("torch.manual_seed(0); x = torch.ones(2, 4, 3, requires_grad=True); y = F.dropout1d(x, 0.5); "
                  "y.sum().backward(); u = F.dropout1d(torch.ones(4, 3)); i = torch.ones(2, 4, 3); "
                  "j = F.dropout1d(i, inplace=True); v = i._version"),
    "dropout1d of a 4-d input": "F.dropout1d(torch.ones(1, 2, 3, 4))",
    "dropout modules": ("torch.manual_seed(0); d = nn.Dropout2d(0.3); e = nn.Dropout1d(); y = d(torch.ones(2, 3, 2, 2)); "
                        "d.eval(); z = d(torch.ones(2, 3, 2, 2)); print(d, e, nn.Dropout2d(0.2, True))"),
    "dropout module probability": "nn.Dropout2d(1.5)",
    "parameter list": ("p = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3, 2)])\n"
                       "p.append(torch.full((1,), 2.))\n"
                       "print(p, len(p), [n for n, _ in p.named_parameters()], type(p[1]).__name__)\n"
                       "s = sum(q.sum() for q in p); s.backward(); g = p[0].grad; last = p[-1]\n"),
    "parameter list in a module": (
        "class M(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.ws = nn.ParameterList([nn.Parameter(torch.full((2,), float(i))) for i in range(3)])\n"
        "    def forward(self, x):\n"
        "        for w in self.ws:\n"
        "            x = x * w\n"
        "        return x\n"
        "m = M(); y = m(torch.ones(2)); y.sum().backward()\n"
        "print(m, list(m.state_dict()), [p.grad for p in m.parameters()])\n"
        "o = torch.optim.SGD(m.parameters(), lr=0.1); o.step(); w = m.ws[2]\n"),
    "parameter list index out of range": "nn.ParameterList([torch.ones(1)])[3]",
    "parameter dict": ("d = nn.ParameterDict({'a': nn.Parameter(torch.ones(2)), 'b': torch.zeros(1)})\n"
                       "d['c'] = nn.Parameter(torch.full((3,), 2.))\n"
                       "print(d, len(d), 'a' in d, list(d.keys()), [n for n, _ in d.named_parameters()])\n"
                       "s = d['a'].sum() + d['c'].sum(); s.backward(); g = d['a'].grad; b = d.pop('b'); n = len(d)\n"),
    # ------------------------------------------------------------------ upsampling
    "interpolate nearest": ("x = torch.arange(8.).view(1, 2, 4).requires_grad_(); a = F.interpolate(x, scale_factor=2); "
                            "b = F.interpolate(x, size=6); c = F.interpolate(x, scale_factor=0.5); "
                            "(a.sum() + (b * b).sum() + c.sum()).backward(); "
                            "i = torch.arange(12.).view(1, 1, 3, 4); d = F.interpolate(i, scale_factor=(2, 1.5)); "
                            "e = F.interpolate(i, size=(5, 7)); f = F.interpolate(i, scale_factor=1.7)"),
    "interpolate bilinear": ("torch.manual_seed(0); x = torch.randn(2, 3, 4, 5, requires_grad=True)\n"
                             "a = F.interpolate(x, scale_factor=2, mode='bilinear')\n"
                             "b = F.interpolate(x, size=(7, 3), mode='bilinear', align_corners=True)\n"
                             "c = F.interpolate(x, scale_factor=0.5, mode='bilinear', recompute_scale_factor=True)\n"
                             "(a.sum() + (b * b).sum() + c.sum()).backward()\n"
                             "d = F.interpolate(x.detach().double(), scale_factor=1.3, mode='bilinear')\n"),
    "interpolate linear": ("torch.manual_seed(0); x = torch.randn(2, 3, 5, requires_grad=True)\n"
                           "a = F.interpolate(x, size=9, mode='linear'); b = F.interpolate(x, scale_factor=3, "
                           "mode='linear', align_corners=True); (a.sum() + (b * b).sum()).backward()\n"),
    "interpolate argument errors": "F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2, align_corners=True)",
    "interpolate with size and factor": "F.interpolate(torch.ones(1, 1, 2, 2), size=3, scale_factor=2)",
    "interpolate with neither": "F.interpolate(torch.ones(1, 1, 2, 2))",
    "interpolate of a 2-d input": "F.interpolate(torch.ones(2, 2), scale_factor=2)",
    "interpolate bilinear of a 3-d input": "F.interpolate(torch.ones(1, 2, 2), scale_factor=2, mode='bilinear')",
    "interpolate size of the wrong length": "F.interpolate(torch.ones(1, 1, 2, 2), size=(2, 3, 4))",
    "interpolate recompute with a size": "F.interpolate(torch.ones(1, 1, 2, 2), size=3, recompute_scale_factor=True)",
    "upsample is deprecated": "y = F.upsample(torch.ones(1, 1, 2, 2), scale_factor=2); z = F.upsample_bilinear(torch.ones(1, 1, 2, 2), scale_factor=2)",
    "upsample modules": ("torch.manual_seed(0); ms = [nn.Upsample(scale_factor=2), nn.Upsample(size=(4, 6), "
                         "mode='bilinear', align_corners=True), nn.Upsample(scale_factor=1.5, mode='bilinear'), "
                         "nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=5)]\n"
                         "x = torch.randn(1, 2, 3, 3, requires_grad=True); ys = [m(x) for m in ms]; "
                         "sum(y.sum() for y in ys).backward(); print(ms)"),
    "a small decoder": ("torch.manual_seed(0)\n"
                        "dec = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Upsample(scale_factor=2, "
                        "mode='bilinear', align_corners=False), nn.Conv2d(8, 4, 3, padding=1), nn.PixelShuffle(2), "
                        "nn.InstanceNorm2d(1), nn.Sigmoid())\n"
                        "x = torch.randn(2, 4, 3, 3)\n"
                        "y = dec(x)\n"
                        "loss = F.binary_cross_entropy(y, torch.rand_like(y))\n"
                        "loss.backward()\n"
                        "g = dec[0].weight.grad\n"
                        "print(dec, y.shape)\n"),
    # ------------------------------------------------------------------ transformer decoder
    "transformer decoder layer": (
        "torch.manual_seed(0); layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)\n"
        "dec = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(8))\n"
        "tgt = torch.randn(5, 3, 8, requires_grad=True); memory = torch.randn(4, 3, 8)\n"
        "mask = nn.Transformer.generate_square_subsequent_mask(5)\n"
        "out = dec(tgt, memory, tgt_mask=mask); out.sum().backward(); g = dec.layers[1].multihead_attn.in_proj_weight.grad\n"
        "print(layer, len(dec.layers), [n for n, _ in layer.named_parameters()])\n"),
    "transformer decoder norm first, batch first": (
        "torch.manual_seed(0); layer = nn.TransformerDecoderLayer(8, 2, 16, 0.0, activation='gelu', batch_first=True, "
        "norm_first=True)\n"
        "tgt = torch.randn(3, 5, 8, requires_grad=True); memory = torch.randn(3, 4, 8)\n"
        "pad = torch.tensor([[False] * 4, [False, False, False, True], [False] * 4])\n"
        "out = layer(tgt, memory, memory_key_padding_mask=pad); out.sum().backward()\n"),
    "transformer decoder bad activation": "nn.TransformerDecoderLayer(8, 2, activation='tanh')",
    "whole transformer": (
        "torch.manual_seed(0)\n"
        "model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16, "
        "dropout=0.0)\n"
        "src = torch.randn(6, 2, 8); tgt = torch.randn(5, 2, 8, requires_grad=True)\n"
        "out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(5))\n"
        "loss = out.pow(2).mean(); loss.backward()\n"
        "w = model.encoder.layers[0].linear1.weight; g = model.decoder.layers[0].linear2.weight.grad\n"
        "print(sum(p.numel() for p in model.parameters()), out.shape, model.d_model)\n"),
    "whole transformer batch mismatch": ("torch.manual_seed(0); m = nn.Transformer(8, 2, 1, 1, 16, batch_first=True); "
                                         "m(torch.randn(2, 3, 8), torch.randn(3, 3, 8))"),
    "encoder warns about the nested tensor fast path": (
        "torch.manual_seed(0); e = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1); "
        "f = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 1, "
        "enable_nested_tensor=False); g = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 1, 16, batch_first=True), 1)"),
    # ------------------------------------------------------------------ padding modes
    "reflection and replication padding": (
        "x = torch.arange(24.).view(1, 2, 3, 4).requires_grad_()\n"
        "a = F.pad(x, (1, 2, 2, 1), mode='reflect'); b = F.pad(x, (2, 1, 0, 3), mode='replicate')\n"
        "c = F.pad(x[0, 0], (3, 3), mode='reflect'); d = F.pad(x[0], (1, 1), mode='replicate')\n"
        "e = F.pad(x.detach(), (-1, 2), mode='replicate'); f = F.pad(x.detach(), (1, 1), mode='reflect', value=0.)\n"
        "(a.sum() + (b * b).sum() + c.sum() + d.sum()).backward()\n"),
    "reflection padding too wide": "F.pad(torch.ones(1, 2, 3), (3, 3), mode='reflect')",
    "reflection padding with a value": "F.pad(torch.ones(1, 2, 3), (1, 1), mode='reflect', value=2.)",
    "padding of an unknown mode": "F.pad(torch.ones(1, 2, 3), (1, 1), mode='bogus')",
    "reflection padding of the wrong rank": "F.pad(torch.ones(3), (1, 1), mode='reflect')",
    "padding modules": (
        "torch.manual_seed(0); ms = [nn.ZeroPad2d(1), nn.ZeroPad2d((1, 2, 0, 1)), nn.ConstantPad1d(2, 3.5), "
        "nn.ConstantPad2d((1, 1, 2, 0), 0.), nn.ReflectionPad2d(1), nn.ReplicationPad1d((1, 2)), nn.ZeroPad1d(2), "
        "nn.ReflectionPad1d(2), nn.ReplicationPad2d(2)]\n"
        "x = torch.randn(1, 2, 3, 4, requires_grad=True); ys = [m(x) if '2d' in type(m).__name__ else m(x[0]) for m in ms]\n"
        "sum((y * y).sum() for y in ys).backward(); print(ms)\n"),
}


@pytest.mark.parametrize("code", SNIPPETS.values(), ids=SNIPPETS.keys())
def test_same_as_torch(code: str) -> None:
    expected, got = torch_and_engine(code)
    assert got == expected
