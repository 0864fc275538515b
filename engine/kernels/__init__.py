"""Pure numpy forward/backward kernels for the neural-network ops; the Tensor layer wraps them."""
