import paddle

# 创建两个张量
x = paddle.to_tensor([[1, 2], [3, 4]], dtype='float32')
y = paddle.to_tensor([[5, 6], [7, 8]], dtype='float32')

# Inplace加法
x.add_(y, alpha=1) 
print(x)
# Tensor([[6., 8.], [10., 12.]])

# Inplace减法
x.subtract_(y, alpha=2)
print(x) 
# Tensor([[-4., -4.], [-4., -4.]])
