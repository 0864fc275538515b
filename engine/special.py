"""torch.special: the special functions the engine has, under the names torch gives them there.

Each is the engine's own op (so the same node: `special.expit` records SigmoidBackward0, `gammaln`
LgammaBackward0, `psi` DigammaBackward0, as in torch, where they are aliases too; `round` always passes decimals).
"""

from __future__ import annotations

from engine.ops import FUNCTIONS as _FUNCTIONS
from engine.tensor import Tensor

digamma = psi = _FUNCTIONS["digamma"]
erf = _FUNCTIONS["erf"]
erfc = _FUNCTIONS["erfc"]
erfinv = _FUNCTIONS["erfinv"]
exp2 = _FUNCTIONS["exp2"]
expit = _FUNCTIONS["sigmoid"]
expm1 = _FUNCTIONS["expm1"]
gammaln = _FUNCTIONS["lgamma"]
log1p = _FUNCTIONS["log1p"]
log_softmax = _FUNCTIONS["log_softmax"]
logit = _FUNCTIONS["logit"]
logsumexp = _FUNCTIONS["logsumexp"]
polygamma = _FUNCTIONS["polygamma"]
softmax = _FUNCTIONS["softmax"]
xlogy = _FUNCTIONS["xlogy"]


def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001, A002 - torch's names
    """torch.round with decimals always given, so RoundBackward1 (round_vml_cpu refuses integers)."""
    return _FUNCTIONS["round"](input, decimals=decimals, out=out)


__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p", "log_softmax", "logit",
           "logsumexp", "polygamma", "psi", "round", "softmax", "xlogy"]
