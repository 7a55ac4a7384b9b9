"""NumPy's polynomial functions on coefficient arrays, highest power first:
polyval, polyadd/polysub, polymul, polyder, polyint, poly (from real roots)
and polyfit (a least-squares fit over scaled Vandermonde columns, as NumPy's).
"""

from __future__ import annotations

import operator

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.core import Tracer
from jitaic.tracer.numpy.common import as_tracer, astype, full_value, unsupported
from jitaic.tracer.numpy.creation import vander
from jitaic.tracer.numpy.decompositions import lstsq
from jitaic.tracer.numpy.indexing import getitem
from jitaic.tracer.numpy.mathematical import convolve
from jitaic.tracer.numpy.reductions import sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import atleast_1d, concatenate, reshape, transpose
from jitaic.tracer.numpy.ufuncs import apply_ufunc


@implements(np.polyval)
def polyval(p, x):
    """Horner's rule from a zero of x's dtype, NumPy's order of operations."""
    coefficients, x = as_tracer(p), as_tracer(x)
    if coefficients.ndim != 1:
        raise unsupported("np.polyval with coefficients that are not a 1-D array")
    y = full_value(x.shape, 0, x.dtype)
    for k in range(coefficients.shape[0]):
        y = y * x + getitem(coefficients, k)
    return y


def _aligned(a1, a2) -> tuple[Tracer, Tracer]:
    """Both coefficient arrays zero-padded in front to the same length."""
    a, b = atleast_1d(a1), atleast_1d(a2)
    pad = b.shape[0] - a.shape[0]
    if pad > 0:
        a = concatenate([full_value((pad,), 0, a.dtype), a])
    elif pad < 0:
        b = concatenate([full_value((-pad,), 0, b.dtype), b])
    return a, b


@implements(np.polyadd)
def polyadd(a1, a2):
    a, b = _aligned(a1, a2)
    return a + b


@implements(np.polysub)
def polysub(a1, a2):
    a, b = _aligned(a1, a2)
    return a - b


@implements(np.polymul)
def polymul(a1, a2):
    return convolve(atleast_1d(a1), atleast_1d(a2))


@implements(np.polyder)
def polyder(p, m=1):
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"Order of derivative must be positive (see polyint)"
                         f"{at(user_location())}")
    c = as_tracer(p)
    for _ in range(m):
        n = c.shape[0] - 1
        c = getitem(c, slice(None, -1)) * as_tracer(np.arange(n, 0, -1))
    return c


@implements(np.polyint)
def polyint(p, m=1, k=None):
    """Each integration divides by the powers and appends the next constant
    of ``k`` (zeros by default; one constant serves every order)."""
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"Order of integral must be positive (see polyder)"
                         f"{at(user_location())}")
    constants = atleast_1d(as_tracer(np.zeros(m)) if k is None else k)
    if constants.shape[0] == 1 and m > 1:
        constants = getitem(constants, 0) * as_tracer(np.ones(m))
    if constants.shape[0] < m:
        raise ValueError(f"k must be a scalar or a rank-1 array of length 1 or >m."
                         f"{at(user_location())}")
    c = as_tracer(p)
    for i in range(m):
        scaled = c / as_tracer(np.arange(c.shape[0], 0, -1))
        c = concatenate([scaled, reshape(getitem(constants, i), (1,))])
    return c


@implements(np.poly)
def poly(seq_of_zeros):
    """The monic polynomial with these real roots, a convolution per root."""
    zeros = atleast_1d(seq_of_zeros)
    if zeros.ndim != 1:
        raise unsupported("np.poly of a matrix (its eigenvalues' polynomial)")
    if zeros.dtype.kind == "c":
        raise unsupported("np.poly of complex roots (NumPy's result is real or complex "
                          "depending on the values)")
    dtype = np.float32 if zeros.dtype == np.float32 else np.float64  # NumPy's mintypecode
    zeros = astype(zeros, dtype, copy=False)
    if zeros.shape[0] == 0:
        return 1.0
    a = as_tracer(np.ones(1, dtype))
    for i in range(zeros.shape[0]):
        factor = concatenate([as_tracer(np.ones(1, dtype)), reshape(-getitem(zeros, i), (1,))])
        a = convolve(a, factor)
    return a


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """NumPy's fit: Vandermonde columns scaled to unit norm, lstsq, the
    coefficients scaled back. (NumPy's RankWarning is not raised.)"""
    if cov:
        raise unsupported("np.polyfit(cov=True)")
    order = operator.index(deg) + 1
    xs, ys = as_tracer(x) + 0.0, as_tracer(y) + 0.0
    if order < 1:
        raise ValueError(f"expected deg >= 0{at(user_location())}")
    if xs.ndim != 1:
        raise TypeError(f"expected 1D vector for x{at(user_location())}")
    if xs.shape[0] == 0:
        raise TypeError(f"expected non-empty vector for x{at(user_location())}")
    if ys.ndim not in (1, 2):
        raise TypeError(f"expected 1D or 2D array for y{at(user_location())}")
    if xs.shape[0] != ys.shape[0]:
        raise TypeError(f"expected x and y to have same length{at(user_location())}")
    if rcond is None:
        rcond = xs.shape[0] * np.finfo(xs.dtype).eps
    lhs, rhs = vander(xs, order), ys
    if w is not None:
        weights = as_tracer(w) + 0.0
        if weights.ndim != 1 or weights.shape[0] != xs.shape[0]:
            raise TypeError(f"expected a 1-d array for weights of the same length as x"
                            f"{at(user_location())}")
        lhs = lhs * reshape(weights, (-1, 1))
        rhs = rhs * (reshape(weights, (-1, 1)) if rhs.ndim == 2 else weights)
    scale = apply_ufunc(np.sqrt, sum_(lhs * lhs, axis=0))
    c, residuals, rank, singular = lstsq(lhs / scale, rhs, rcond)
    c = transpose(transpose(c) / scale)
    return (c, residuals, rank, singular, rcond) if full else c
