# Activation checkpointing as people add it to a deep MLP: torch.utils.checkpoint on
# each block (non-reentrant), checkpoint_sequential over segments, gradients equal to
# the plain run, and the forward recomputed during backward (counted with a hook).
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
calls = {"n": 0}


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = nn.GELU()

    def forward(self, x):
        calls["n"] += 1
        return x + self.act(self.fc(x))


blocks = nn.ModuleList([Block(8) for _ in range(4)])
x = torch.randn(3, 8, requires_grad=True)


def run(use_checkpoint):
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False) if use_checkpoint else block(h)
    return h.pow(2).sum()


loss = run(False)
loss.backward()
plain_grad = x.grad.clone()
plain_w = blocks[0].fc.weight.grad.clone()
print("plain forward calls:", calls["n"])
x.grad = None
blocks.zero_grad()
calls["n"] = 0
loss_ckpt = run(True)
print("checkpointed forward calls:", calls["n"], loss_ckpt.grad_fn)
loss_ckpt.backward()
print("after backward:", calls["n"])
print(torch.allclose(plain_grad, x.grad), torch.allclose(plain_w, blocks[0].fc.weight.grad))
print(torch.equal(loss, loss_ckpt))

model = nn.Sequential(*[Block(8) for _ in range(4)])
calls["n"] = 0
out = checkpoint_sequential(model, 2, x, use_reentrant=False)
out.sum().backward()
print("checkpoint_sequential calls:", calls["n"], out.shape)
with torch.no_grad():
    y = checkpoint(blocks[0], x, use_reentrant=False)
print(y.requires_grad)
