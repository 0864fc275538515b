# The in-place orders people get wrong in residual blocks, next to the ones that work: a
# post-activation block (`out += identity` then an in-place ReLU: fine), the same block with the
# skip added in place onto the saved output of a sigmoid gate (fails at backward), a
# pre-activation block whose in-place ReLU rewrites the previous block's output (fails), and
# `x += ...` on the block's input (fails on a leaf, works on a clone). Each error is printed.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class GatedBlock(Block):
    def forward(self, x):
        gate = torch.sigmoid(self.bn1(self.conv1(x)))  # sigmoid saves its output for backward
        gate += x  # ... which this modifies
        return self.relu(gate)


class PreActBlock(Block):
    def forward(self, x):
        out = self.relu(x)  # in place on the previous block's output, which its ReLU saved
        out = self.conv1(out)
        out = self.conv2(self.relu(self.bn2(out)))
        return out + x


def attempt(name, model, x):
    try:
        y = model(x)
        y.sum().backward()
        print(f"{name}: ok, output {tuple(y.shape)} {y.grad_fn.name()}, version {y._version}")
    except RuntimeError as e:
        print(f"{name}: {e}")


torch.manual_seed(0)
x = torch.randn(2, 3, 6, 6)
attempt("post-activation", nn.Sequential(Block(3), Block(3)), x)
attempt("sigmoid gate += x", GatedBlock(3), x)
attempt("pre-activation after a block", nn.Sequential(Block(3), PreActBlock(3)), x)
attempt("pre-activation on the input", PreActBlock(3), x.clone())

leaf = torch.randn(2, 3, 6, 6, requires_grad=True)
try:
    leaf += 1
except RuntimeError as e:
    print(e)
h = leaf.clone()
h += 1
print(h.grad_fn.name(), h._version, leaf._version)
with torch.no_grad():
    leaf += 1
print(leaf._version, leaf.requires_grad, leaf.is_leaf)
relu = nn.ReLU(inplace=True)
print(relu)
y = relu(leaf * 1)
print(y.grad_fn.name(), y._version)
try:
    relu(leaf)
except RuntimeError as e:
    print(e)
