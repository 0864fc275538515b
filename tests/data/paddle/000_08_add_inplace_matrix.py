import paddle

# 创建两个张量
x = paddle.to_tensor([[1, 2], [3, 4]], dtype='float32')
y = paddle.to_tensor([[5, 6], [7, 8]], dtype='float32')

# Inplace矩阵相加
x.add_(y)
print(x)
# Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
#        [[6. , 8. ],
#         [10., 12.]])
