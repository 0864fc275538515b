"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): every computation
runs on the lower Cholesky factor, as torch's does."""

from __future__ import annotations

import math
from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.utils import EMPTY_SHAPE, lazy_property, standard_normal
from engine.tensor import Size, Tensor

__all__ = ["MultivariateNormal"]


def batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """Matrix-vector products over broadcast batch dims."""
    return engine.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:  # noqa: N803 - torch's names
    """x^T M^-1 x for M = L L^T, with L's batch dims broadcast against x's."""
    n = bx.size(-1)
    bx_batch_shape = bx.shape[:-1]
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2  # noqa: N806
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    bx_new_shape = bx.shape[:outer_batch_dims]
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):  # noqa: N806
        bx_new_shape += (sx // sL, sL)
    bx_new_shape += (n,)
    bx = bx.reshape(bx_new_shape)
    permute_dims = (list(range(outer_batch_dims)) + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2)) + [new_batch_dims])
    bx = bx.permute(permute_dims)
    flat_L = bL.reshape(-1, n, n)  # noqa: N806
    flat_x = bx.reshape(-1, flat_L.size(0), n)
    flat_x_swap = flat_x.permute(1, 2, 0)
    M_swap = engine.linalg.solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)  # noqa: N806
    M = M_swap.t()  # noqa: N806
    permuted_M = M.reshape(bx.shape[:-1])  # noqa: N806
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    return permuted_M.permute(permute_inv_dims).reshape(bx_batch_shape)


def _precision_to_scale_tril(P: Tensor) -> Tensor:  # noqa: N803
    Lf = engine.linalg.cholesky(engine.flip(P, (-2, -1)))  # noqa: N806
    L_inv = engine.transpose(engine.flip(Lf, (-2, -1)), -2, -1)  # noqa: N806
    Id = engine.eye(P.shape[-1], dtype=P.dtype, device=P.device)  # noqa: N806
    return engine.linalg.solve_triangular(L_inv, Id, upper=False)


class MultivariateNormal(Distribution):
    """A multivariate normal given its mean and one of covariance, precision or scale_tril."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = engine.broadcast_shapes(scale_tril.shape[:-2], loc.shape[:-1])
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = engine.broadcast_shapes(covariance_matrix.shape[:-2], loc.shape[:-1])
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = engine.broadcast_shapes(precision_matrix.shape[:-2], loc.shape[:-1])
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = engine.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        return engine.matmul(self._unbroadcasted_scale_tril, self._unbroadcasted_scale_tril.mT).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        raise NotImplementedError("MultivariateNormal.precision_matrix needs torch.cholesky_inverse, which "
                                  "tensorscope's engine does not model yet")

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)  # noqa: N806
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self) -> Tensor:
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det  # noqa: N806
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
