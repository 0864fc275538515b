# The autograd mechanics note: in-place correctness checks. sigmoid saves its output, so
# changing it in place before backward is caught by the version counter.
import torch

torch.manual_seed(0)
a = torch.randn(4, requires_grad=True)
b = a.exp()
c = b * 2
print(b._version, c.grad_fn.next_functions)
d = a.sigmoid()
d.mul_(2)
print(d._version, d.grad_fn)
with torch.no_grad():
    e = a * 3
e.add_(1)
print(e.requires_grad, e._version)
f = a.clone()
f[0] = 0
f.sum().backward()
print(a.grad)
d.sum().backward()
