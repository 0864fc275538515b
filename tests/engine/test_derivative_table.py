"""The derivative table, op by op, against torch 2.13: first and second derivatives.

Every sample builds its inputs (float64, after manual_seed(0) on both sides, so the same numbers),
runs one op, and takes `autograd.grad(out, inputs, go, create_graph=True)` with a grad_output `go`
that itself requires grad, then the gradient of a random combination of those first gradients with
respect to the inputs and `go` (Hessian-vector products, and the *BackwardBackward nodes' own
derivatives). Compared with torch: the output's grad_fn name, version and values; each first
gradient's whole graph (graph_desc: node names and edges), version, strides and values; the second
derivatives' values. A last test checks that the samples reach every node class in the table, so a
rule added without a sample fails here.

This is the fixed slice CI runs (seed 0); DERIVATIVE_SWEEP_SEEDS=0,1,2,... sweeps more inputs.
"""

from __future__ import annotations

import hashlib
import math
import os

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import engine  # noqa: E402
import engine.nn.functional as EF  # noqa: E402
from engine.autograd.derivatives import (  # noqa: E402
    complex,
    copying,
    indexing,
    linalg,
    nn,
    pointwise,
    recurrent,
    reduction,
    views,
)

SEEDS = [int(s) for s in os.environ.get("DERIVATIVE_SWEEP_SEEDS", "0").split(",")]

# (expression over inputs a, b, c; their kinds: p = rand + 0.5 (positive), r = randn; then the shape)
SAMPLES = [
    # pointwise
    ("a.abs()", "r3"), ("a + b", "r3 r3"), ("a + 2", "r3"), ("torch.addcdiv(a, b, c, value=0.5)", "r3 r3 p3"),
    ("torch.addcmul(a, b, c, value=0.5)", "r3 r3 r3"), ("a.ceil()", "r3"), ("a.clamp(-0.5, 0.5)", "r4"),
    ("a.clamp(max=0.2)", "r4"), ("a.clamp(min=0.2)", "r4"), ("a.cos()", "r3"), ("a / b", "r3 p3"), ("a / 2", "r3"),
    ("torch.div(a, b, rounding_mode='trunc')", "r3 p3"), ("a.erf()", "r3"), ("F.hardtanh(a, -0.5, 0.5)", "r4"), ("F.relu6(a * 4)", "r4"),
    ("F.hardtanh(a.clone(), -0.5, 0.5, inplace=True)", "r4"), ("torch.asin(a.tanh() * 0.9)", "r3"), ("torch.acos(a.tanh() * 0.9)", "r3"),
    ("a.atan()", "r3"), ("a.sinh()", "r3"), ("a.cosh()", "r3"), ("a.asinh()", "r3"), ("(a + 1.5).acosh()", "p3"),
    ("(a.tanh() * 0.9).atanh()", "r3"), ("a.erfc()", "r3"), ("a.exp2()", "r3"), ("a.frac()", "r3"), ("a.exp()", "r3"), ("a.expm1()", "r3"),
    ("a.floor()", "r3"), ("F.gelu(a)", "r4"), ("F.gelu(a, approximate='tanh')", "r4"), ("F.leaky_relu(a, 0.1)", "r4"),
    ("F.leaky_relu(a.clone(), 0.1, inplace=True)", "r4"), ("torch.lerp(a, b, 0.3)", "r3 r3"), ("a.log10()", "p3"),
    ("a.log1p()", "p3"), ("a.log2()", "p3"), ("a.log()", "p3"), ("torch.maximum(a, b)", "r4 r4"),
    ("torch.minimum(a, b)", "r4 r4"), ("a * b", "r3 r3"), ("a * 2", "r3"), ("-a", "r3"), ("a ** 3", "r3"),
    ("a ** b", "p3 r3"), ("2 ** a", "r3"), ("a.reciprocal()", "p3"), ("F.relu(a)", "r4"), ("torch.remainder(a, 0.7)", "p3"),
    ("torch.remainder(a, b)", "p3 p3"), ("a.round()", "r3"), ("a.rsqrt()", "p3"), ("torch.rsub(a, b)", "r3 r3"),
    ("2 - a", "r3"), ("a.sgn()", "r3"), ("a.sigmoid()", "r3"), ("a.sign()", "r3"), ("a.sin()", "r3"), ("a.sqrt()", "p3"),
    ("a - b", "r3 r3"), ("a - 2", "r3"), ("a.tan()", "r3"), ("a.tanh()", "r3"), ("F.threshold(a, 0.1, 0.0)", "r4"),
    ("F.threshold(a.clone(), 0.1, 0.0, inplace=True)", "r4"),
    ("a.trunc()", "r3"), ("torch.clamp_max(a, 0.2)", "r4"), ("torch.clamp_min(a, 0.2)", "r4"), ("a // b", "r3 p3"), ("torch.where(a > 0, a, b)", "r4 r4"), ("a.square()", "r3"), ("a.clone().relu_()", "r4"), ("torch.logit(a.sigmoid())", "r4"), ("torch.logit(a, 0.2)", "p4"),
    ("a.sigmoid().logit_(0.3)", "r4"), ("torch.special.logit(a * 0.5 + 0.5)", "r4"),
    # reductions
    ("a.median()", "r2x3"), ("a.median(1)[0]", "r2x3"), ("a.median(1, keepdim=True)[0]", "r2x3"),
    ("a.nanmedian()", "r2x3"), ("a.nanmedian(0)[0]", "r2x3"), ("a.amax(1)", "r2x3"), ("a.amin(1)", "r2x3"), ("a.cumsum(1)", "r2x3"), ("torch.linalg.vector_norm(a)", "r2x3"),
    ("a.norm(p=1, dim=1)", "r2x3"), ("F.log_softmax(a, dim=1)", "r2x3"), ("a.logsumexp(1)", "r2x3"), ("a.max()", "r2x3"),
    ("a.max(1)[0]", "r2x3"), ("a.mean()", "r2x3"), ("a.mean(1)", "r2x3"), ("a.min()", "r2x3"), ("a.min(1)[0]", "r2x3"),
    ("a.prod()", "p2x3"), ("a.prod(1)", "p2x3"), ("F.softmax(a, dim=1)", "r2x3"), ("a.std()", "r2x3"),
    ("torch.std_mean(a, dim=1)[0] + torch.std_mean(a, dim=1)[1]", "r2x3"), ("a.sum()", "r2x3"), ("a.sum(1)", "r2x3"),
    ("a.var(1)", "r2x3"), ("sum(torch.var_mean(a, 1))", "r2x3"),
    # views
    ("a.as_strided((2, 2), (1, 2), 1)", "r2x3"), ("a.clone().as_strided_((2, 2), (1, 2), 1)", "r2x3"),
    ("a.diagonal()", "r3x3"), ("a.expand(2, 3)", "r1x3"), ("a.permute(1, 0)", "r2x3"), ("a[0]", "r2x3"),
    ("a[:, 1:]", "r2x3"), ("a.split(1)[1]", "r2x3"), ("a.split([1, 2], 1)[1]", "r2x3"), ("a.squeeze()", "r1x3"),
    ("a.squeeze(0)", "r1x3"), ("a.clone().squeeze_()", "r1x3"), ("a.clone().squeeze_(0)", "r1x3"),
    ("a.squeeze((0, 2))", "r1x3x1"), ("a.t()", "r2x3"), ("a.clone().t_()", "r2x3"), ("a.transpose(0, 1)", "r2x3"),
    ("a.clone().transpose_(0, 1)", "r2x3"), ("a.unbind(1)[2]", "r2x3"), ("a.unbind(0)[0]", "r1x3"), ("a.split(1)[0]", "r1x3"), ("a.unfold(1, 2, 1)", "r2x3"),
    ("a.t().reshape(-1)", "r2x3"), ("a[:, :2].reshape(2, 1, 2)", "r2x3"), ("a.unsqueeze(1)", "r2x3"), ("a.clone().unsqueeze_(1)", "r2x3"), ("a.view(3, 2)", "r2x3"),
    ("a.clone().view_as(a)", "r2x3"), ("a[...]", "r2x3"), ("torch.unsafe_split(a, 1)[1]", "r2x3"),
    ("torch.unsafe_split_with_sizes(a, [1, 2], 1)[1]", "r2x3"),
    # indexing
    ("torch.cat([a, b], 1)", "r2x3 r2x2"), ("torch.diag(a)", "r3"), ("torch.diag(a, 1)", "r3"), ("a.flip(1)", "r2x3"),
    ("a.gather(1, torch.tensor([[0, 2], [1, 1]]))", "r2x3"), ("a.index_add(1, torch.tensor([0, 2]), b)", "r2x3 r2x2"),
    ("a[torch.tensor([1, 0, 1])]", "r2x3"), ("a.index_copy(1, torch.tensor([2, 0]), b)", "r2x3 r2x2"),
    ("a.index_fill(1, torch.tensor([1]), 0.5)", "r2x3"), ("a.index_fill(1, torch.tensor([1]), b)", "r2x3 r0"),
    ("a.index_put((torch.tensor([1, 0]),), b)", "r2x3 r2x3"), ("a.index_select(1, torch.tensor([2, 0, 2]))", "r2x3"),
    ("a.masked_fill(a > 0, 0.5)", "r2x3"), ("a.masked_fill(a > 0, b)", "r2x3 r0"),
    ("a.masked_scatter(a > 0, b)", "r2x3 r2x3"), ("a.masked_select(a > 0)", "r2x3"),
    ("a.clone().put_(torch.tensor([1, 4]), b)", "r2x3 r2"), ("a.put(torch.tensor([1, 4]), b)", "r2x3 r2"), ("a.clone().put_(torch.tensor([1, 1]), b, accumulate=True)", "r2x3 r2"), ("a.repeat(2, 1)", "r2x3"), ("a.roll(1, 1)", "r2x3"),
    ("a.clone().scatter_add_(1, torch.tensor([[0, 2], [1, 1]]), b)", "r2x3 r2x2"),
    ("a.scatter(1, torch.tensor([[0, 2], [1, 0]]), b)", "r2x3 r2x2"), ("a.scatter(1, torch.tensor([[0, 2], [1, 0]]), 0.5)", "r2x3"),
    ("a.sort(1)[0]", "r2x3"), ("a.cumprod(1)", "r2x3"), ("a.round(decimals=1)", "r2x3"), ("a.unique()", "r4"),
    ("a.unique(dim=0)", "r2x3"), ("a.clone().round_(decimals=1)", "r2x3"), ("torch.stack([a, b])", "r2x3 r2x3"), ("a.take(torch.tensor([0, 5, 2]))", "r2x3"),
    ("a.topk(2, 1)[0]", "r2x3"), ("a.tril()", "r3x3"), ("a.triu(1)", "r3x3"), ("idx_put(a, b)", "r2x3 r3"),
    # copying
    ("a.clone()", "r2x3"), ("a.clone().copy_(b)", "r2x3 r3"), ("a.to(torch.float32)", "r2x3"), ("a.clone().fill_(0.5)", "r2x3"),
    ("a.clone().fill_(b)", "r2x3 r0"), ("a.clone().zero_()", "r2x3"), ("a.clone().uniform_()", "r2x3"),
    ("a.clone().normal_()", "r2x3"), ("a.clone().bernoulli_(0.5)", "r2x3"), ("a.clone().exponential_()", "r2x3"),
    ("a.clone().random_(0, 5)", "r2x3"), ("a.clone().random_(5)", "r2x3"), ("a.clone().random_()", "r2x3"),
    ("a.clone().bernoulli_(b.sigmoid().detach())", "r2x3 r2x3"),
    # linalg
    ("torch.addmm(a, b, c)", "r2x2 r2x3 r3x2"), ("torch.bmm(a, b)", "r2x2x3 r2x3x2"), ("torch.dot(a, b)", "r3 r3"),
    ("a @ b", "r2x3 r3x2"), ("torch.mv(a, b)", "r2x3 r3"),
    ("torch.baddbmm(a, b, c, beta=0.5, alpha=2)", "r2x2x2 r2x2x3 r2x3x2"), ("torch.baddbmm(a, b, c)", "r2 r2x2x3 r2x3x2"),
    ("a.trace()", "r3x4"), ("a.trace()", "r4x2"), ("torch.dist(a, b)", "r2x3 r3"), ("torch.dist(a, b, 1)", "r2x3 r2x3"), ("torch.linalg.inv(spd(a))", "r3x3"),
    ("torch.linalg.det(a)", "r3x3"), ("torch.linalg.slogdet(spd(a))[1]", "r3x3"), ("torch.linalg.det(a)", "r2x3x3"),
    ("torch.linalg.slogdet(spd(a))[1]", "r2x3x3"),
    ("torch.linalg.solve(spd(a), b)", "r3x3 r3x2"), ("torch.linalg.solve(spd(a), b)", "r3x3 r3"),
    ("torch.linalg.cholesky(spd(a))", "r3x3"), ("torch.linalg.cholesky(spd(a), upper=True)", "r3x3"),
    ("sum(torch.linalg.qr(a))", "r3x3"), ("torch.linalg.qr(a)[1]", "r4x3"),
    ("sum(torch.linalg.eigh(spd(a)))", "r3x3"), ("torch.linalg.eigvalsh(spd(a))", "r3x3"),
    ("torch.linalg.svdvals(a)", "r3x4"), ("torch.linalg.svdvals(a)", "r4x3"),
    ("torch.linalg.svd(a)[1]", "r4x3"), ("torch.linalg.svd(a)[1]", "r3x4"), ("sum(torch.linalg.svd(a, full_matrices=False))", "r3x3"),
    ("torch.linalg.svd(a, full_matrices=False)[2]", "r3x4"), ("torch.linalg.svd(a, False)[2]", "r4x3"), ("torch.linalg.svd(a, full_matrices=False)[0]", "r3x4"),
    ("torch.linalg.svd(a)[0]", "r3x4"), ("torch.linalg.svd(a)[2]", "r3x4"), ("sum(torch.linalg.svd(a, full_matrices=False))", "r2x3x3"),
    ("torch.linalg.eigh(a + a.mT)[1]", "r3x3"), ("torch.linalg.eigh(a + a.mT)[1].abs()", "r2x3x3"), ("torch.linalg.eigvalsh(a + a.mT)", "r3x3"),
    ("torch.linalg.qr(a)[0]", "r4x3"), ("torch.linalg.qr(a)[0]", "r3x4"), ("torch.linalg.qr(a)[1]", "r3x4"),
    ("torch.linalg.qr(a)[0] @ torch.linalg.qr(a)[1]", "r3x4"), ("sum(torch.linalg.qr(a))", "r2x4x3"),
    ("torch.linalg.solve_triangular(a.triu() + torch.eye(3, dtype=a.dtype) * 3, b, upper=True)", "r3x3 r3x2"),
    ("torch.linalg.solve_triangular(a.tril() + torch.eye(3, dtype=a.dtype) * 3, b, upper=False, left=False)", "r3x3 r2x3"),
    ("torch.linalg.solve_triangular(a, b, upper=True, unitriangular=True)", "r3x3 r3x2"),
    # nn
    ("F.adaptive_avg_pool2d(a, 2)", "r1x2x4x4"), ("F.avg_pool2d(a, 2)", "r1x2x4x4"),
    ("F.binary_cross_entropy(a.sigmoid(), b.sigmoid())", "r2x3 r2x3"), ("F.pad(a, (1, 2))", "r2x3"),
    ("F.conv2d(a, b, c, padding=1)", "r1x2x4x4 r3x2x3x3 r3"), ("F.max_pool2d(a, 2)", "r1x2x4x4"),
    ("F.mse_loss(a, b)", "r2x3 r2x3"), ("F.batch_norm(a, None, None, b, c, training=True)", "r4x3 r3 r3"),
    ("F.layer_norm(a, (3,), b, c)", "r2x3 r3 r3"), ("F.nll_loss(F.log_softmax(a, 1), torch.tensor([0, 2]))", "r2x3"),
    ("F.nll_loss(F.log_softmax(a, 1), torch.tensor([[[0, 2], [1, 1]]]))", "r1x3x2x2"),
    # more activations
    ("F.silu(a)", "r4"), ("F.mish(a)", "r4"), ("F.softplus(a, beta=2, threshold=1)", "r4"), ("F.elu(a, 0.5)", "r4"),
    ("F.elu(a.clone(), 0.5, inplace=True)", "r4"), ("F.celu(a, 0.5)", "r4"), ("F.celu(a.clone(), 0.5, inplace=True)", "r4"),
    ("F.selu(a)", "r4"), ("F.hardswish(a * 4)", "r4"), ("F.hardsigmoid(a * 4)", "r4"), ("F.logsigmoid(a)", "r4"),
    ("F.glu(a)", "r2x4"), ("F.glu(a, 0)", "r4x3"), ("F.prelu(a, b)", "r2x3x2 r3"), ("F.prelu(a, b)", "r2x3 r1"),
    ("F.softsign(a)", "r4"), ("F.tanhshrink(a)", "r4"), ("F.softmin(a, 1)", "r2x3"),
    # more losses
    ("F.binary_cross_entropy_with_logits(a, b.sigmoid())", "r2x3 r2x3"),
    ("F.binary_cross_entropy_with_logits(a, b.sigmoid(), weight=torch.tensor([1., 2., 0.5], dtype=torch.float64), "
     "pos_weight=torch.tensor([3., 1., 2.], dtype=torch.float64), reduction='sum')", "r2x3 r2x3"),
    ("F.smooth_l1_loss(a, b, beta=0.5)", "r2x3 r2x3"), ("F.smooth_l1_loss(a, b, reduction='none')", "r2x3 r2x3"),
    ("F.smooth_l1_loss(a, b, beta=0)", "r2x3 r2x3"), ("F.huber_loss(a, b, delta=0.5)", "r2x3 r2x3"),
    ("F.huber_loss(a, b, reduction='sum')", "r2x3 r2x3"),
    ("F.kl_div(F.log_softmax(a, 1), b.softmax(1), reduction='batchmean')", "r2x3 r2x3"),
    ("F.kl_div(a, b, reduction='sum', log_target=True)", "r2x3 r2x3"), ("torch.xlogy(a, b)", "p3 p3"),
    ("torch.xlogy(2., a)", "p3"), ("torch.xlogy(a, 3.)", "r3"), ("torch.xlogy(a, 0.)", "r3"),
    # distances
    ("F.normalize(a)", "r2x3"), ("F.normalize(a, p=1, dim=0)", "r2x3"), ("F.cosine_similarity(a, b)", "r2x3 r2x3"),
    ("F.cosine_similarity(a, b, dim=-1)", "r2x3 r3"), ("F.pairwise_distance(a, b)", "r2x3 r2x3"),
    ("F.pairwise_distance(a, b, p=1, keepdim=True)", "r2x3 r3"),
    # 1-D convolution and pools
    ("F.conv1d(a, b, c, padding=1)", "r2x2x5 r3x2x3 r3"), ("F.conv1d(a, b, stride=2, dilation=2)", "r1x2x7 r2x2x2"),
    ("F.conv1d(a, b, padding='same')", "r2x5 r3x2x2"), ("F.max_pool1d(a, 2)", "r1x2x6"),
    ("F.avg_pool1d(a, 3, 2, 1)", "r1x2x6"), ("F.adaptive_avg_pool1d(a, 4)", "r1x2x6"),
    # normalisation and reshaping
    ("F.rms_norm(a, (3,), b)", "r2x3 r3"), ("F.rms_norm(a, (2, 3))", "r2x2x3"), ("F.instance_norm(a)", "r2x2x3"),
    ("F.instance_norm(a, weight=b, bias=c)", "r2x2x3 r2 r2"), ("F.pixel_shuffle(a, 2)", "r1x4x2x3"),
    ("F.pixel_unshuffle(a, 2)", "r1x1x4x2"),
    # upsampling
    ("F.interpolate(a, scale_factor=2)", "r1x2x3"), ("F.interpolate(a, size=(3, 5))", "r1x1x2x3"),
    ("F.interpolate(a, size=7, mode='linear')", "r1x2x3"),
    ("F.interpolate(a, scale_factor=1.5, mode='linear', align_corners=True)", "r1x1x4"),
    ("F.interpolate(a, scale_factor=2, mode='bilinear')", "r1x1x2x3"),
    ("F.interpolate(a, size=(3, 4), mode='bilinear', align_corners=True)", "r1x2x2x3"),
    # tensor and torch functions
    ("a.clone().tril_()", "r3x3"), ("a.clone().triu_(1)", "r3x3"), ("a.clone().cumsum_(1)", "r2x3"),
    ("a.clone().addmm_(b, c, beta=0.5, alpha=2)", "r2x2 r2x3 r3x2"), ("torch.clamp_min_(a.clone(), 0.2)", "r4"),
    ("a.tile((2, 1))", "r2x3"), ("a.tile(2)", "r3"), ("torch.diff(a)", "r2x4"), ("torch.diff(a, n=2, dim=0)", "r4x2"),
    ("torch.diff(a, prepend=b, append=b)", "r2x3 r2x1"), ("torch.take_along_dim(a, torch.tensor([[0], [2]]), 1)", "r2x3"),
    ("torch.take_along_dim(a, torch.tensor([0, 5, 5]))", "r2x3"), ("torch.rot90(a)", "r2x3"),
    ("torch.rot90(a, 2, (1, 0))", "r2x3"), ("torch.rot90(a, -1)", "r2x3x2"), ("torch.nansum(a, 1)", "r2x3"),
    ("torch.nansum(a)", "r2x3"), ("torch.nanmean(a, 0)", "r2x3"), ("torch.cummax(a, 1)[0]", "r2x3"),
    ("torch.cummin(a, 0)[0]", "r3x2"), ("torch.scatter_add(a, 1, torch.tensor([[0, 1, 0], [2, 2, 2]]), b)", "r2x3 r2x3"),
    ("torch.logaddexp(a, b)", "r2x3 r2x3"), ("torch.logaddexp2(a, b)", "r2x3 r3"), ("torch.nan_to_num(a)", "r2x3"),
    ("torch.nan_to_num(a / 0)", "r2x3"), ("a.clone().nan_to_num_(1.0)", "r2x3"), ("torch.heaviside(a, b)", "r2x3 r3"),
    ("torch.linalg.cross(a, b)", "r2x3 r2x3"), ("torch.cross(a, b, dim=0)", "r3x2 r3x1"),
    ("torch.erfinv(a.tanh())", "r2x3"), ("torch.lgamma(a)", "p2x3"), ("a.digamma()", "p2x3"),
    ("torch.polygamma(2, a)", "p2x3"), ("a.clone().lgamma_()", "p3"),
    ("F.pad(a, (1, 2), mode='reflect')", "r1x2x4"), ("F.pad(a, (1, 1, 2, 0), mode='reflect')", "r1x3x4"),
    ("F.pad(a, (2, 1), mode='replicate')", "r2x3"), ("F.pad(a, (0, 2, 1, 1), mode='replicate')", "r1x1x2x3"),
    ("torch.kron(a, b)", "r2x3 r2x2"), ("torch.kron(a, b)", "r3 r2x2"),
    ("F.margin_ranking_loss(a, b, torch.tensor([1., -1., 1.]), margin=0.3)", "r3 r3"),
    ("F.triplet_margin_loss(a, b, c, swap=True)", "r2x3 r2x3 r2x3"),
    ("F.multilabel_soft_margin_loss(a, b.sigmoid())", "r2x3 r2x3"),
    ("F.hardshrink(a, 0.3)", "r2x3"), ("F.softshrink(a, 0.3)", "r2x3"),
    ("F.embedding(torch.tensor([[1, 3], [1, 0]]), a)", "r4x3"),
    ("F.embedding(torch.tensor([1, 3, 1, 0]), a, padding_idx=1, scale_grad_by_freq=True)", "r4x3"),
    ("F.conv_transpose2d(a, b)", "r1x2x4x4 r2x3x3x3"),
    ("F.conv_transpose2d(a, b, c, stride=2, padding=1, output_padding=1)", "r1x2x3x3 r2x3x3x3 r3"),
    ("F.conv_transpose2d(a, b, groups=2, dilation=2)", "r1x2x4x4 r2x2x2x2"),
    ("F.group_norm(a, 1, b, c)", "r2x2x2x2 r2 r2"), ("F.group_norm(a, 2)", "r1x4x3"),
    ("F.group_norm(a, 2, b)", "r2x4x2x2 r4"), ("F.adaptive_max_pool2d(a, 2)", "r1x2x4x4"),
    ("F.adaptive_max_pool2d(a, (2, 3))", "r2x5x5"),
    ("torch.nn.utils.rnn.pack_padded_sequence(a, torch.tensor([3, 2])).data", "r3x2x2"),
    ("torch.nn.utils.rnn.pack_padded_sequence(a, torch.tensor([3, 1]), batch_first=True).data", "r2x3x2"),
    # binary elementwise ops, out of place and in place
    ("torch.fmod(a, b)", "r3 p3"), ("torch.fmod(a, 0.7)", "r3"), ("a.clone().fmod_(b)", "r2x3 p3"),
    ("torch.atan2(a, b)", "r2x3 r3"), ("a.clone().atan2_(b)", "r3 r3"), ("torch.hypot(a, b)", "r2x3 r1"),
    ("a.clone().hypot_(b)", "r3 r3"), ("torch.lerp(a, b, c)", "r3 r3 r3"), ("a.clone().lerp_(b, c)", "r3 r3 r3"),
    ("torch.fmax(a, b)", "r4 r4"), ("torch.fmin(a, b)", "r4 r4"), ("torch.copysign(a, b)", "r3 r3"),
    ("torch.copysign(a, -2.)", "r3"), ("a.clone().copysign_(b)", "r3 r3"),
    *((f"a.clone().{op}_(b)", "r2x3 r3") for op in ("eq", "ne", "lt", "le", "gt", "ge")),
    *((f"a.clone().{op}_(0.1)", "r3") for op in ("eq", "ne", "lt", "le", "gt", "ge")),
    # complex views and conversions (the outputs are real: view_as_real, .real, .imag)
    ("torch.view_as_real(torch.complex(a, b))", "r3 r3"), ("torch.view_as_real(torch.polar(a, b))", "p3 r3"),
    ("torch.polar(a, b).imag", "p2x3 r3"), ("torch.complex(a, b).conj().imag", "r3 r3"),
    ("torch.complex(a, b).conj().real", "r3 r3"), ("torch.view_as_real(torch.complex(a, b).conj_physical())", "r3 r3"),
    ("torch.view_as_real(torch.complex(a, b).conj_physical_())", "r3 r3"),
    ("torch.view_as_real(torch.view_as_complex(a).conj_physical())", "r3x2"),
    ("torch.view_as_real(torch.complex(a, b).sgn())", "r3 r3"),
    ("torch.view_as_real(torch.view_as_complex(a) * torch.complex(b, b))", "r3x2 r3"),
    ("torch.view_as_real(torch.view_as_complex(a) * (2 + 1j))", "r3x2"),
    ("torch.view_as_real(torch.complex(a, b) / torch.complex(b, a))", "r3 r3"),
    ("torch.view_as_real(torch.view_as_complex(a) * b)", "r3x2 r3"), ("torch.view_as_real(torch.view_as_complex(a) / b)", "r3x2 p3"),
    # clamp with tensor bounds
    ("torch.clamp(a, b, c)", "r4 r4 r4"), ("torch.clamp(a, max=b)", "r2x4 r4"), ("torch.clamp_min(a, b)", "r4 r4"),
    ("torch.clamp_max(a, b)", "r4 r4"), ("a.clone().clamp_(b, c)", "r4 r4 r1"),
]

XFAIL: dict[str, str] = {}  # expression -> why it still differs from torch (a strict xfail)

# samples whose first derivatives' graphs are not compared (values are), and why
GRAPH_SPELLED_DIFFERENTLY = {expr: "torch's infinitely differentiable group norm backward is its own composite; the "
                              "engine's formula takes other steps to the same values" for expr, _ in SAMPLES
                              if expr.startswith("F.group_norm")}

# nodes no sample reaches yet, and why
UNREACHED = {"UniqueConsecutiveBackward0": "its backward raises, in torch as here: test_missing_statistics compares the error",
             "MkldnnRnnLayerBackward0": "a float32 layer: compared by test_an_lstm_gradient_penalty_as_torch",
             "ScaledDotProductFlashAttentionForCpuBackward0": "its double backward fails in torch: compared by "
             "test_flash_attention_double_backward_fails_as_in_torch"}


def _parse(kind: str) -> tuple[str, tuple[int, ...]]:
    shape = kind[1:]
    return kind[0], (() if shape == "0" else tuple(int(s) for s in shape.split("x")))


def _values(t) -> list[float]:
    t = t.detach()
    if getattr(t, "_is_zerotensor", lambda: False)():  # torch's efficient zero tensors are plain zeros here
        return [0.0] * t.numel()
    return [round(v, 6) for v in t.double().flatten().tolist()]


def _desc(fn) -> str:
    if fn is None:
        return "None"
    return type(fn).__name__ + "(" + ", ".join(_desc(n) for n, _ in fn.next_functions) + ")"


def _names(fn, seen: dict) -> None:
    if fn is None or id(fn) in seen:
        return
    seen[id(fn)] = type(fn).__name__
    for n, _ in fn.next_functions:
        _names(n, seen)


def run(T, F, expr: str, kinds: str, seed: int, graphs: bool = True) -> tuple[dict, set[str]]:
    """What one sample does in T (torch or the engine), as plain data, and the node names it met."""
    T.manual_seed(seed)
    inputs = []
    for kind in kinds.split():
        k, shape = _parse(kind)
        t = T.rand(shape, dtype=T.float64) + 0.5 if k == "p" else T.randn(shape, dtype=T.float64)
        inputs.append(t.requires_grad_())

    def idx_put(a, b):
        c = a.clone()
        c[T.tensor([1, 0, 1]), T.tensor([2, 0, 2])] = b
        return c

    def spd(a):  # a well-conditioned symmetric positive-definite matrix made from a
        return a @ a.mT + T.eye(a.shape[-1], dtype=a.dtype) * 3

    ns = dict(zip("abc", inputs), torch=T, F=F, idx_put=idx_put, spd=spd)
    rec: dict = {}
    names: dict = {}
    try:
        out = eval(expr, ns)  # noqa: S307 - our own sample expressions
    except Exception as e:  # noqa: BLE001 - the error is part of what is compared
        return {"forward error": f"{type(e).__name__}: {e}"}, set()
    rec["out"] = (out.grad_fn.name() if out.grad_fn else None, out._version, _values(out))
    _names(out.grad_fn, names)
    go = T.randn(out.shape, dtype=out.dtype).requires_grad_(out.dtype.is_floating_point)
    try:
        first = T.autograd.grad(out, inputs, go, create_graph=True, allow_unused=True)
    except Exception as e:  # noqa: BLE001
        rec["first error"] = f"{type(e).__name__}: {e}"
        return rec, set(names.values())
    rec["first"] = [None if g is None else (_desc(g.grad_fn) if graphs else g.requires_grad, g._version,
                                            list(g.stride()), _values(g))
                    for g in first]
    for g in first:
        if g is not None:
            _names(g.grad_fn, names)
    differentiable = [g for g in first if g is not None and g.requires_grad]
    if differentiable:
        weights = [T.randn(g.shape, dtype=g.dtype) for g in differentiable]
        total = sum((g * w).sum() for g, w in zip(differentiable, weights))
        try:
            second = T.autograd.grad(total, inputs + ([go] if go.requires_grad else []), allow_unused=True)
            rec["second"] = [None if g is None else _values(g) for g in second]
        except Exception as e:  # noqa: BLE001
            rec["second error"] = f"{type(e).__name__}: {e}"
    return rec, set(names.values())


def _close(x, y) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(x) and math.isnan(y))
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_close(p, q) for p, q in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_close(x[k], y[k]) for k in x)
    return x == y


def _params():
    for expr, kinds in SAMPLES:
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[expr])] if expr in XFAIL else []
        for seed in SEEDS:
            yield pytest.param(expr, kinds, seed, id=f"{expr} [seed {seed}]", marks=marks)


@pytest.mark.parametrize(("expr", "kinds", "seed"), list(_params()))
def test_first_and_second_derivatives_as_torch(expr, kinds, seed):
    graphs = expr not in GRAPH_SPELLED_DIFFERENTLY
    expected, _ = run(torch, TF, expr, kinds, seed, graphs)
    got, _ = run(engine, EF, expr, kinds, seed, graphs)
    if not _close(expected, got):
        assert got == expected


def test_every_node_of_the_table_is_exercised():
    table = set()
    for family in (pointwise, reduction, views, indexing, copying, linalg, nn, complex, recurrent):
        table |= set(family.DERIVATIVES)
    met: set[str] = set()
    for expr, kinds in SAMPLES:
        met |= run(engine, EF, expr, kinds, 0)[1]
    assert sorted(table - met - set(UNREACHED)) == []


def _gru_cell_gradient_penalty(T) -> list[float]:
    T.manual_seed(0)
    cell = T.nn.GRUCell(3, 4).double()
    x = T.randn(2, 3, dtype=T.float64, requires_grad=True)
    h = T.randn(2, 4, dtype=T.float64, requires_grad=True)
    (gx,) = T.autograd.grad(cell(x, h).sum(), [x], create_graph=True)
    (gh,) = T.autograd.grad((gx ** 2).sum(), [h])
    return _values(gh)


def test_a_gru_cell_gradient_penalty_differentiates_its_unsafe_chunks_as_torch():
    assert _close(_gru_cell_gradient_penalty(engine), _gru_cell_gradient_penalty(torch))


def _attention_double_backward(T, F, kwargs: dict) -> dict:
    """What create_graph through flash attention gives in T: torch has no derivative of its backward."""
    T.manual_seed(0)
    q, k, v = (T.randn(1, 2, 3, 4, dtype=T.float64, requires_grad=True) for _ in range(3))
    if "attn_mask" in kwargs:
        kwargs = {"attn_mask": T.randn(3, 3, dtype=T.float64)}
    out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    go = T.randn(out.shape, dtype=out.dtype, requires_grad=True)
    first = T.autograd.grad(out, [q, k, v], go, create_graph=True)
    rec = {"first": [(_desc(g.grad_fn), _values(g)) for g in first]}
    try:
        T.autograd.grad(sum(g.sum() for g in first), [q, k, v, go])
    except RuntimeError as e:
        rec["second error"] = str(e)
    return rec


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"attn_mask": True}], ids=["plain", "causal", "mask"])
def test_flash_attention_double_backward_fails_as_in_torch(kwargs):
    expected = _attention_double_backward(torch, TF, kwargs)
    assert "is not implemented" in expected["second error"]
    assert _close(_attention_double_backward(engine, EF, kwargs), expected)


def _checkpointed_gradient_penalty(T) -> dict:
    """A gradient penalty through a non-reentrant checkpoint: each backward reruns the block for itself,
    so the second autograd.grad finds the saved tensors the first one consumed."""
    T.manual_seed(0)
    layer = T.nn.Linear(3, 3).double()
    x = T.randn(2, 3, dtype=T.float64, requires_grad=True)
    out = T.utils.checkpoint.checkpoint(lambda t: layer(t).tanh(), x, use_reentrant=False)
    (gx,) = T.autograd.grad(out.sum(), [x], create_graph=True)
    second = T.autograd.grad((gx * gx).sum(), [x, layer.weight])
    return {"first": (_desc(gx.grad_fn), _values(gx)), "second": [_values(g) for g in second]}


def test_a_gradient_penalty_through_a_checkpoint_as_torch():
    assert _close(_checkpointed_gradient_penalty(engine), _checkpointed_gradient_penalty(torch))


def _hooked_gradient_penalty(T) -> dict:
    """A gradient penalty through a module with a full backward hook: the hook's identity nodes keep
    the gradients' history, and the hook sees the gradients flowing through."""
    T.manual_seed(0)
    layer = T.nn.Linear(3, 2).double()
    seen = []
    layer.register_full_backward_hook(lambda module, gi, go: seen.append([_values(g) for g in gi + go]))
    x = T.randn(4, 3, dtype=T.float64, requires_grad=True)
    (gx,) = T.autograd.grad(layer(x).tanh().sum(), [x], create_graph=True)
    (gw,) = T.autograd.grad((gx ** 2).sum(), [layer.weight])
    return {"first": (_desc(gx.grad_fn), _values(gx)), "second": _values(gw), "hook saw": seen}


def test_a_full_backward_hook_keeps_the_gradients_history_as_torch():
    assert _close(_hooked_gradient_penalty(engine), _hooked_gradient_penalty(torch))


def _graph_signature(fn, memo: dict) -> str:
    """_desc's text, hashed node by node: an LSTM's gradient graph shares subgraphs too often to print."""
    if fn is None:
        return "None"
    if id(fn) not in memo:
        text = type(fn).__name__ + "(" + ", ".join(_graph_signature(n, memo) for n, _ in fn.next_functions) + ")"
        memo[id(fn)] = hashlib.sha1(text.encode()).hexdigest()
    return memo[id(fn)]


def _lstm_gradient_penalty(T, bidirectional: bool, state: bool) -> dict:
    """create_graph through the fused float32 LSTM layer (MkldnnRnnLayerBackward0): torch switches to its
    differentiable backward (the gates recomputed, backpropagation through time in ops); the gradients'
    graphs are compared, and their values in float32's precision."""
    T.manual_seed(0)
    lstm = T.nn.LSTM(3, 4, bidirectional=bidirectional)
    x = T.randn(5, 2, 3, requires_grad=True)
    layers = 2 if bidirectional else 1
    hx = (T.randn(layers, 2, 4, requires_grad=True), T.randn(layers, 2, 4, requires_grad=True)) if state else None
    out, (h, c) = lstm(x, hx)
    inputs = [x, *lstm.parameters(), *(hx or ())]
    first = T.autograd.grad(out.sum() + (h * h).sum() + c.sum(), inputs, create_graph=True)
    memo: dict = {}
    graphs = [_graph_signature(g.grad_fn, memo) for g in first]
    second = T.autograd.grad(sum((g * g).sum() for g in first), inputs)
    return {"node": out.grad_fn.name() if not bidirectional else None, "graphs": graphs,
            "first": [_values(g) for g in first], "second": [_values(g) for g in second]}


def _close_float32(x, y) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-5)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_close_float32(p, q) for p, q in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_close_float32(x[k], y[k]) for k in x)
    return x == y


@pytest.mark.parametrize(("bidirectional", "state"), [(False, False), (True, True)], ids=["plain", "bidirectional"])
def test_an_lstm_gradient_penalty_as_torch(bidirectional, state):
    expected = _lstm_gradient_penalty(torch, bidirectional, state)
    got = _lstm_gradient_penalty(engine, bidirectional, state)
    if not _close_float32(got, expected):
        assert got == expected


def test_every_unary_op_is_differentiated_by_the_table():
    """The unary ops carry no backward of their own: each node they record has a table rule."""
    from engine.autograd.node import node_type
    from engine.ops.pointwise import UNARY

    assert [name for name, _, _ in UNARY.values() if node_type(name).formula is None] == []
