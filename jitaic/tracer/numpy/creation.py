"""Array creation: the ``*_like`` functions, ``np.array`` of traced values,
linspace with traced endpoints, meshgrid, and building matrices (diag, vander,
triu, tril).
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from jitaic.errors import at, user_location
from jitaic.tracer.core import Tracer, current, new_tracer, to_value, traced_shape
from jitaic.tracer.numpy.common import (
    as_array,
    as_tracer,
    astype,
    broadcast_to,
    copy_array,
    full_value,
    require,
    shape_of,
    unsupported,
    where,
)
from jitaic.tracer.numpy.indexing import diagonal, getitem, setitem
from jitaic.tracer.numpy.reductions import all_, cumprod
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import (
    broadcast_arrays,
    concatenate,
    expand_dims,
    ravel,
    reshape,
    stack,
)
from jitaic.tracer.numpy.ufuncs import apply_ufunc


@implements(np.diag)
def diag(v, k=0):
    """The k-th diagonal of a matrix, or a matrix with v on its k-th diagonal."""
    x = as_tracer(v)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = x.shape[0] + abs(k)
    rows = np.arange(x.shape[0]) - min(k, 0)
    out = full_value((n, n), 0, x.dtype)
    setitem(out, (rows, rows + k), x)
    return out


@implements(np.vander)
def vander(x, N=None, increasing=False):
    """NumPy's: powers by repeated multiplication (a cumulative product)."""
    v = as_tracer(x)
    if v.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    columns = v.shape[0] if N is None else operator.index(N)
    if columns == 0:
        return full_value((v.shape[0], 0), 0, np.result_type(v.dtype, np.int64))
    dtype = np.result_type(v.dtype, np.int64)
    ones = full_value((v.shape[0], 1), 1, dtype)
    powers = ones if columns == 1 else concatenate(
        [ones, cumprod(broadcast_to(reshape(astype(v, dtype, copy=False), (-1, 1)),
                                    (v.shape[0], columns - 1)), axis=1)], axis=1)
    return powers if increasing else getitem(powers, (slice(None), slice(None, None, -1)))


def like(fill: object | None) -> Callable:
    def like(a, dtype=None, order="K", subok=True, shape=None, fill_value=None, **kwargs):
        if fill_value is not None:  # full_like(a, fill_value)
            value = fill_value
        else:
            value = fill
        if value is None:
            raise unsupported("np.full_like without a fill value")
        if shape is None:
            shape = traced_shape(a) if isinstance(a, Tracer) else shape_of(a)
        dtype = (a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype) \
            if dtype is None else dtype
        return full_value(shape, value, dtype)

    return like


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kwargs):
    return like(None)(a, dtype, order, subok, shape, fill_value=fill_value)


def array_from_nested(data: object, dtype=None) -> Tracer:
    """``np.array`` of (nested) lists/tuples that contain Tracers."""
    if isinstance(data, (list, tuple)):
        if not data:
            return new_tracer(to_value(np.array([], dtype=dtype or np.float64)), False)
        items = [array_from_nested(item) for item in data]
        result = stack(items) if items[0].ndim or len(items) > 1 else expand_dims(items[0], 0)
    elif isinstance(data, Tracer):
        result = data
    else:  # Python scalars in lists are strong (np.array([1.0]) is float64)
        result = new_tracer(current().constant(np.asarray(data)), scalar=False)
    return astype(result, dtype) if dtype is not None else result


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    grids = [reshape(as_tracer(v), (1,) * i + (-1,) + (1,) * (ndim - i - 1))
             for i, v in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        grids[0] = reshape(grids[0], (1, -1) + (1,) * (ndim - 2))
        grids[1] = reshape(grids[1], (-1, 1) + (1,) * (ndim - 2))
    return tuple(grids) if sparse else tuple(copy_array(g) for g in broadcast_arrays(*grids))


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``np.linspace`` with traced scalar endpoints (``num`` static), in NumPy's
    own arithmetic: ``arange(num) * step + start``, the last point ``stop``."""
    if isinstance(num, Tracer) or axis != 0 or np.ndim(start) or np.ndim(stop):
        raise unsupported("np.linspace with traced arguments other than scalar "
                           "start/stop (num must be static)")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = num - 1 if endpoint else num
    start, stop = as_tracer(start), as_tracer(stop)
    dt = np.result_type(*(t.dtype if not t.aval.weak else t.dtype.type(0).item()
                          for t in (start, stop)), float(num))
    delta = astype(stop, dt) - astype(start, dt)
    y = as_tracer(np.arange(0, num, dtype=dt))
    step = delta / div if div > 0 else full_value((), np.nan, dt)
    y = (y * step if div > 0 else y * delta) + astype(start, dt)
    if endpoint and num > 1:
        y[-1] = stop
    y = astype(y, dtype) if dtype is not None else y
    return (y, step) if retstep else y


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)``, NumPy's formula, with traced scalar
    endpoints (a static scalar base: a Python number is weak, NEP 50)."""
    if isinstance(base, Tracer) or np.ndim(base):
        raise unsupported("np.logspace with a traced or array base")
    y = linspace(start, stop, num, endpoint, axis=axis)
    result = apply_ufunc(np.power, base if type(base) in (int, float) else np.asarray(base), y)
    return astype(result, dtype, copy=False) if dtype is not None else result


@implements(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """NumPy's: the logspace between the logarithms of the endpoints turned
    positive, the exact endpoints written in, the sign turned back."""
    first, last = as_tracer(start) * 1.0, as_tracer(stop) * 1.0
    require(apply_ufunc(np.logical_not, (first == 0) | (last == 0)), ValueError,
            "Geometric sequence cannot include zero")
    dt = np.result_type(first.dtype, last.dtype, float(num),
                        np.zeros((), dtype) if dtype is not None else np.float64)
    first, last = astype(first, dt), astype(last, dt)
    sign = apply_ufunc(np.sign, first)
    first, last = first / sign, last / sign
    result = logspace(apply_ufunc(np.log10, first), apply_ufunc(np.log10, last), num,
                      endpoint, 10.0, dt)
    if num > 0:
        result[0] = first
    if num > 1 and endpoint:
        result[-1] = last
    result = result * sign
    return astype(result, dtype if dtype is not None else dt, copy=False)


@implements(np.diagflat)
def diagflat(v, k=0):
    return diag(ravel(as_tracer(v)), k)


def triangle(upper: bool) -> Callable:
    """np.triu / np.tril: a where against a constant mask (NumPy's own way)."""
    def triangle(m, k=0):
        x = as_tracer(m)
        if x.ndim < 2 or not x.aval.static:
            raise unsupported(f"np.{'triu' if upper else 'tril'} of an array with fewer "
                               f"than 2 dimensions or a run-time length")
        rows, cols = x.shape[-2:]
        below = np.tri(rows, cols, k - 1 if upper else k, dtype=bool)
        keep = ~below if upper else below
        return where(as_tracer(keep), x, full_value((), 0, x.dtype))

    return triangle


zeros_like = implements(np.zeros_like, np.empty_like)(like(0))
ones_like = implements(np.ones_like)(like(1))
triu = implements(np.triu)(triangle(upper=True))
tril = implements(np.tril)(triangle(upper=False))


# ---------------------------------------------------------------- from existing data

@implements(np.array)
def array(obj, dtype=None, **kwargs):
    return not_a_scalar(copy_array(astype(obj, dtype) if dtype else as_array(obj)))


@implements(np.asarray)
def asarray(a, dtype=None, **kwargs):
    return not_a_scalar(astype(a, dtype, copy=False) if dtype else as_array(a))


def not_a_scalar(x: Tracer) -> Tracer:
    """NumPy's array of a scalar: a 0-d array, which takes item assignment
    and, as an index, gathers a copy (``x[np.asarray(i)]``)."""
    return new_tracer(x.value, scalar=False) if x._scalar else x


def asarray_chkfinite(a, dtype=None, order=None):
    """np.asarray, and NumPy's ValueError for a float array holding an
    infinity or NaN (checked when the code runs). NumPy does not dispatch
    this function: traced code reaches it through the numpy proxy."""
    x = asarray(a, dtype)
    if x.dtype.kind in "fc":
        require(all_(apply_ufunc(np.isfinite, x)), ValueError,
                "array must not contain infs or NaNs")
    return x


def common_type(*arrays):
    """NumPy's scalar type (or its TypeError) for arrays of these dtypes; not
    dispatched by NumPy either."""
    try:
        return np.common_type(*(np.empty(0, as_tracer(a).dtype) for a in arrays))
    except TypeError as exc:
        raise TypeError(f"{exc}{at(user_location())}") from None


@implements(np.ascontiguousarray, np.asfortranarray)
def ascontiguousarray(a, dtype=None, **kwargs):
    """Layout is the compiler's choice: the traced array as it is."""
    return as_tracer(a)
