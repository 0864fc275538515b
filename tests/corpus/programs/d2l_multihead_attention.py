# d2l.ai 11.5 "Multi-Head Attention", with torch's nn.MultiheadAttention: self-attention
# over a batch, key padding masks and the averaged attention weights.
import torch
from torch import nn

torch.manual_seed(0)
num_hiddens, num_heads = 8, 2
attention = nn.MultiheadAttention(num_hiddens, num_heads, dropout=0.0, batch_first=True)
print(attention)
print([(name, tuple(p.shape)) for name, p in attention.named_parameters()])
batch_size, num_queries, num_kvpairs = 2, 4, 6
X = torch.randn((batch_size, num_queries, num_hiddens))
Y = torch.randn((batch_size, num_kvpairs, num_hiddens))
out, weights = attention(X, Y, Y)
print(out.shape, weights.shape)
print(torch.allclose(weights.sum(-1), torch.ones(2, 4)))
padding = torch.tensor([[False] * 4 + [True] * 2, [False] * 6])
out2, weights2 = attention(X, Y, Y, key_padding_mask=padding)
print(weights2[0, 0])
out3, per_head = attention(X, X, X, need_weights=True, average_attn_weights=False)
print(per_head.shape)
loss = out2.pow(2).mean()
loss.backward()
print(attention.in_proj_weight.grad.shape, f"{attention.out_proj.weight.grad.norm().item():.4f}")
print(out.grad_fn)
