# The tensor idioms pasted most often: seeded randn and arange, view/reshape/permute/contiguous
# (and view's error on a permuted tensor), gather/scatter/scatter_add_, topk/sort/argmax,
# cat/stack/chunk/split, einsum, broadcasting matmul, masks (masked_fill, where, boolean indexing),
# type conversions and their rounding, item/tolist, and the printing of tensors and gradients.
import torch

torch.manual_seed(42)
x = torch.randn(2, 3, 4)
print(x)
a = torch.arange(12)
print(a.view(3, 4), a.reshape(2, -1).shape, a.view(-1, 6).stride())
p = x.permute(2, 0, 1)
print(p.shape, p.stride(), p.is_contiguous())
try:
    p.view(4, 6)
except RuntimeError as e:
    print(e)
print(p.contiguous().view(4, 6).stride(), p.reshape(4, 6).is_contiguous())
print(x.transpose(0, 1).shape, x.mT.shape, x.flatten(1).shape, x.unsqueeze(1).shape, x[None, ..., None].shape)

idx = torch.tensor([[0, 2], [1, 0]])
src = torch.arange(1., 7.).view(2, 3)
print(torch.gather(src, 1, idx))
print(torch.zeros(2, 3).scatter_(1, idx, 1.0))
print(torch.zeros(3).scatter_add_(0, torch.tensor([0, 1, 0, 2]), torch.ones(4)))
print(torch.zeros(2, 3).scatter(1, idx, torch.tensor([[9., 8.], [7., 6.]])))
try:
    torch.gather(src, 1, idx.float())
except RuntimeError as e:
    print(e)

scores = torch.tensor([[0.1, 0.7, 0.2, 0.7], [0.9, 0.05, 0.03, 0.02]])
values, indices = scores.topk(2, dim=1)
print(values, indices)
print(scores.argmax(dim=1), scores.argmax(), scores.max(dim=1))
print(scores.sort(dim=1, descending=True).indices, torch.argsort(scores[0], stable=True))

b = torch.ones(2, 3)
print(torch.cat([b, b * 2], dim=0).shape, torch.stack([b, b], dim=1).shape, torch.cat([b, b], -1).shape)
print([t.shape for t in torch.arange(10).chunk(3)], [t.tolist() for t in torch.arange(7).split([3, 4])])
try:
    torch.cat([torch.ones(2, 3), torch.ones(3, 2)])
except RuntimeError as e:
    print(e)
try:
    torch.stack([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print(e)

q = torch.randn(2, 5, 3)
k = torch.randn(2, 4, 3)
print(torch.einsum("bqd,bkd->bqk", q, k).shape, torch.allclose(torch.einsum("bqd,bkd->bqk", q, k), q @ k.mT))
print(torch.einsum("ii->", torch.eye(3)), torch.einsum("i,j->ij", torch.arange(2.), torch.arange(3.)))
w = torch.randn(3, 6)
print((q @ w).shape, torch.matmul(torch.randn(4, 1, 2, 3), torch.randn(5, 3, 7)).shape)
try:
    q @ torch.randn(4, 2)
except RuntimeError as e:
    print(e)

m = torch.tensor([[1., -2., 3.], [-4., 5., -6.]])
print(m.masked_fill(m < 0, 0.0), torch.where(m > 0, m, torch.zeros_like(m)), m[m > 0])
m[m < 0] = -1
print(m, (m == -1).sum(), (m == -1).any(), (m > 10).all())
print(m.clamp(min=0).nonzero(), m.abs().sum(dim=0, keepdim=True))

f = torch.tensor([1.7, -1.7, 2.5, -0.5])
print(f.int(), f.long(), f.round(), f.to(torch.uint8), f.bool(), f.half(), f.double().dtype)
print(torch.tensor([1, 2, 3]) / 2, torch.tensor([1, 2, 3]) // 2, torch.tensor([1, 2]) * 1.5, torch.tensor([True]) + 1)
print(f.sum().item(), f.tolist(), f.numpy().dtype, torch.tensor(3).item() + 1, float(f[0]), int(f[1]))

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
out = (w ** 2).sum() + w.prod()
out.backward()
print(w, out)
print(w.grad)
print(w.detach(), w.data.dtype, w.grad.dtype, out.grad_fn, out.grad_fn.next_functions[0][0])
print(torch.zeros(2, 2, dtype=torch.int32), torch.full((2,), 7), torch.empty(0), torch.tensor([[1e-5, 1e5]]))
print(torch.arange(0, 1, 0.25), torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.eye(2, dtype=torch.long))
