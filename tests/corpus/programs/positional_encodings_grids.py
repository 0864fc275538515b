# Positional encodings and coordinate grids as tutorials build them: the sinusoidal encoding of
# "Attention Is All You Need" (exp/log frequencies, interleaved sin/cos by slicing), learned
# position ids, a 2-D pixel grid from torch.meshgrid for a coordinate MLP, RoPE-style rotation
# with torch.polar-free cos/sin caches, checked with isclose/allclose and printed with a
# shorter precision through torch.set_printoptions.
import math
import torch

torch.set_printoptions(precision=3)
d_model, max_len = 8, 6
position = torch.arange(max_len).unsqueeze(1)
div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
pe = torch.zeros(max_len, d_model)
pe[:, 0::2] = torch.sin(position * div_term)
pe[:, 1::2] = torch.cos(position * div_term)
print(pe)
print(div_term, torch.logspace(0, -3, 4, base=10000.0 ** (1 / 3)))
print(torch.allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, torch.ones(max_len, d_model // 2)))

h, w = 3, 4
ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
coords = torch.stack([xs, ys], dim=-1).reshape(-1, 2)
print(coords.shape, xs.stride(), ys.is_contiguous(), coords[:5])
gx, gy = torch.meshgrid(torch.arange(w), torch.arange(h), indexing="xy")
print(gx, gy, gx.dtype, gx.stride())

freqs = 1.0 / (10000 ** (torch.arange(0, 4, 2).float() / 4))
t = torch.arange(max_len, dtype=torch.float32)
angles = torch.outer(t, freqs)
cos, sin = angles.cos(), angles.sin()
q = torch.randn(max_len, 4, generator=torch.Generator().manual_seed(0))
q1, q2 = q[..., ::2], q[..., 1::2]
rotated = torch.stack([q1 * cos - q2 * sin, q1 * sin + q2 * cos], dim=-1).flatten(-2)
print(rotated.shape, torch.isclose(rotated.norm(dim=-1), q.norm(dim=-1)).all())
print(torch.isclose(torch.tensor([1.0, 1.001, float("nan")]), torch.tensor([1.0, 1.0, float("nan")]), atol=1e-4,
                    equal_nan=True))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-6, 1.0, 1234.5]))
torch.set_printoptions(profile="default")
print(torch.tensor([1e-6, 1.0, 1234.5]))
