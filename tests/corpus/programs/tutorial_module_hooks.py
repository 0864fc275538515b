# Module hooks as the forward/backward hook tutorials use them: capturing activations
# with forward hooks, rewriting the input with a pre-hook, watching gradients with a
# full backward hook, and removing hooks through their handles.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
activations = {}


def get_activation(name):
    def hook(model, input, output):
        activations[name] = output.detach()
    return hook


h1 = model[0].register_forward_hook(get_activation('fc1'))
h2 = model[1].register_forward_hook(get_activation('relu'))
x = torch.randn(2, 4)
out = model(x)
print(sorted(activations), activations['relu'].shape, (activations['relu'] >= 0).all())


def double_input(module, args):
    return (args[0] * 2,)


h3 = model[2].register_forward_pre_hook(double_input)
out2 = model(x)
print(torch.allclose(out2 - model[2].bias, 2 * (out - model[2].bias)))
grads = []


def backward_hook(module, grad_input, grad_output):
    grads.append((type(module).__name__,
                  [None if g is None else tuple(g.shape) for g in grad_input],
                  [tuple(g.shape) for g in grad_output]))


h4 = model[2].register_full_backward_hook(backward_hook)
out3 = model(x.requires_grad_())
out3.sum().backward()
print(grads)
print(out3.grad_fn)
for h in (h1, h2, h3, h4):
    h.remove()
activations.clear()
model(x)
print(activations, len(grads))
