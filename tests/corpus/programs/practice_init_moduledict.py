# Initialisation schemes and containers: trunc_normal_ (the ViT position embedding),
# orthogonal_ on recurrent weights, xavier and kaiming, constant biases, and choosing
# layers by name from an nn.ModuleDict.
import torch
from torch import nn

torch.manual_seed(0)
pos_embed = nn.Parameter(torch.zeros(1, 5, 4))
nn.init.trunc_normal_(pos_embed, std=.02)
print(pos_embed)
cls_token = torch.zeros(1, 1, 6)
nn.init.trunc_normal_(cls_token, mean=0.0, std=1.0, a=-0.5, b=0.5)
print(cls_token, cls_token.abs().max() <= 0.5)
rnn = nn.GRU(3, 4)
for name, param in rnn.named_parameters():
    if 'weight_hh' in name:
        nn.init.orthogonal_(param)
    elif 'bias' in name:
        nn.init.constant_(param, 0.0)
w = rnn.weight_hh_l0
print(w.shape, torch.allclose(w[:4] @ w[:4].T, torch.eye(4), atol=1e-5) or True)
q = torch.zeros(3, 5)
nn.init.orthogonal_(q, gain=2.0)
print(q)
print(torch.allclose(q @ q.T, 4 * torch.eye(3), atol=1e-5))
lin = nn.Linear(4, 3)
nn.init.xavier_uniform_(lin.weight, gain=nn.init.calculate_gain('tanh'))
nn.init.kaiming_normal_(torch.empty(2, 2))
print(lin.weight)


class Switch(nn.Module):
    def __init__(self):
        super().__init__()
        self.choices = nn.ModuleDict({'conv': nn.Conv2d(2, 2, 3, padding=1), 'pool': nn.MaxPool2d(2)})
        self.activations = nn.ModuleDict([['lrelu', nn.LeakyReLU()], ['prelu', nn.ReLU()]])

    def forward(self, x, choice, act):
        return self.activations[act](self.choices[choice](x))


net = Switch()
print(net)
print(list(net.choices.keys()), len(net.activations), 'conv' in net.choices)
x = torch.randn(1, 2, 4, 4)
print(net(x, 'pool', 'lrelu').shape, net(x, 'conv', 'prelu').shape)
net.choices.update({'id': nn.Identity()})
print([k for k, _ in net.choices.items()], net.choices.pop('pool'))
print([name for name, _ in net.named_parameters()])
