# "Extending PyTorch": a LinearFunction with ctx.needs_input_grad and a module that
# wraps it, checked against nn.functional.linear, plus a function marking its output
# dirty when it works in place.
import torch
import torch.nn as nn


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MyLinear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        self.bias = nn.Parameter(torch.empty(output_features)) if bias else None
        if not bias:
            self.register_parameter('bias', None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f'input_features={self.weight.size(1)}, output_features={self.weight.size(0)}, bias={self.bias is not None}'


torch.manual_seed(0)
layer = MyLinear(3, 2)
print(layer)
x = torch.randn(4, 3, requires_grad=True)
out = layer(x)
print(type(out.grad_fn).__name__)
out.pow(2).sum().backward()
reference = nn.functional.linear(x.detach(), layer.weight.detach(), layer.bias.detach())
print(torch.allclose(out, reference), layer.weight.grad.shape, layer.bias.grad)
x.grad = None
frozen = torch.randn(4, 3)
y = LinearFunction.apply(frozen, layer.weight, None)
y.sum().backward()
print(y.requires_grad, layer.bias.grad)


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.mark_dirty(t)
        return t.add_(1)

    @staticmethod
    def backward(ctx, grad):
        return grad


base = torch.zeros(3, requires_grad=True)
h = base.clone()
res = AddOneInPlace.apply(h)
print(res is h, h._version, h.grad_fn)
