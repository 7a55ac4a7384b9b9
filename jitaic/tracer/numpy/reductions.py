"""Reductions: sum, prod, max, min, any and all (with ``where=`` and
``initial=``), mean, var and std, argmax/argmin, the scans (cumsum ...) and
the NaN-ignoring reductions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy import common
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    full_value,
    normalize_axes,
    reduction,
    require,
    unsupported,
    where,
)
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import ravel
from jitaic.tracer.numpy.ufuncs import apply_ufunc, squared_magnitude


def _reducer(op: ops.Op) -> Callable:
    """np.sum and its kin. Masked-out elements (``where=``) become the op's
    identity; max/min have none and need ``initial``, as NumPy's do.
    ``initial`` joins the result last, with the op's ufunc."""
    name = op.name.replace("reduce_", "")

    def reducer(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise unsupported(f"np.{name}(out=)")
        x = as_tracer(a)
        if where is not None:
            fill = op.identity if op.identity is not None else initial
            if fill is None:
                raise ValueError(f"reduction operation '{op.combine.__name__}' does "
                                 "not have an identity, so to use a where mask one has to "
                                 "specify 'initial'")
            mask = broadcast_to(as_tracer(where), x.shape)
            x = emit(ops.where, [mask, x, full_value((), fill, x.dtype)], scalar=False)
        result = reduction(op, x, axis, keepdims, dtype)
        if initial is not None:
            result = apply_ufunc(op.combine, result, initial)
        return result

    return reducer


sum_ = implements(np.sum, method="sum")(_reducer(ops.reduce_sum))


prod = implements(np.prod, method="prod")(_reducer(ops.reduce_prod))


amax = implements(np.max, np.amax, method="max")(_reducer(ops.reduce_max))


amin = implements(np.min, np.amin, method="min")(_reducer(ops.reduce_min))


any_ = implements(np.any, method="any")(_reducer(ops.reduce_any))


all_ = implements(np.all, method="all")(_reducer(ops.reduce_all))


def element_count(x: Tracer, axes: tuple[int, ...]) -> int | Tracer:
    """How many elements a reduction over ``axes`` sees: an int, or a traced
    int64 when some of those axes have run-time lengths (x[:i])."""
    static = int(np.prod([x.shape[a] for a in axes if x.shape[a] is not None],
                         dtype=np.int64))
    total: int | Tracer = static
    for a in axes:
        if x.shape[a] is None:
            total = total * emit(ops.dim_size, [x], {"axis": a})
    return total


def _divide(total: Tracer, count: int | Tracer) -> Tracer:
    """``total / count`` in total's dtype, as NumPy's mean and var divide: a
    float32 sum in float32 (float64 rounded back: the same), a complex64 sum
    in complex128 rounded back (not the same), an integer sum
    (``dtype=np.int32``) cast back unsafely."""
    if total.dtype == np.complex64:  # NumPy: complex64 / intp divides in complex128
        return astype(astype(total, np.complex128) / count, np.complex64)
    if isinstance(count, Tracer):
        count = astype(count, total.dtype if total.dtype.kind == "f" else np.float64)
    quotient = total / count
    return astype(quotient, total.dtype) if quotient.dtype != total.dtype else quotient


def _float_operand(x: Tracer, dtype) -> Tracer:
    """mean/var compute in float64 for integer and bool inputs, as NumPy does."""
    if dtype is not None:
        return astype(x, dtype)
    if x.dtype.kind in "biu":
        return astype(x, np.float64)
    return x


@implements(np.mean, method="mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if out is not None:
        raise unsupported("np.mean(out=)")
    x = _float_operand(as_tracer(a), dtype)
    axes = normalize_axes(axis, x.ndim)
    if where is not None:  # the sum of the selected elements over their count
        mask = broadcast_to(as_tracer(where), x.shape)
        count = reduction(ops.reduce_sum, astype(mask, np.intp), axes, keepdims)
        return _divide(sum_(x, axes, None, None, keepdims, where=mask), count)
    return _divide(reduction(ops.reduce_sum, x, axes, keepdims, dtype), element_count(x, axes))


@implements(np.var, method="var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    if out is not None or where is not None or mean is not None:
        raise unsupported("np.var(out=/where=/mean=)")
    ddof = correction if correction is not None else ddof
    # NumPy's order: sums in ``dtype``, the deviations in the data's own dtype
    x = as_tracer(a) if dtype is not None else _float_operand(as_tracer(a), None)
    axes = normalize_axes(axis, x.ndim)
    n = element_count(x, axes)
    centred = x - _divide(reduction(ops.reduce_sum, x, axes, True, dtype), n)
    dof = max(n - ddof, 0) if isinstance(n, int) else apply_ufunc(np.maximum, n - ddof, 0)
    squares = squared_magnitude(centred)  # |x - mean|**2: a real variance of complex data
    return _divide(reduction(ops.reduce_sum, squares, axes, keepdims, dtype), dof)


@implements(np.std, method="std")
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    variance = var(a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if variance.dtype.kind in "iu" and variance.ndim:  # NumPy's sqrt(out=) refuses
        raise TypeError(f"Cannot cast ufunc 'sqrt' output from dtype('float64') to "
                        f"{variance.dtype!r} with casting rule 'same_kind'"
                        f"{at(user_location())}")
    x = as_tracer(a)
    if (correction if correction is not None else ddof) == 0 \
            and element_count(x, normalize_axes(axis, x.ndim)) == 1:
        # One element per group: the variance is +0 (NaN from inf/NaN), and so is
        # variance * 0, whose gradient is 0 where sqrt's (1 / 2 sqrt(0) times
        # the variance's zero gradient) is NaN.
        return variance * 0
    return astype(apply_ufunc(np.sqrt, variance), variance.dtype, copy=False)


def _arg_reducer(op: ops.Op) -> Callable:
    def reducer(a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            raise unsupported(f"np.{op.name}(out=)")
        x = as_tracer(a)
        if x.ndim == 0:  # NumPy: the index of the one element (axis 0 or -1 allowed)
            normalize_axes(axis, 0)
            return as_tracer(np.intp(0))
        if axis is not None:
            axis = normalize_axes(axis, x.ndim)[0]
        return emit(op, [x], {"axis": axis, "keepdims": bool(keepdims)})

    return reducer


argmax = implements(np.argmax, method="argmax")(_arg_reducer(ops.argmax))


argmin = implements(np.argmin, method="argmin")(_arg_reducer(ops.argmin))


def _cumulative(op: ops.Op) -> Callable:
    def scan(a, axis=None, dtype=None, out=None):
        if out is not None:
            raise unsupported(f"np.{op.name}(out=)")
        x = as_tracer(a)
        if dtype is not None:
            x = astype(x, dtype)
        if axis is None or x.ndim == 0:  # a 0-d array scans as a 1-d one (axis 0 or -1)
            normalize_axes(axis, x.ndim)
            x, axis = ravel(x), 0
        else:
            (axis,) = normalize_axes(axis, x.ndim)
        result = emit(op, [x], {"axis": axis}, scalar=False)
        # cumsum(dtype=int8) accumulates in int8; wrapping at the end gives the same bits
        return astype(result, dtype) if dtype is not None and result.dtype != dtype else result

    return scan


cumsum = implements(np.cumsum, method="cumsum", accumulate=np.add)(_cumulative(ops.cumsum))


cumprod = implements(np.cumprod, method="cumprod", accumulate=np.multiply)(_cumulative(ops.cumprod))


cummax = implements(accumulate=np.maximum)(_cumulative(ops.cummax))


cummin = implements(accumulate=np.minimum)(_cumulative(ops.cummin))


def _without_nan(a, fill):
    x = as_tracer(a)
    if x.dtype.kind not in "fc":
        return x, None
    missing = apply_ufunc(np.isnan, x)  # complex: a NaN in either part
    return where(missing, x.dtype.type(fill), x), missing


@implements(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    x, _ = _without_nan(a, 0.0)
    return sum_(x, axis, dtype, out, keepdims)


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    x, missing = _without_nan(a, 0.0)
    if missing is None:
        return mean(x, axis, dtype, out, keepdims)
    count = sum_(apply_ufunc(np.logical_not, missing), axis, np.intp, None, keepdims)
    return _divide(sum_(x, axis, dtype, out, keepdims), count)


def _nan_extreme(reducer, fill):
    def extreme(a, axis=None, out=None, keepdims=False, **kwargs):
        x, missing = _without_nan(a, fill)
        result = reducer(x, axis, keepdims=keepdims)
        if missing is None:
            return result
        nan = full_value((), np.nan, result.dtype)
        return emit(ops.where, [all_(missing, axis, keepdims=keepdims), nan, result])

    return extreme


nanmax = implements(np.nanmax)(_nan_extreme(amax, -np.inf))
nanmin = implements(np.nanmin)(_nan_extreme(amin, np.inf))


@implements(np.nanprod)
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    x, _ = _without_nan(a, 1.0)
    return prod(x, axis, dtype, out, keepdims, initial, where)


@implements(np.nancumsum)
def nancumsum(a, axis=None, dtype=None, out=None):
    return cumsum(_without_nan(a, 0.0)[0], axis, dtype, out)


@implements(np.nancumprod)
def nancumprod(a, axis=None, dtype=None, out=None):
    return cumprod(_without_nan(a, 1.0)[0], axis, dtype, out)


def _nan_arg_extreme(arg_reducer, fill):
    """nanargmax/nanargmin: NaN never chosen; a slice of NaNs only is NumPy's
    ValueError (when the code runs)."""
    def arg_extreme(a, axis=None, out=None, *, keepdims=False):
        x, missing = _without_nan(a, fill)
        if missing is not None and missing.aval.size != 0:
            all_missing = all_(missing, axis)
            require(apply_ufunc(np.logical_not, any_(all_missing)), ValueError,
                    "All-NaN slice encountered")
        return arg_reducer(x, axis, out, keepdims=keepdims)

    return arg_extreme


nanargmax = implements(np.nanargmax)(_nan_arg_extreme(argmax, -np.inf))
nanargmin = implements(np.nanargmin)(_nan_arg_extreme(argmin, np.inf))


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None, correction=None):
    """NumPy's: the mean and squared deviations of the elements that are not
    NaN, over their count less ddof; NaN where that is not positive."""
    x, missing = _without_nan(a, 0.0)
    if missing is None:
        return var(x, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if out is not None or where is not None or mean is not None:
        raise unsupported("np.nanvar/np.nanstd(out=/where=/mean=)")
    ddof = correction if correction is not None else ddof
    axes = normalize_axes(axis, x.ndim)
    present = astype(apply_ufunc(np.logical_not, missing), np.intp)
    average = _divide(reduction(ops.reduce_sum, x, axes, True, dtype),
                      reduction(ops.reduce_sum, present, axes, True))
    # the deviations in the data's dtype (NumPy subtracts into the data's copy)
    deviations = common.where(missing, x.dtype.type(0), astype(x - average, x.dtype, copy=False))
    total = reduction(ops.reduce_sum, squared_magnitude(deviations), axes, keepdims, dtype)
    dof = reduction(ops.reduce_sum, present, axes, keepdims) - ddof
    return emit(ops.where, [dof <= 0, total.dtype.type(np.nan), _divide(total, dof)])


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
           mean=None, correction=None):
    variance = nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    return astype(apply_ufunc(np.sqrt, variance), variance.dtype, copy=False)


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    x = as_tracer(a)
    return sum_(apply_ufunc(np.not_equal, x, 0), axis, np.intp, None, keepdims)
