# A SAC-style actor: a Gaussian squashed by tanh into the action bounds through
# TransformedDistribution, its log-probability with the change of variables, the entropy-regularised
# actor loss and one optimiser step; a LogNormal prior's KL term beside it.
import torch
import torch.nn as nn
from torch.distributions import (
    AffineTransform,
    LogNormal,
    Normal,
    TanhTransform,
    TransformedDistribution,
    kl_divergence,
)

torch.manual_seed(0)


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 32), nn.ReLU())
        self.mu = nn.Linear(32, 2)
        self.log_std = nn.Linear(32, 2)

    def forward(self, obs):
        h = self.body(obs)
        log_std = self.log_std(h).clamp(-5, 2)
        base = Normal(self.mu(h), log_std.exp())
        return TransformedDistribution(base, [TanhTransform(cache_size=1), AffineTransform(0.0, 2.0)])


actor = Actor()
opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
obs = torch.randn(8, 3)
dist = actor(obs)
action = dist.rsample()
log_prob = dist.log_prob(action).sum(-1)
q_value = -(action ** 2).sum(-1)
alpha = 0.2
loss = (alpha * log_prob - q_value).mean()
opt.zero_grad()
loss.backward()
opt.step()
print(dist.batch_shape, dist.event_shape, action.shape, log_prob.grad_fn, loss.grad_fn)
print(action.abs().max() <= 2.0, actor.mu.bias)

prior = LogNormal(torch.zeros(2), torch.ones(2))
posterior = LogNormal(torch.tensor([0.5, -0.5]), torch.tensor([0.8, 1.2]))
print(prior, prior.mean, kl_divergence(posterior, prior))
