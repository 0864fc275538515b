# nanoGPT's GPTConfig dataclass driving a tiny bigram-style model (an Embedding
# straight to logits), trained a few steps with AdamW and sampled from.
from dataclasses import dataclass
import torch
import torch.nn as nn
from torch.nn import functional as F


@dataclass
class GPTConfig:
    block_size: int = 8
    vocab_size: int = 16
    n_embd: int = 8
    dropout: float = 0.0


class BigramLanguageModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.token_embedding_table = nn.Embedding(config.vocab_size, config.n_embd)
        self.position_embedding_table = nn.Embedding(config.block_size, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)
        pos_emb = self.position_embedding_table(torch.arange(T))
        logits = self.lm_head(tok_emb + pos_emb)
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        loss = F.cross_entropy(logits.view(B * T, C), targets.view(B * T))
        return logits, loss


torch.manual_seed(1337)
config = GPTConfig(vocab_size=12)
print(config)
model = BigramLanguageModel(config)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
data = torch.randint(0, config.vocab_size, (100,))
for it in range(5):
    ix = torch.randint(len(data) - config.block_size, (4,))
    xb = torch.stack([data[i:i + config.block_size] for i in ix])
    yb = torch.stack([data[i + 1:i + config.block_size + 1] for i in ix])
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    print(it, f"{loss.item():.4f}")
idx = torch.zeros((1, 1), dtype=torch.long)
for _ in range(5):
    logits, _ = model(idx[:, -config.block_size:])
    probs = F.softmax(logits[:, -1, :], dim=-1)
    idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
print(idx.tolist())
