# d2l.ai 4.4 "Softmax Regression Implementation from Scratch": softmax by hand, the
# cross-entropy picked out with a range index, and accuracy.
import torch

torch.manual_seed(0)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


X = torch.rand((2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))

num_inputs, num_outputs = 16, 4
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))

features = torch.randn(64, num_inputs)
labels = torch.randint(0, num_outputs, (64,))
lr = 0.1
for epoch in range(5):
    for i in range(0, 64, 16):
        Xb, yb = features[i:i + 16], labels[i:i + 16]
        l = cross_entropy(net(Xb), yb)
        l.sum().backward()
        with torch.no_grad():
            for param in [W, b]:
                param -= lr * param.grad / 16
                param.grad.zero_()
    print(f"epoch {epoch + 1}: acc {accuracy(net(features), labels) / 64:.4f}")
