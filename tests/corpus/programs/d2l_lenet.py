# d2l.ai 7.6 LeNet: nn.Sequential of Conv2d, Sigmoid and AvgPool2d, a layer-by-layer shape walk,
# Xavier initialisation with apply(), and a few SGD steps on random 28x28 "images".
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10))

X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape: \t', X.shape)


def init_cnn(module):
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


net.apply(init_cnn)
print(sum(p.numel() for p in net.parameters()), "parameters")
images = torch.rand(8, 1, 28, 28)
labels = torch.randint(0, 10, (8,))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.9)
for step in range(3):
    optimizer.zero_grad()
    out = net(images)
    loss = loss_fn(out, labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
print(net[0].weight.grad.shape, net[0].bias.grad.abs().sum() > 0)
net.eval()
with torch.no_grad():
    pred = net(images).argmax(dim=1)
print(pred.dtype, pred.shape, (pred == labels).sum().item() <= 8)
try:
    net(torch.rand(8, 3, 28, 28))
except RuntimeError as e:
    print(e)
try:
    net(torch.rand(8, 1, 32, 32))
except RuntimeError as e:
    print(e)
