# nanoGPT's train.py in miniature: AdamW over decay / no-decay parameter groups, the
# cosine learning-rate schedule with warmup, gradient accumulation and clipping.
import math
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(0)
vocab, n_embd = 20, 16
model = nn.Sequential(nn.Embedding(vocab, n_embd), nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab))

param_dict = {pn: p for pn, p in model.named_parameters()}
param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
optim_groups = [
    {'params': decay_params, 'weight_decay': 0.1},
    {'params': nodecay_params, 'weight_decay': 0.0}
]
num_decay_params = sum(p.numel() for p in decay_params)
num_nodecay_params = sum(p.numel() for p in nodecay_params)
print(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
print(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
optimizer = torch.optim.AdamW(optim_groups, lr=1e-3, betas=(0.9, 0.95))

learning_rate, min_lr, warmup_iters, lr_decay_iters = 1e-3, 1e-4, 2, 8


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


data = torch.randint(0, vocab, (200,))
gradient_accumulation_steps, batch_size, block_size = 2, 4, 8
for it in range(6):
    lr = get_lr(it)
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    for micro_step in range(gradient_accumulation_steps):
        ix = torch.randint(len(data) - block_size, (batch_size,))
        x = torch.stack([data[i:i + block_size] for i in ix])
        y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        loss = loss / gradient_accumulation_steps
        loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {it}: loss {loss.item() * gradient_accumulation_steps:.4f}, lr {lr:.6f}, norm {norm.item():.4f}")
print(optimizer.state[model[0].weight]['step'], model[0].weight.grad)
