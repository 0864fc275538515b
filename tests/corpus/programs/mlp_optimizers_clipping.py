# Softmax regression and an MLP on synthetic blobs, the way tutorials train them: nn.Sequential,
# nn.CrossEntropyLoss, torch.optim.SGD (momentum, nesterov), Adam and AdamW, zero_grad(set_to_none)
# both ways, clip_grad_norm_ and clip_grad_value_, accuracy with argmax, and a few sharp edges:
# a float target, an out-of-range class, step() before any backward.
import torch
import torch.nn as nn

torch.manual_seed(0)
n_classes, n_features = 3, 4
centers = torch.randn(n_classes, n_features) * 3
y = torch.arange(n_classes).repeat_interleave(20)
X = centers[y] + torch.randn(len(y), n_features)
perm = torch.randperm(len(y))
X, y = X[perm], y[perm]


def accuracy(logits, labels):
    return (logits.argmax(dim=1) == labels).float().mean().item()


def train(model, optimizer, steps=5, clip=None):
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        optimizer.zero_grad()
        logits = model(X)
        loss = loss_fn(logits, y)
        loss.backward()
        if clip == "norm":
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
            print(f"  grad norm before clipping {total:.4f}")
        elif clip == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
        optimizer.step()
        print(f"  step {step}: loss {loss.item():.4f} acc {accuracy(logits, y):.3f}")
    return loss


softmax_reg = nn.Sequential(nn.Linear(n_features, n_classes))
print("softmax regression, SGD")
train(softmax_reg, torch.optim.SGD(softmax_reg.parameters(), lr=0.1))
print(softmax_reg[0].weight.grad)

mlp = nn.Sequential(nn.Linear(n_features, 16), nn.ReLU(), nn.Linear(16, n_classes))
print(mlp)
print("MLP, SGD with nesterov momentum and clip_grad_norm_")
train(mlp, torch.optim.SGD(mlp.parameters(), lr=0.05, momentum=0.9, nesterov=True), clip="norm")

mlp2 = nn.Sequential(nn.Linear(n_features, 16), nn.Tanh(), nn.Dropout(p=0.0), nn.Linear(16, n_classes))
opt = torch.optim.Adam(mlp2.parameters(), lr=1e-2, betas=(0.9, 0.99))
print("MLP, Adam with clip_grad_value_")
train(mlp2, opt, steps=3, clip="value")
print(sorted(opt.state_dict()["state"][0].keys()), opt.state_dict()["param_groups"][0]["lr"])

mlp3 = nn.Sequential(nn.Linear(n_features, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, n_classes))
decay = [p for n, p in mlp3.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in mlp3.named_parameters() if p.dim() < 2]
opt3 = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                         lr=3e-3)
print("MLP, AdamW with two parameter groups")
last = train(mlp3, opt3, steps=3)
print([g["weight_decay"] for g in opt3.param_groups], len(opt3.param_groups[0]["params"]))

opt3.zero_grad(set_to_none=False)
print("kept as zeros:", mlp3[0].bias.grad)
opt3.zero_grad()
print("set to None:", mlp3[0].bias.grad)
opt3.step()  # no gradients: nothing moves

with torch.no_grad():
    probs = torch.softmax(mlp3(X[:4]), dim=1)
print(probs, torch.allclose(probs.sum(dim=1), torch.ones(4)))
untrained = torch.softmax(torch.randn(4, n_classes) * 3, dim=1)
print(untrained, untrained.sum(dim=1))  # the sums' last bits show in the print
print(nn.functional.cross_entropy(mlp3(X[:4]), y[:4], reduction="none"))
print(nn.CrossEntropyLoss(label_smoothing=0.1)(mlp3(X[:4]), y[:4]))
try:
    nn.CrossEntropyLoss()(mlp3(X[:4]), y[:4].float())
except RuntimeError as e:
    print("float target:", e)
try:
    nn.CrossEntropyLoss()(mlp3(X[:4]), torch.tensor([0, 1, 2, 3]))
except IndexError as e:
    print("class out of range:", e)
