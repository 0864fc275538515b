# The 60-minute blitz, "A Gentle Introduction to torch.autograd": gradients of a
# polynomial, the graph's nodes, and freezing parameters for finetuning.
import torch
from torch import nn, optim

torch.manual_seed(0)
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
print(Q.grad_fn)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
s = x + y
print(f"Does `s` require gradients?: {s.requires_grad}")
s = x + z
print(f"Does `s` require gradients?: {s.requires_grad}")


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        return self.fc(self.features(x))


model = TinyNet()
for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(4, 3)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
images = torch.rand(2, 3, 8, 8)
labels = torch.rand(2, 3)
prediction = model(images)
loss = (prediction - labels).sum()
loss.backward()
optimizer.step()
print([name for name, p in model.named_parameters() if p.requires_grad])
print(model.features[0].weight.grad)
print(model.fc.weight.grad.shape)
