# A policy-gradient (REINFORCE) step as the RL tutorials write it, a Gaussian policy's
# reparameterised sample, the VAE's KL term through torch.distributions, and the checks a test
# helper makes with torch.testing.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Independent, Normal, kl_divergence
from torch.testing import assert_close

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)

states = torch.randn(6, 4)
dist = Categorical(logits=policy(states))
actions = dist.sample()
print(dist, actions)
rewards = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
returns = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
log_probs = dist.log_prob(actions)
entropy = dist.entropy().mean()
loss = -(log_probs * returns).sum() - 0.01 * entropy
optimizer.zero_grad()
loss.backward()
print(loss.grad_fn, log_probs.grad_fn, entropy.grad_fn)
optimizer.step()
print(policy[2].bias)

# A Gaussian policy: its sample is drawn without a graph, its rsample with one.
mu = torch.zeros(2, requires_grad=True)
log_std = torch.full((2,), -0.5, requires_grad=True)
gauss = Normal(mu, log_std.exp())
action = gauss.sample()
reparam = gauss.rsample((3,))
print(action.requires_grad, reparam.grad_fn)
score = gauss.log_prob(action).sum()
score.backward()
print(mu.grad, log_std.grad)

# The VAE's KL(q(z|x) || N(0, I)), closed form against the textbook formula.
enc_mu = torch.randn(5, 3, requires_grad=True)
enc_logvar = torch.randn(5, 3, requires_grad=True)
q = Independent(Normal(enc_mu, (0.5 * enc_logvar).exp()), 1)
prior = Independent(Normal(torch.zeros(5, 3), torch.ones(5, 3)), 1)
kl = kl_divergence(q, prior)
textbook = -0.5 * torch.sum(1 + enc_logvar - enc_mu.pow(2) - enc_logvar.exp(), dim=1)
assert_close(kl, textbook)
z = q.rsample()
recon = F.mse_loss(z, torch.zeros_like(z), reduction="sum")
(recon + kl.sum()).backward()
print(q.batch_shape, q.event_shape, kl.grad_fn)
print(enc_mu.grad.abs().sum() > 0)

try:
    Normal(torch.zeros(2), torch.tensor([1.0, -1.0]))
except ValueError as error:
    print(error)

try:
    assert_close(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.0, 3.5]))
except AssertionError as error:
    print(error)
