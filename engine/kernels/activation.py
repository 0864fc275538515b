"""Softmax, log-softmax, GELU and leaky ReLU kernels.

numpy has no erf, so exact GELU uses a vectorised port of fdlibm's s_erf.c (the erf behind most C
libraries, accurate to < 1 ulp in float64). float32 inputs are evaluated in float64 and rounded
back, which is within an ulp of torch's float32 kernels.
"""

from __future__ import annotations

import math

import numpy as np

from engine.kernels import softmax_float32


def _axis(x: np.ndarray) -> np.ndarray:
    """torch lets dim 0/-1 address a 0-d tensor; give such inputs one axis to reduce over."""
    return x.reshape(1) if x.ndim == 0 else x


def softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """exp(x - max) / sum: shifting by the max keeps exp from overflowing (float32 as ATen's kernels
    round it: kernels/softmax_float32.py)."""
    z = _axis(x)
    if z.dtype == np.float32 and z.size:
        with np.errstate(invalid="ignore", over="ignore", under="ignore"):
            return softmax_float32.softmax(z, dim % z.ndim).reshape(x.shape)
    with np.errstate(invalid="ignore"):  # an all -inf slice gives NaN, silently, as in torch
        e = np.exp(z - z.max(axis=dim, keepdims=True))
    return (e / e.sum(axis=dim, keepdims=True)).reshape(x.shape)


def softmax_backward(grad_out: np.ndarray, out: np.ndarray, dim: int) -> np.ndarray:
    """Jacobian-vector product y * (g - <g, y>), computed from the saved output."""
    g, y = _axis(grad_out), _axis(out)
    return (y * (g - (g * y).sum(axis=dim, keepdims=True))).reshape(out.shape)


def log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    """(x - max) - log(sum(exp(x - max))): never takes the log of an underflowed softmax (float32
    over the last dim as ATen's kernel rounds it: kernels/softmax_float32.py)."""
    z = _axis(x)
    if z.dtype == np.float32 and z.size and dim % z.ndim == z.ndim - 1:
        with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
            return softmax_float32.log_softmax_lastdim(z).reshape(x.shape)
    with np.errstate(invalid="ignore"):
        shifted = z - z.max(axis=dim, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))).reshape(x.shape)


def log_softmax_backward(grad_out: np.ndarray, out: np.ndarray, dim: int) -> np.ndarray:
    """g - softmax * sum(g), with softmax recovered as exp of the saved log-softmax (float32 over
    the last dim as ATen's kernel rounds it: kernels/softmax_float32.py)."""
    g, y = _axis(grad_out), _axis(out)
    if g.dtype == y.dtype == np.float32 and g.size and dim % g.ndim == g.ndim - 1:
        with np.errstate(invalid="ignore", over="ignore", under="ignore"):
            return softmax_float32.log_softmax_backward_lastdim(g, y).reshape(out.shape)
    return (g - np.exp(y) * g.sum(axis=dim, keepdims=True)).reshape(out.shape)


# fdlibm s_erf.c coefficients, highest power first for np.polyval.
_ERX = 8.45062911510467529297e-01
_PP = [-2.37630166566501626084e-05, -5.77027029648944159157e-03, -2.84817495755985104766e-02,
       -3.25042107247001499370e-01, 1.28379167095512558561e-01]
_QQ = [-3.96022827877536812320e-06, 1.32494738004321644526e-04, 5.08130628187576562776e-03,
       6.50222499887672944485e-02, 3.97917223959155352819e-01, 1.0]
_PA = [-2.16637559486879084300e-03, 3.54783043256182359371e-02, -1.10894694282396677476e-01,
       3.18346619901161753674e-01, -3.72207876035701323847e-01, 4.14856118683748331666e-01,
       -2.36211856075265944077e-03]
_QA = [1.19844998467991074170e-02, 1.36370839120290507362e-02, 1.26171219808761642112e-01,
       7.18286544141962662868e-02, 5.40397917702171048937e-01, 1.06420880400844228286e-01, 1.0]
_RA = [-9.81432934416914548592e+00, -8.12874355063065934246e+01, -1.84605092906711035994e+02,
       -1.62396669462573470355e+02, -6.23753324503260060396e+01, -1.05586262253232909814e+01,
       -6.93858572707181764372e-01, -9.86494403484714822705e-03]
_SA = [-6.04244152148580987438e-02, 6.57024977031928170135e+00, 1.08635005541779435134e+02,
       4.29008140027567833386e+02, 6.45387271733267880336e+02, 4.34565877475229228821e+02,
       1.37657754143519042600e+02, 1.96512716674392571292e+01, 1.0]
_RB = [-4.83519191608651397019e+02, -1.02509513161107724954e+03, -6.37566443368389627722e+02,
       -1.60636384855821916062e+02, -1.77579549177547519889e+01, -7.99283237680523006574e-01,
       -9.86494292470009928597e-03]
_SB = [-2.24409524465858183362e+01, 4.74528541206955367215e+02, 2.55305040643316442583e+03,
       3.19985821950859553908e+03, 1.53672958608443695994e+03, 3.25792512996573918826e+02,
       3.03380607434824582924e+01, 1.0]


def _polyval(coefficients: list[float], x: np.ndarray) -> np.ndarray:
    """np.polyval's arithmetic (`y = y * x + c`, highest power first) in place: the same roundings
    without a new array per term."""
    y = x * coefficients[0]  # polyval's first two terms: (0 * x + c0) * x + c1, the same for finite x
    y += coefficients[1]
    for c in coefficients[2:]:
        y *= x
        y += c
    return y


def _erfc_tail(a: np.ndarray) -> np.ndarray:
    """erfc(a) for 1.25 <= a < 6 via exp(-a^2 - 0.5625 + R/S) / a, fdlibm's asymptotic form."""
    s = 1.0 / (a * a)
    ratio = np.empty_like(a)
    near = a < 1 / 0.35
    for where, numerator, denominator in ((near, _RA, _SA), (~near, _RB, _SB)):
        part = s[where]
        ratio[where] = _polyval(numerator, part) / _polyval(denominator, part)
    # z = a with the low 32 bits cleared makes -z*z exact, as in fdlibm
    z = (a.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)
    return np.exp(-z * z - 0.5625) * np.exp((z - a) * (z + a) + ratio) / a


def erf(x: np.ndarray) -> np.ndarray:
    """Elementwise erf in float64, fdlibm's intervals. Most inputs are small, so the first
    interval's formula runs on every element (element by element, so each value is what it would
    be alone) and the others only on the elements in them, gathered and put back."""
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x).reshape(-1)
    with np.errstate(all="ignore"):  # the first formula overflows on the large elements it does not keep
        z = a * a
        magnitude = _polyval(_PP, z)
        magnitude /= _polyval(_QQ, z)
        magnitude *= a
        magnitude += a
    index = np.flatnonzero(~(a < 0.84375))  # NaN too: it is put back below
    if index.size:
        rest = a[index]
        values = np.ones_like(rest)  # |x| >= 6
        middle = (rest >= 0.84375) & (rest < 1.25)
        if middle.any():
            s = rest[middle] - 1.0
            values[middle] = _ERX + _polyval(_PA, s) / _polyval(_QA, s)
        tail = (rest >= 1.25) & (rest < 6.0)
        if tail.any():
            values[tail] = 1.0 - _erfc_tail(rest[tail])
        magnitude[index] = values
    result = np.copysign(magnitude.reshape(x.shape), x)
    nan = np.isnan(x)
    if nan.any():
        result[nan] = x[nan]
    return result


_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_BETA = math.sqrt(2 / math.pi)
_KAPPA = 0.044715


def _check_approximate(approximate: str) -> None:
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate argument must be either none or tanh, got {approximate!r}")


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """x * Phi(x), or torch's tanh approximation of it."""
    _check_approximate(approximate)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(_BETA * (x + _KAPPA * x * x * x)))
    return (x * 0.5 * (1 + erf(x * _SQRT1_2))).astype(x.dtype)


def gelu_backward(grad: np.ndarray, x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """d/dx of gelu: Phi(x) + x * phi(x), or the derivative of the tanh form."""
    _check_approximate(approximate)
    if approximate == "tanh":
        inner = np.tanh(_BETA * (x + _KAPPA * x * x * x))
        left = 0.5 * (1 + inner)
        right = 0.5 * x * (1 - inner * inner) * _BETA * (1 + 3 * _KAPPA * x * x)
        return grad * (left + right)
    x64 = x.astype(np.float64)
    cdf = 0.5 * (1 + erf(x64 * _SQRT1_2))
    pdf = np.exp(-0.5 * x64 * x64) * _INV_SQRT_2PI
    return (grad * (cdf + x64 * pdf)).astype(grad.dtype)


def leaky_relu(x: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    """x where x > 0, else slope * x (NaN takes the slope branch, as in torch)."""
    return np.where(x > 0, x, x * negative_slope)


def leaky_relu_backward(grad: np.ndarray, x_or_out: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    """The input or the output may be passed: for a positive slope both have the same sign."""
    return np.where(x_or_out > 0, grad, grad * negative_slope)
