import torch
a = torch.tensor(1.0, requires_grad=True)
a_ = a.clone()
y = a**2
z = a ** 2+a_ * 3
y.backward()
print(a.grad) # 2
z.backward()
print(a_.grad)     # None.  Middle variable , none grad
print(a.grad) 
'''
 Output: 
tensor(2.) 
None
tensor(7.) # 2*2+3=7
'''
