import paddle

x = paddle.rand([2, 3]) - 0.5
print(x)
# Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
#        [[-0.11629868, -0.14393741,  0.29877216],
#         [-0.12311274, -0.42231464, -0.23500025]])

# Inplace relu操作
paddle.nn.functional.relu_(x)
print(x)  
# Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
#        [[0.        , 0.        , 0.29877216],
#         [0.        , 0.        , 0.        ]])
