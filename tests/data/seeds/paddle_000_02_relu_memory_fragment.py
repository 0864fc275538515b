# 67108864 (inplace=True)
