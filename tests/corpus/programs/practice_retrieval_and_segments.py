# Everyday snippets beyond the basics: nearest neighbours with cdist and kthvalue, a robust
# quantile clip, per-segment means with scatter_reduce (message passing), image patches with
# F.unfold / F.fold, a running log-sum-exp, covariance, and the old top-level linear algebra.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
queries = torch.randn(4, 8)
keys = torch.randn(30, 8, requires_grad=True)
dist = torch.cdist(queries, keys)
print(dist.shape, dist.grad_fn)
second = torch.kthvalue(dist, 2, dim=1)
print(second.indices, torch.round(second.values, decimals=4))
lo, hi = torch.aminmax(dist)
print(round(lo.item(), 4), round(hi.item(), 4))
margin = (second.values - dist.min(dim=1).values).mean()
margin.backward()
print(keys.grad.abs().sum() > 0)

scores = torch.randn(100)
low, high = torch.quantile(scores, torch.tensor([0.05, 0.95]))
clipped = scores.clamp(low.item(), high.item())
print(torch.round(torch.stack([low, high]), decimals=4), clipped.max() <= high)
print(torch.histc(scores, bins=5, min=-3, max=3))

nodes = torch.randn(6, 3, requires_grad=True)
edges = torch.tensor([0, 0, 1, 2, 2, 2])
messages = nodes * 2
pooled = torch.zeros(3, 3).scatter_reduce(0, edges[:, None].expand(-1, 3), messages, 'mean', include_self=False)
pooled.sum().backward()
print(pooled.grad_fn, nodes.grad[:, 0])
labels, counts = torch.unique_consecutive(edges, return_counts=True)
print(labels, counts)

image = torch.randn(1, 3, 8, 8, requires_grad=True)
patches = F.unfold(image, kernel_size=4, stride=4)
print(patches.shape, patches.grad_fn)
tokens = patches.transpose(1, 2)
rebuilt = F.fold(tokens.transpose(1, 2), output_size=(8, 8), kernel_size=4, stride=4)
print(torch.equal(rebuilt, image), rebuilt.grad_fn)
counts = F.fold(F.unfold(torch.ones(1, 1, 5, 5), 3), (5, 5), 3)
print(counts[0, 0])

logits = torch.randn(2, 5, requires_grad=True)
running = torch.logcumsumexp(logits, dim=1)
running[:, -1].sum().backward()
print(torch.allclose(running[:, -1], torch.logsumexp(logits, dim=1)), logits.grad.sum(1))
samples = torch.randn(3, 50)
print(torch.round(torch.cov(samples), decimals=4))
print(torch.round(torch.corrcoef(samples), decimals=4))

A = torch.randn(4, 3, dtype=torch.float64)
U, S, V = torch.svd(A)
print(torch.allclose(U @ torch.diag(S) @ V.T, A), S)
print(torch.allclose(torch.pinverse(A) @ A, torch.eye(3, dtype=torch.float64)))
sign, logabs = torch.slogdet(A.T @ A)
print(sign, torch.round(logabs, decimals=6))
print(torch.tensordot(torch.arange(6.).view(2, 3), torch.arange(6.).view(3, 2), dims=1))
print(torch.block_diag(torch.ones(1, 2), torch.tensor([[3.]])), torch.diag_embed(torch.tensor([1., 2.])))
