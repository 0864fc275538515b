# d2l.ai 3.4/3.7 object-oriented "from scratch" linear regression: a synthetic-data class with
# a shuffling minibatch iterator, a model holding its own parameters, a hand-written SGD
# optimizer with zero_grad, weight decay added to the loss by hand, and a validation loop.
import random
import torch


class SyntheticRegressionData:
    def __init__(self, w, b, noise=0.01, num_train=96, num_val=32, batch_size=16):
        self.w, self.b, self.batch_size = w, b, batch_size
        self.num_train, self.num_val = num_train, num_val
        n = num_train + num_val
        self.X = torch.randn(n, len(w))
        noise = torch.randn(n, 1) * noise
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise

    def get_dataloader(self, train):
        if train:
            indices = list(range(0, self.num_train))
            random.shuffle(indices)
        else:
            indices = list(range(self.num_train, self.num_train + self.num_val))
        for i in range(0, len(indices), self.batch_size):
            batch_indices = torch.tensor(indices[i: i + self.batch_size])
            yield self.X[batch_indices], self.y[batch_indices]


class LinearRegressionScratch:
    def __init__(self, num_inputs, lr, sigma=0.01, lambd=0.0):
        self.lr, self.lambd = lr, lambd
        self.w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, X):
        return torch.matmul(X, self.w) + self.b

    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2
        penalty = (self.w ** 2).sum() / 2
        return l.mean() + self.lambd * penalty

    def parameters(self):
        return [self.w, self.b]


class SGD:
    def __init__(self, params, lr):
        self.params, self.lr = params, lr

    def step(self):
        for param in self.params:
            param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()


random.seed(0)
torch.manual_seed(0)
data = SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
print("first example:", data.X[0], data.y[0])
model = LinearRegressionScratch(2, lr=0.03, lambd=0.01)
optim = SGD(model.parameters(), model.lr)
for epoch in range(3):
    for X, y in data.get_dataloader(train=True):
        loss = model.loss(model.forward(X), y)
        optim.zero_grad()
        loss.backward()
        with torch.no_grad():
            optim.step()
    with torch.no_grad():
        val = [model.loss(model.forward(X), y) for X, y in data.get_dataloader(train=False)]
        print(f"epoch {epoch}: val loss {torch.stack(val).mean():.4f}")
print("w grad after the last step:", model.w.grad.reshape(-1))
print(f"error in estimating w: {data.w - model.w.reshape(data.w.shape)}")
print(f"error in estimating b: {data.b - model.b}")
with torch.no_grad():
    w_norm = model.w.norm()
print("w norm", w_norm, w_norm.requires_grad)
try:
    model.w -= 0.1
except RuntimeError as e:
    print("outside no_grad:", e)
