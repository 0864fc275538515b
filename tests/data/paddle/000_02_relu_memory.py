import paddle
import paddle.nn.functional as F

class InplaceBlock(paddle.nn.Layer):
    def __init__(self):
        super(InplaceBlock, self).__init__()
        
    def forward(self, x, inplace=True):
        if inplace:
            return F.relu_(x)
        else:
            return F.relu(x)

# 用于统计最大显存占用
paddle.set_device('gpu')
paddle.seed(0)

# 创建残差块
block = InplaceBlock()

# 创建输入张量
x = paddle.rand([1, 64, 512, 512], dtype='float32')

# 使用Inplace操作
y = block(x, inplace=False)

# 输出最大显存占用
print(paddle.device.cuda.max_memory_allocated())
# 134217728 (inplace=False)
# 67108864 (inplace=True)
