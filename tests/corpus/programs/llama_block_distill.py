# A LLaMA-style feed-forward block (RMSNorm, then a SwiGLU MLP: silu(w1 x) * w3 x, projected back by
# w2, added to the residual) distilled towards a teacher with a temperature-scaled KL divergence,
# gradients clipped, AdamW stepping.
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim, hidden_dim, vocab):
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=1e-6)
        self.ffn = FeedForward(dim, hidden_dim)
        self.out = nn.Linear(dim, vocab, bias=False)

    def forward(self, h):
        h = h + self.ffn(self.norm(h))
        return self.out(h)


torch.manual_seed(0)
student = Block(8, 16, 10)
print(student)
teacher_logits = torch.randn(2, 4, 10)
x = torch.randn(2, 4, 8)
optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)
T = 2.0
logits = student(x)
loss = F.kl_div(F.log_softmax(logits / T, dim=-1), F.softmax(teacher_logits / T, dim=-1),
                reduction="batchmean") * T * T
loss.backward()
norm = nn.utils.clip_grad_norm_(student.parameters(), 1.0)
optimizer.step()
print(f"{loss.item():.4f}", f"{norm.item():.4f}", loss.grad_fn, student.norm.weight.grad.shape)
