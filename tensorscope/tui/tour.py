"""The tour a first run opens on: the seeds' cases as a plain script, one `# %%` cell per step."""

from __future__ import annotations

TITLE = "Tour: what PyTorch does to memory"

TOUR = '''\
# tensorscope runs PyTorch statements on its own engine and shows what each does to memory:
# which tensors share a **storage**, the **version** counters in-place ops bump, the **autograd
# graph** with the tensors it saved, and **memory** live and peak.
#
# **ctrl+n** runs the next step, **ctrl+b** looks back, **F1** explains the pane you are in.
# Type your own statements in the input at any time.

# %% Start
# `torch` here is tensorscope's engine; it behaves like PyTorch 2.13.
import torch
import numpy as np

# %% A view is the same memory seen differently
# `x.t()`, `x[:, 1]` and `x.view(-1)` share x's storage: one strip in the Storage map, each view's
# elements marked in its colour. `clone()` makes a new strip.
x = torch.arange(6.).view(2, 3)
xt = x.t()
col = x[:, 1]
flat = x.view(-1)
copy = x.clone()

# %% An in-place op on a view changes the base
# `col.mul_(10)` writes through the view into the shared storage: x, xt and flat see it, and the
# version counter they share moves from 0 to 1. The clone does not change.
col.mul_(10)

# %% numpy and torch can share one buffer
# `torch.from_numpy` wraps the array's memory: `b.add_(1)` changes `a` too.
a = np.ones(4)
b = torch.from_numpy(a)
b.add_(1)
print(a)

# %% y = y + x is a new object; y[:] = ... writes in place
# The first rebinds the name to new memory; the second keeps the object and its storage.
y = torch.tensor([3, 4])
y = y + torch.tensor([1, 2])
y[:] = y + 1

# %% A leaf that requires grad refuses in-place ops
# w is a leaf: autograd must know how every value it holds came to be, so `normal_()` on it fails.
w = torch.FloatTensor(10)
w.requires_grad = True
w.normal_()

# %% ... unless autograd is told to look away
# Under `torch.no_grad()` the in-place initialisation is allowed (this is what nn.init does).
with torch.no_grad():
    w.normal_()

# %% In place after a save breaks backward
# `sigmoid` saves its output for the backward pass; `out += 1` changes that output in place (the
# ResNet `out += identity` bug). The Autograd graph marks the saved tensor STALE, and backward fails.
h = torch.randn(3, requires_grad=True)
out = h.sigmoid()
out += 1
out.sum().backward()

# %% relu vs relu_
# `torch.relu(t)` allocates a second storage as big as t; `torch.relu_(t)` writes in place and
# allocates nothing. Watch live and peak in the Memory pane.
t = torch.randn(256, 256)
r = torch.relu(t)
del r
torch.relu_(t)
'''
