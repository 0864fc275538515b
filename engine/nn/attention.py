"""nn.MultiheadAttention and the Transformer encoder, composed as torch composes them.

multi_head_attention_forward follows torch.nn.functional: one packed input projection, heads folded
into the batch, then either the explicit path (bmm / baddbmm, softmax, bmm: the L x S score matrix
of every head is a tensor of its own, saved by the softmax for backward) when the weights are
wanted, or scaled_dot_product_attention (a fused node that keeps no score matrix) when they are not.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from engine import dtypes
from engine.nn import functional as F
from engine.nn import init
from engine.nn.layers import Dropout, LayerNorm, Linear, ModuleList
from engine.nn.module import Module
from engine.ops import contraction, factories, indexing, linalg, pointwise, reduction, views
from engine.tensor import Parameter, Tensor


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's output projection (torch names the class this way)."""


def _canonical_mask(mask: Tensor | None, target: dtypes.dtype) -> Tensor | None:
    """Boolean masks become additive float masks (-inf where True); float masks pass through."""
    if mask is None or mask.dtype.is_floating_point:
        return mask
    if mask.dtype is not dtypes.bool_:
        raise AssertionError("only bool and floating types of masks are supported")
    return factories.zeros_like(mask, dtype=target).masked_fill_(mask, float("-inf"))


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, weight: Tensor, bias: Tensor | None) -> list[Tensor]:
    embed = q._shape[-1]
    if k is v:
        if q is k:
            proj = F.linear(q, weight, bias)
            proj = views.unflatten(proj, -1, (3, embed))
            proj = views.squeeze(views.transpose(views.unsqueeze(proj, 0), 0, -2), -2).contiguous()
            return [views.select(proj, 0, i) for i in range(3)]
        w_q, w_kv = views.split(weight, [embed, embed * 2])
        b_q, b_kv = views.split(bias, [embed, embed * 2]) if bias is not None else (None, None)
        q_proj = F.linear(q, w_q, b_q)
        kv = F.linear(k, w_kv, b_kv)
        kv = views.squeeze(views.transpose(views.unsqueeze(views.unflatten(kv, -1, (2, embed)), 0), 0, -2), -2)
        kv = kv.contiguous()
        return [q_proj, views.select(kv, 0, 0), views.select(kv, 0, 1)]
    w_q, w_k, w_v = views.chunk(weight, 3)
    b_q, b_k, b_v = views.chunk(bias, 3) if bias is not None else (None, None, None)
    return [F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)]


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, num_heads: int,
                                 in_proj_weight: Tensor, in_proj_bias: Tensor | None, out_proj_weight: Tensor,
                                 out_proj_bias: Tensor | None, dropout_p: float, training: bool,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Sequence-first (L, N, E) query and (S, N, E) key/value, as torch's functional form."""
    tgt_len, bsz, embed_dim = query._shape
    src_len = key._shape[0]
    head_dim = embed_dim // num_heads
    key_padding_mask = _canonical_mask(key_padding_mask, query.dtype)
    attn_mask = _canonical_mask(attn_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        is_causal = False
    q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None and attn_mask.ndim == 2:
        if tuple(attn_mask._shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(tgt_len, src_len)}.")
        attn_mask = views.unsqueeze(attn_mask, 0)
    q = views.transpose(views.view(q, tgt_len, bsz * num_heads, head_dim), 0, 1)
    k = views.transpose(views.view(k, k._shape[0], bsz * num_heads, head_dim), 0, 1)
    v = views.transpose(views.view(v, v._shape[0], bsz * num_heads, head_dim), 0, 1)
    if key_padding_mask is not None:
        padding = views.reshape(views.expand(views.view(key_padding_mask, bsz, 1, 1, src_len), -1, num_heads, -1, -1),
                                (bsz * num_heads, 1, src_len))
        attn_mask = padding if attn_mask is None else pointwise.add(attn_mask, padding)
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = pointwise.mul(q, math.sqrt(1.0 / float(head_dim)))
        if attn_mask is not None:
            weights = contraction.baddbmm(attn_mask, q_scaled, views.transpose(k, -2, -1))
        else:
            weights = linalg.bmm(q_scaled, views.transpose(k, -2, -1))
        weights = F.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        output = linalg.bmm(weights, v)
        output = views.view(views.transpose(output, 0, 1).contiguous(), tgt_len * bsz, embed_dim)
        output = F.linear(output, out_proj_weight, out_proj_bias)
        output = views.view(output, tgt_len, bsz, output._shape[1])
        weights = views.view(weights, bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = reduction.mean(weights, 1)
        return output, weights
    if attn_mask is not None:
        attn_mask = views.unsqueeze(attn_mask, 0) if attn_mask._shape[0] == 1 and attn_mask.ndim == 3 \
            else views.view(attn_mask, bsz, num_heads, -1, src_len)
    q = views.view(q, bsz, num_heads, tgt_len, head_dim)
    k = views.view(k, bsz, num_heads, src_len, head_dim)
    v = views.view(v, bsz, num_heads, src_len, head_dim)
    output = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = views.view(views.permute(output, 2, 0, 1, 3).contiguous(), bsz * tgt_len, embed_dim)
    output = F.linear(output, out_proj_weight, out_proj_bias)
    return views.view(output, tgt_len, bsz, output._shape[1]), None


class MultiheadAttention(Module):
    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise NotImplementedError("add_bias_kv, add_zero_attn and separate kdim/vdim are not supported by this "
                                      "engine")
        super().__init__()
        self.embed_dim, self.kdim, self.vdim = embed_dim, embed_dim, embed_dim
        self._qkv_same_embed_dim = True
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.in_proj_weight = Parameter(factories.empty(3 * embed_dim, embed_dim, dtype=dtype))
        self.register_parameter("q_proj_weight", None)
        self.register_parameter("k_proj_weight", None)
        self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(factories.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        batched = query.ndim == 3
        fast = self._fast_path(query, key, value, batched)
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = views.transpose(query, 1, 0)
                else:
                    query, key = views.transpose(query, 1, 0), views.transpose(key, 1, 0)
                    value = key
            else:
                query, key, value = (views.transpose(x, 1, 0) for x in (query, key, value))
        if not batched:
            query, key, value = (views.unsqueeze(x, 1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = views.unsqueeze(key_padding_mask, 0)
        output, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
            self.out_proj.bias, self.dropout, self.training, key_padding_mask, need_weights, attn_mask,
            average_attn_weights, is_causal)
        if not batched:
            output = views.squeeze(output, 1)
            weights = views.squeeze(weights, 0) if weights is not None else None
        if self.batch_first and batched:
            output = views.transpose(output, 1, 0)
        if fast:  # torch's fused _native_multi_head_attention returns fresh, contiguous tensors
            output = Tensor._wrap(output._numpy_view().copy(), output.dtype)
            weights = None if weights is None else Tensor._wrap(weights._numpy_view().copy(), weights.dtype)
        return output, weights

    def _fast_path(self, query: Tensor, key: Tensor, value: Tensor, batched: bool) -> bool:
        """torch's conditions for its fused inference kernel: batched batch-first self-attention in
        eval mode, outside autocast, with nothing that needs a graph."""
        from engine import amp
        from engine.autograd import grad_mode

        tensors = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return (batched and query is key and key is value and not self.training and self.num_heads % 2 == 0
                and self.batch_first and self.in_proj_bias is not None and not amp.state.enabled
                and not (grad_mode.state.enabled and any(t is not None and t.requires_grad for t in tensors)))


class TransformerEncoderLayer(Module):
    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None,
                 dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            if activation not in ("relu", "gelu"):
                raise RuntimeError(f"activation should be relu/gelu, not {activation}")
            activation = F.relu if activation == "relu" else F.gelu
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = pointwise.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal))
            return pointwise.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(pointwise.add(x, self._sa_block(x, src_mask, src_key_padding_mask, is_causal)))
        return self.norm2(pointwise.add(x, self._ff_block(x)))

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """`num_layers` deep copies of the given layer, applied in turn (plus an optional final norm)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = False
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """Only its mask helper: the full encoder-decoder nn.Transformer is not part of this engine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("nn.Transformer (encoder and decoder) is not part of this engine; "
                                  "nn.TransformerEncoder and nn.TransformerEncoderLayer are")

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: dtypes.dtype | None = None) -> Tensor:
        return indexing.triu(factories.full((sz, sz), float("-inf"), dtype=dtype or dtypes.get_default_dtype()),
                             diagonal=1)


__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "Transformer", "TransformerEncoder",
           "TransformerEncoderLayer", "multi_head_attention_forward"]
