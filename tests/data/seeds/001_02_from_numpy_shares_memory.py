import torch as t
import numpy as np
a = np.ones(4)
b = t.from_numpy(a) # Numpy->Tensor
print(a)
print(b)
''' Output: 
[1. 1. 1. 1.]
tensor([1., 1., 1., 1.], dtype=torch.float64)
'''
b.add_(1)# add_ Will modify b Oneself 
print(a)
print(b)
''' Output: 
[2. 2. 2. 2.]
tensor([2., 2., 2., 2.], dtype=torch.float64)
b Go on add After operation , a,b Synchronization has changed 
'''
