# Lower precision and inference on CPU: bfloat16 and float16 tensors, Module.half() and
# .to(torch.bfloat16), torch.autocast with bfloat16, and inference_mode versus no_grad.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 8)
print(torch.tensor([1.001, 2.5, 1e-3, 65504.0, 1e5]).to(torch.bfloat16))
print(torch.tensor([1.001, 2.5, 1e-3, 65504.0]).half())
print(torch.finfo(torch.bfloat16), torch.finfo(torch.float16).max, torch.finfo(torch.float32).eps)
print(torch.iinfo(torch.int8), torch.iinfo(torch.int64).max)

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
half_model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
half_model.load_state_dict(model.state_dict())
half_model.half()
print(half_model[0].weight.dtype, half_model[0].weight.element_size())
print(half_model(x.half()))
bf = nn.Linear(8, 2).to(torch.bfloat16)
print(bf.weight.dtype, bf(x.to(torch.bfloat16)).dtype)

with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    out = model(x)
    print(out.dtype, out.grad_fn)
    loss = out.float().pow(2).mean()
print(loss.dtype, torch.is_autocast_enabled("cpu"))
loss.backward()
print(model[0].weight.grad.dtype)

with torch.no_grad():
    a = model(x)
with torch.inference_mode():
    b = model(x)
    print(torch.is_inference_mode_enabled(), b.requires_grad)
print(a.is_inference(), b.is_inference(), a.requires_grad)
print(torch.equal(a, b))
a.add_(1)
print(a._version)
b.add_(1)
