import paddle

# 创建一个3x4的矩阵
X = paddle.arange(12).reshape([3, 4])
# Original X:
# Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
#        [[0 , 1 , 2 , 3 ],
#         [4 , 5 , 6 , 7 ],
#         [8 , 9 , 10, 11]])
# Inplace转置
X.transpose_([1, 0])
print(f"X after inplace transpose:\n{X}") 
# X after inplace transpose:
# Tensor(shape=[4, 3], dtype=int64, place=Place(cpu), stop_gradient=True,
#        [[0 , 4 , 8 ],
#         [1 , 5 , 9 ],
#         [2 , 6 , 10],
#         [3 , 7 , 11]])

# 与非Inplace对比  
Y = X.transpose([1, 0])
print(f"Y after non-inplace transpose:\n{Y}")
# Y after non-inplace transpose:
# Tensor(shape=[3, 4], dtype=int64, place=Place(cpu), stop_gradient=True,
#        [[0 , 1 , 2 , 3 ],
#         [4 , 5 , 6 , 7 ],
#         [8 , 9 , 10, 11]])
