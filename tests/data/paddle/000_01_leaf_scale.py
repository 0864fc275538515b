import paddle
x = paddle.rand([3, 4])
x.stop_gradient = False # 将 x 标记为叶子节点
# 错误做法,会导致报错
x.scale_(2.0)
y = x.sum()
y.backward()
