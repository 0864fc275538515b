w.data = w.data.normal() # 可以使用曲线救国的方法来初始化参数
