import paddle  # the guide imported paddle in its earlier blocks; this block continues that session
x = paddle.rand([3, 4])
y = x  # y 和 x 引用同一份数据
x.zero_()  # 将 x 用 0 覆盖,同时也修改了 y 的值

# y 的值已经被修改为全 0 了
print(y)
