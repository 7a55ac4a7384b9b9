"""Mathematical functions that are compositions: clip, round, fix, diff,
gradient, unwrap, trapezoid, sinc, i0, correlate/convolve, interp, nan_to_num; the
composite ufuncs float_power, divmod and modf; piecewise; the logic functions isclose,
allclose, array_equal, array_equiv, isneginf/isposinf, iscomplexobj/isrealobj.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer, to_value
from jitaic.tracer.numpy.common import (
    as_array,
    as_tracer,
    astype,
    broadcast_to,
    copy_array,
    full_value,
    normalize_axes,
    static_ints,
    unsupported,
    where,
)
from jitaic.tracer.numpy.indexing import getitem, setitem, take
from jitaic.tracer.numpy.rearranging import along, flip
from jitaic.tracer.numpy.reductions import all_, any_, cumsum, sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import concatenate, ravel, reshape, stack
from jitaic.tracer.numpy.ufuncs import apply_ufunc, matmul


@implements(np.clip, method="clip")
def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if out is not None or kwargs:
        raise unsupported("np.clip(out=/...)")
    result = as_array(a)  # (its bounds stay weak: one ufunc)
    if result.dtype.kind in "iu":  # NumPy drops a Python int bound beyond the dtype's range
        info = np.iinfo(result.dtype)
        a_min = None if type(a_min) is int and a_min < info.min else a_min
        a_max = None if type(a_max) is int and a_max > info.max else a_max
    if a_min is not None and a_max is not None:
        # NumPy's clip is one ufunc: its dtype comes from all three operands
        # (int8 between 300 and a uint64: float64), before either bound applies
        dtype = ops.ufunc_loop_dtypes(np._core.umath.clip,
                                      [to_value(1 if type(x) is int else x).type
                                       for x in (result, a_min, a_max)])[-1]
        result = astype(result, dtype) if dtype != result.dtype else result
    bounded = result
    if a_min is not None:
        bounded = apply_ufunc(np.maximum, bounded, a_min)
    if a_max is not None:
        bounded = apply_ufunc(np.minimum, bounded, a_max)
    if a_min is None or a_max is None or result.dtype.kind != "f":
        return bounded  # NumPy calls maximum or minimum for one bound
    return _clip_ties(result, as_tracer(a_min), as_tracer(a_max), bounded)


def _clip_ties(x: Tracer, low: Tracer, high: Tracer, bounded: Tracer) -> Tracer:
    """NumPy's clip ufunc on floats, which differs from maximum and then
    minimum in the zero it keeps where values tie, and differs between its
    own loops: with bounds that are one value along the loop (scalars, 0-d,
    length 1 along the loop's axis) it takes ``low`` where x < low, then ``high``
    where that is > high, else x (clip(-5.0, -0.0, 0.0) is -0.0); with array
    bounds, x where x > low else low, then that where it is < high else high
    (0.0). A NaN anywhere makes NaN in both (``bounded``)."""
    low, high = astype(low, x.dtype), astype(high, x.dtype)
    if all(_one_value_along_the_loop(b, bounded.shape) for b in (low, high)):
        above = emit(ops.where, [apply_ufunc(np.less, x, low), low, x])
        clipped = emit(ops.where, [apply_ufunc(np.greater, above, high), high, above])
    else:
        above = emit(ops.where, [apply_ufunc(np.greater, x, low), x, low])
        clipped = emit(ops.where, [apply_ufunc(np.less, above, high), above, high])
    return emit(ops.where, [apply_ufunc(np.isnan, bounded), bounded, clipped])


def _one_value_along_the_loop(bound: Tracer, shape: tuple) -> bool:
    """Whether NumPy's inner loop sees ``bound`` as one value (stride 0): its
    length along the result's last axis that is not 1 (NumPy's iterator
    drops those) is 1 or missing."""
    axes = [k for k, d in enumerate(shape) if d != 1]
    if not axes:
        return True
    axis = axes[-1] - (len(shape) - bound.ndim)
    return axis < 0 or bound.shape[axis] == 1


@implements(np.round, np.around, method="round")
def round_(a, decimals=0, out=None):
    """NumPy's: rint(x * 10**d) / 10**d for floats (d < 0: rint(x / 10**-d) * 10**-d);
    integers unchanged, or for d < 0 that computed in float64 and cast back."""
    if out is not None:
        raise unsupported("np.round(out=)")
    (decimals,) = static_ints(decimals, "np.round's decimals")
    a = as_tracer(a)
    if a.dtype == np.bool_:
        raise unsupported("np.round of a bool array (NumPy returns float16)")
    if a.dtype.kind == "c":  # each part rounded as a float
        parts = [round_(emit(part, [a]), decimals) for part in (ops.real, ops.imag)]
        return emit(ops.make_complex, parts)
    if a.dtype.kind != "f":
        if decimals >= 0:
            return a
        return astype(round_(astype(a, np.float64), decimals), a.dtype)
    if decimals == 0:
        return apply_ufunc(np.rint, a)
    scale = a.dtype.type(10.0 ** abs(decimals))
    if decimals > 0:
        return apply_ufunc(np.rint, a * scale) / scale
    return apply_ufunc(np.rint, a / scale) * scale


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    x = as_tracer(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    (axis,) = normalize_axes(axis, x.ndim)

    def edge(v):  # a scalar stands for a slice of length 1 along the axis
        v = as_tracer(v)
        return broadcast_to(v, x.shape[:axis] + (1,) + x.shape[axis + 1:]) if v.ndim == 0 \
            else v

    if prepend is not None or append is not None:
        x = concatenate([*([edge(prepend)] if prepend is not None else []), x,
                         *([edge(append)] if append is not None else [])], axis=axis)
    for _ in range(n):
        upper, lower = (getitem(x, tuple(part if d == axis else slice(None)
                                         for d in range(x.ndim)))
                        for part in (slice(1, None), slice(None, -1)))
        x = apply_ufunc(np.not_equal if x.dtype == np.bool_ else np.subtract, upper, lower)
    return x


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array in its dtype, between to_begin and
    to_end (flattened, cast to it where NumPy's same_kind rule allows)."""
    x = ravel(as_tracer(ary))
    parts = [apply_ufunc(np.subtract, x[1:], x[:-1])]
    for name, extra, place in (("to_begin", to_begin, 0), ("to_end", to_end, 1)):
        if extra is None:
            continue
        extra = ravel(as_array(extra))
        if not np.can_cast(extra.dtype, x.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            f"`same_kind` rule.{at(user_location())}")
        parts.insert(place * len(parts), astype(extra, x.dtype, copy=False))
    return concatenate(parts) if len(parts) > 1 else parts[0]


@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    """NumPy's finite differences: central inside, one-sided of ``edge_order``
    at the ends, each part in NumPy's order of operations, cast to the float
    dtype NumPy allocates the result in."""
    x = as_tracer(f)
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim)
    spacings = _gradient_spacings(varargs, x, axes)
    if edge_order > 2:
        raise ValueError(f"'edge_order' greater than 2 not supported{at(user_location())}")
    result_dtype = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
    if x.dtype.kind in "iu":
        x = astype(x, np.float64)
    parts = []
    for ax, dx in zip(axes, spacings):
        if x.shape[ax] is None:
            raise unsupported("np.gradient along an axis of run-time length")
        if x.shape[ax] < edge_order + 1:
            raise ValueError(f"Shape of array too small to calculate a numerical gradient, "
                             f"at least (edge_order + 1) elements are required."
                             f"{at(user_location())}")
        pieces = [_gradient_edges(x, ax, dx, edge_order, first)
                  for first in (True, False)]
        pieces.insert(1, _gradient_interior(x, ax, dx))
        parts.append(astype(concatenate(pieces, axis=ax), result_dtype))
    return parts[0] if len(axes) == 1 else tuple(parts)


def _gradient_spacings(varargs: tuple, x: Tracer, axes: tuple) -> list:
    """One spacing per axis: a scalar, or the differences of coordinates
    (a scalar again where NumPy finds them all equal)."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError(f"invalid number of arguments{at(user_location())}")
    spacings = []
    for ax, distances in zip(axes, varargs):
        if np.ndim(distances) == 0:
            spacings.append(distances)
            continue
        if np.ndim(distances) != 1:
            raise ValueError(f"distances must be either scalars or 1d{at(user_location())}")
        if np.shape(distances)[0] != x.shape[ax]:
            raise ValueError(f"when 1d, distances must match the length of the "
                             f"corresponding dimension{at(user_location())}")
        coordinates = as_tracer(distances)
        if coordinates.dtype.kind in "iu":
            coordinates = astype(coordinates, np.float64)
        steps = diff(coordinates)
        spacings.append(_UniformOrNot(steps, all_(steps == getitem(steps, 0))))
    return spacings


class _UniformOrNot:
    """Coordinate steps, and whether they are all equal: NumPy then uses the
    scalar formulas, which round differently (and ignore inf at weight 0)."""

    def __init__(self, steps: Tracer, uniform: Tracer):
        self.steps, self.uniform = steps, uniform


def _choose(dx, uniform_formula, general_formula) -> Tracer:
    if not isinstance(dx, _UniformOrNot):
        return uniform_formula(dx)
    first = getitem(dx.steps, 0)
    return where(dx.uniform, uniform_formula(first), general_formula(dx.steps))


def _gradient_interior(x: Tracer, ax: int, dx) -> Tracer:
    lower, middle, upper = (along(x, ax, part) for part in
                            (slice(None, -2), slice(1, -1), slice(2, None)))

    def uniform(h):
        return (upper - lower) / (2.0 * h)

    def general(steps):
        dx1, dx2 = (_along_axis(getitem(steps, part), ax, x.ndim)
                    for part in (slice(0, -1), slice(1, None)))
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        return a * lower + b * middle + c * upper

    return _choose(dx, uniform, general)


def _gradient_edges(x: Tracer, ax: int, dx, edge_order: int, first: bool) -> Tracer:
    """The first or the last element along ``ax``, kept as a length-1 slice."""
    def at_(i):
        return along(x, ax, slice(i, i + 1) if i != -1 else slice(-1, None))

    if edge_order == 1:
        later, earlier = (at_(1), at_(0)) if first else (at_(-1), at_(-2))
        return _choose(dx, lambda h: (later - earlier) / h,
                       lambda steps: (later - earlier) / getitem(steps, 0 if first else -1))
    points = (at_(0), at_(1), at_(2)) if first else (at_(-3), at_(-2), at_(-1))

    def uniform(h):
        weights = (-1.5 / h, 2.0 / h, -0.5 / h) if first else (0.5 / h, -2.0 / h, 1.5 / h)
        return _weighted(weights, points)

    def general(steps):
        dx1, dx2 = (getitem(steps, i) for i in ((0, 1) if first else (-2, -1)))
        if first:
            weights = (-(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2)), (dx1 + dx2) / (dx1 * dx2),
                       -dx1 / (dx2 * (dx1 + dx2)))
        else:
            weights = (dx2 / (dx1 * (dx1 + dx2)), -(dx2 + dx1) / (dx1 * dx2),
                       (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2)))
        return _weighted(weights, points)

    return _choose(dx, uniform, general)


def _weighted(weights: tuple, points: tuple) -> Tracer:
    a, b, c = weights
    p, q, r = points
    return a * p + b * q + c * r


def _along_axis(v: Tracer, ax: int, ndim: int) -> Tracer:
    """A 1-d ``v`` shaped to broadcast along axis ``ax`` of an ndim-array."""
    return reshape(v, tuple(-1 if d == ax else 1 for d in range(ndim)))


@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """NumPy's formula: |a - b| <= atol + rtol*|b| for finite b, or a == b."""
    x, y = as_tracer(a), as_tracer(b)
    if y.dtype.kind != "f":
        y = astype(y, np.result_type(y.dtype, 1.0))
    close = apply_ufunc(np.less_equal, apply_ufunc(np.absolute, x - y),
                        atol + rtol * apply_ufunc(np.absolute, y))
    result = (close & apply_ufunc(np.isfinite, y)) | apply_ufunc(np.equal, x, y)
    if equal_nan:
        result = result | (apply_ufunc(np.isnan, x) & apply_ufunc(np.isnan, y))
    return result


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all_(isclose(a, b, rtol, atol, equal_nan))


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NumPy's: a new array (``copy=False``: x itself, changed in place), and
    a NumPy scalar for a 0-d x."""
    v = as_tracer(x)
    result = _finite_values(v, nan, posinf, neginf)
    if not copy and isinstance(x, Tracer) and not x._scalar:
        setitem(x, Ellipsis, result)
        result = x
    elif result is v:
        result = copy_array(v)
    return new_tracer(result.value, scalar=True) if result.ndim == 0 else result


def _finite_values(v: Tracer, nan, posinf, neginf) -> Tracer:
    """``v`` with NaN and infinities replaced (``v`` itself if it holds none)."""
    if v.dtype.kind == "c":  # NumPy replaces in each part separately
        parts = [_finite_values(emit(part, [v]), nan, posinf, neginf)
                 for part in (ops.real, ops.imag)]
        return emit(ops.make_complex, parts)
    if v.dtype.kind != "f":
        return v
    info = np.finfo(v.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    v = where(apply_ufunc(np.isnan, v), v.dtype.type(nan), v)
    return where(v == np.inf, v.dtype.type(big), where(v == -np.inf, v.dtype.type(small), v))


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's: (d * (y[1:] + y[:-1]) / 2.0).sum(axis)."""
    v = as_tracer(y)
    (axis,) = normalize_axes(axis, v.ndim)
    if x is None:
        d = dx
    else:
        d = diff(x) if as_tracer(x).ndim == 1 else diff(x, axis=axis)
        if as_tracer(x).ndim == 1:
            d = reshape(d, tuple(d.shape[0] if i == axis else 1 for i in range(v.ndim)))
    return sum_(d * (along(v, axis, slice(1, None)) + along(v, axis, slice(None, -1)))
                / 2.0, axis)


@implements(np.sinc)
def sinc(x):
    """NumPy's formula: sin(pi y) / (pi y), with 1e-20 standing in for 0."""
    x = as_tracer(x)
    y = np.pi * where(x == 0, 1.0e-20, x)
    return apply_ufunc(np.sin, y) / y


# Kernels up to this long are a sum of shifted slices (one fused loop);
# longer ones a gather of the windows times the kernel (one BLAS product).
_SLICE_SUM_MAX_TAPS = 32


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """out[k] = sum_j a_padded[k + j] * conj(v[j]), NumPy's padding per mode."""
    x, w = (_one_dimensional(as_tracer(t), small_ok=False) for t in (a, v))
    _not_empty(x, w, ("first array argument", "second array argument"))
    return _correlate(x, apply_ufunc(np.conjugate, w) if w.dtype.kind == "c" else w, mode)


def _one_dimensional(t: Tracer, small_ok: bool) -> Tracer:
    """NumPy's check on correlate's and convolve's operands (convolve takes a
    0-d operand as one element)."""
    if t.ndim > 1 or (t.ndim == 0 and not small_ok):
        raise ValueError(f"object {'too deep' if t.ndim else 'of too small depth'} "
                         f"for desired array{at(user_location())}")
    return ravel(t)


def _not_empty(x: Tracer, w: Tracer, names: tuple[str, str]) -> None:
    for t, name in zip((x, w), names):
        if not t.shape[0]:
            raise ValueError(f"{name} cannot be empty{at(user_location())}")


def _correlate(x: Tracer, w: Tracer, mode: str) -> Tracer:
    """sum_j x_padded[k + j] * w[j] (no conjugate: convolve's correlation)."""
    n, m = x.shape[0], w.shape[0]
    if n < m:  # NumPy swaps and reverses the result
        return flip(_correlate(w, x, mode), 0)
    left = {"valid": 0, "same": m // 2, "full": m - 1}.get(mode)
    if left is None:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})"
                         f"{at(user_location())}")
    right = {"valid": 0, "same": m - 1 - m // 2, "full": m - 1}[mode]
    dtype = np.result_type(x.dtype, w.dtype)
    padded = concatenate([full_value((left,), 0, dtype), astype(x, dtype, copy=False),
                          full_value((right,), 0, dtype)])
    length = n + left + right - m + 1
    if m <= _SLICE_SUM_MAX_TAPS:
        out = None
        for j in range(m):
            term = getitem(padded, slice(j, j + length)) * getitem(w, j)
            out = term if out is None else out + term
        return out
    windows = getitem(padded, as_tracer(np.arange(length)[:, None] + np.arange(m)))
    return matmul(windows, astype(w, dtype, copy=False))


@implements(np.convolve)
def convolve(a, v, mode="full"):
    """NumPy's: the longer operand first, correlated with the other reversed."""
    x, w = (_one_dimensional(as_tracer(t), small_ok=True) for t in (a, v))
    _not_empty(x, w, ("a", "v"))
    if w.shape[0] > x.shape[0]:
        x, w = w, x
    return _correlate(x, flip(w, 0), mode)


@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """NumPy's: for xp[j] <= x < xp[j+1], slope*(x - xp[j]) + fp[j] with
    slope = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]); fp[j] where x == xp[j];
    fp[0] / fp[-1] (or left / right) outside; NaN at a NaN x (given two
    points or more). j is found by comparing against every xp (xp is short
    in the uses this serves).
    Complex fp is interpolated part by part, as NumPy's complex loop does."""
    if period is not None:
        raise unsupported("np.interp(period=)")
    ys = as_tracer(fp)
    v, xs = (_real_points(t) for t in (x, xp))
    if ys.ndim != 1 or xs.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xs.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if xs.shape != ys.shape:
        raise ValueError("fp and xp are not of the same length.")
    if ys.dtype.kind != "c":
        ys = astype(ys, np.float64, copy=False)
        return _interp_part(v, xs, ys, _bound(left, False), _bound(right, False), at_nan=v)
    ys = astype(ys, np.complex128, copy=False)
    bounds = [_bound(b, True) for b in (left, right)]
    parts = [_interp_part(v, xs, emit(part, [ys]),
                          *(None if b is None else emit(part, [b]) for b in bounds),
                          at_nan=nan_value, inverse_width=True)
             for part, nan_value in ((ops.real, v), (ops.imag, 0.0))]
    return emit(ops.make_complex, parts)


def _real_points(points) -> Tracer:
    """x or xp as float64: complex ones raise NumPy's TypeError."""
    t = as_tracer(points)
    if t.dtype.kind == "c":
        if isinstance(points, (Tracer, np.ndarray)):
            raise TypeError(f"Cannot cast array data from {t.dtype!r} to dtype('float64') "
                            f"according to the rule 'safe'")
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    return astype(t, np.float64, copy=False)


def _bound(bound, complex_result: bool):
    """left/right converted as NumPy's C code converts them: to a float by
    float() (a complex NumPy scalar loses its imaginary part with a warning;
    a Python complex or a complex 0-d array raises), or, for complex fp, to
    a complex where the value is a Python complex (np.complex128 is one)."""
    if bound is None:
        return None
    t = as_tracer(bound)
    if t.dtype.kind != "c":
        return astype(t, np.complex128 if complex_result else np.float64, copy=False)
    if isinstance(bound, np.ndarray) or (isinstance(bound, Tracer) and not bound._scalar):
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    if complex_result and (isinstance(bound, complex) or t.dtype == np.complex128):
        return astype(t, np.complex128, copy=False)
    if type(bound) is complex:
        raise TypeError("must be real number, not complex")
    real = astype(t, np.float64, copy=False)  # NumPy's ComplexWarning
    return astype(real, np.complex128) if complex_result else real


def _interp_part(v: Tracer, xs: Tracer, ys: Tracer, left, right, at_nan,
                 inverse_width: bool = False) -> Tracer:
    """One real interpolation (a part of a complex one). NumPy's complex loop
    multiplies by 1 / (x1 - x0) where the real one divides: ``inverse_width``."""
    n = xs.shape[0]
    low = ys[0] if left is None else left
    high = ys[n - 1] if right is None else right
    if n == 1:
        inside = full_value(v.shape, 0.0, np.float64) + ys[0]
    else:
        j = sum_(apply_ufunc(np.less_equal, reshape(xs[:-1], (n - 1,) + (1,) * v.ndim), v),
                 axis=0) - 1
        j = apply_ufunc(np.minimum, apply_ufunc(np.maximum, j, 0), n - 2)
        x0, x1 = take(xs, j), take(xs, j + 1)
        y0, y1 = take(ys, j), take(ys, j + 1)
        slope = (y1 - y0) * (1.0 / (x1 - x0)) if inverse_width else (y1 - y0) / (x1 - x0)
        inside = slope * (v - x0) + y0
        # NumPy: a NaN (inf slopes) is retried from the right end, then fp[j] if flat.
        retry = slope * (v - x1) + y1
        inside = where(apply_ufunc(np.isnan, inside),
                       where(apply_ufunc(np.isnan, retry) & (y0 == y1), y0, retry), inside)
        inside = where(v == x0, y0, where(v == xs[n - 1], ys[n - 1], inside))
        inside = where(apply_ufunc(np.isnan, v), at_nan, inside)  # not with one point
    return where(v < xs[0], low, where(v > xs[n - 1], high, inside))


@implements(np.select)
def select(condlist, choicelist, default=0):
    """NumPy's: the first choice whose condition holds, else ``default``, in
    the result type of the choices and the default (Python numbers weak)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions"
                         f"{at(user_location())}")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible"
                         f"{at(user_location())}")
    conditions = [as_tracer(c) for c in condlist]
    for i, condition in enumerate(conditions):
        if condition.dtype != np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray"
                            f"{at(user_location())}")
    given = (*choicelist, default)
    dtype = np.result_type(*(v if type(v) in (int, float, complex) else
                             v.dtype if isinstance(v, Tracer) else np.asarray(v)
                             for v in given))
    values = [as_tracer(v) for v in given]
    result = astype(values[-1], dtype)
    for condition, choice in zip(conditions[::-1], values[-2::-1]):
        result = where(condition, astype(choice, dtype), result)
    shape = np.broadcast_shapes(*(c.shape for c in conditions), *(v.shape for v in values))
    return broadcast_to(result, shape)


@implements(np.fix)
def fix(x, out=None):
    """NumPy's: the floor of x >= 0, else the ceiling (-0.5 gives -0.0)."""
    if out is not None:
        raise unsupported("np.fix(out=)")
    v = as_tracer(x)
    return where(v >= 0, apply_ufunc(np.floor, v), apply_ufunc(np.ceil, v))


@implements(np.float_power)
def float_power(x1, x2):
    """power computed in float64 at least (complex128 for complex operands)."""
    dtype = np.result_type(*(as_tracer(v).dtype for v in (x1, x2)), np.float64)
    if dtype.kind not in "fc":
        raise TypeError(f"ufunc 'float_power' not supported for the input types"
                        f"{at(user_location())}")
    return apply_ufunc(np.power, astype(as_tracer(x1), dtype), astype(as_tracer(x2), dtype))


@implements(np.divmod)
def divmod_(x1, x2):
    return apply_ufunc(np.floor_divide, x1, x2), apply_ufunc(np.remainder, x1, x2)


@implements(np.modf)
def modf(x):
    """(fraction, integral part), both with x's sign: C's modf (a fraction of
    0 for infinities)."""
    v = as_tracer(x)
    if v.dtype.kind == "c":
        raise TypeError(f"ufunc 'modf' not supported for the input types{at(user_location())}")
    v = astype(v, np.modf.resolve_dtypes((v.dtype, None, None))[1], copy=False)  # its loop's
    whole = apply_ufunc(np.trunc, v)
    fraction = where(apply_ufunc(np.isinf, v), v.dtype.type(0), v - whole)
    return apply_ufunc(np.copysign, fraction, v), whole


@implements(np.frexp)
def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa|
    < 1 (C's frexp): the exponent from log2, put right where it rounded to the
    neighbouring power of two; 0, infinities and NaN keep exponent 0."""
    v = as_tracer(x)
    if v.dtype.kind == "c":
        raise TypeError(f"ufunc 'frexp' not supported for the input types{at(user_location())}")
    v = astype(v, np.frexp.resolve_dtypes((v.dtype, None, None))[1], copy=False)
    finite = apply_ufunc(np.isfinite, v) & (v != 0)
    magnitude = where(finite, apply_ufunc(np.absolute, v), v.dtype.type(1))
    exponent = astype(apply_ufunc(np.floor, apply_ufunc(np.log2, magnitude)), np.int32) + 1
    mantissa = apply_ufunc(np.ldexp, magnitude, -exponent)
    exponent = exponent + astype(mantissa >= 1, np.int32) - astype(mantissa < 0.5, np.int32)
    exponent = where(finite, exponent, np.int32(0))
    return apply_ufunc(np.ldexp, v, where(finite, -exponent, np.int32(0))), exponent


@implements(np.isneginf)
def isneginf(x, out=None):
    return _is_signed_infinity(x, out, negative=True)


@implements(np.isposinf)
def isposinf(x, out=None):
    return _is_signed_infinity(x, out, negative=False)


def _is_signed_infinity(x, out, negative: bool) -> Tracer:
    v = as_tracer(x)
    if out is not None:
        raise unsupported("np.isneginf/np.isposinf(out=)")
    if v.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for {v.dtype} values because it "
                        f"would be ambiguous.{at(user_location())}")
    sign = apply_ufunc(np.signbit, v)
    return apply_ufunc(np.isinf, v) & (sign if negative else apply_ufunc(np.logical_not, sign))


@implements(np.iscomplexobj)
def iscomplexobj(x) -> bool:
    return as_tracer(x).dtype.kind == "c"


@implements(np.isrealobj)
def isrealobj(x) -> bool:
    return as_tracer(x).dtype.kind != "c"


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """Same shape and equal elements (NaNs equal each other with ``equal_nan``)."""
    x, y = as_tracer(a1), as_tracer(a2)
    if x.shape != y.shape:
        return False
    equal = apply_ufunc(np.equal, x, y)
    if equal_nan and (x.dtype.kind in "fc" or y.dtype.kind in "fc"):
        both_nan = apply_ufunc(np.isnan, x) & apply_ufunc(np.isnan, y)
        equal = equal | both_nan
    return all_(equal)


@implements(np.array_equiv)
def array_equiv(a1, a2):
    """Equal elements once broadcast together; False for shapes that do not broadcast."""
    x, y = as_tracer(a1), as_tracer(a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return all_(apply_ufunc(np.equal, x, y))


@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """NumPy's: each jump larger than ``discont`` between neighbours is
    replaced by its remainder modulo ``period``, the corrections summed along
    ``axis`` (a jump of exactly half a period keeps its sign)."""
    x = as_tracer(p)
    (axis,) = normalize_axes(axis, x.ndim)
    jumps = diff(x, axis=axis)
    if isinstance(period, Tracer):
        raise unsupported("np.unwrap with a traced period")
    discont = period / 2 if discont is None else discont
    dtype = np.result_type(jumps.dtype, period)
    if dtype.kind in "iu":
        high, remainder = divmod(period, 2)
        ambiguous = remainder == 0
    else:
        high, ambiguous = period / 2, True
    wrapped = apply_ufunc(np.remainder, jumps + high, period) - high
    if ambiguous:  # a jump of +period/2 wrapped to -period/2: back to +period/2
        wrapped = where((wrapped == -high) & (jumps > 0), astype(as_tracer(high), wrapped.dtype),
                        wrapped)
    correction = wrapped - jumps
    correction = where(apply_ufunc(np.absolute, jumps) < discont,
                       correction.dtype.type(0), correction)
    later = (slice(None),) * axis + (slice(1, None),)
    first = (slice(None),) * axis + (slice(None, 1),)
    head = astype(getitem(x, first), dtype)
    tail = astype(getitem(x, later) + cumsum(correction, axis=axis), dtype)
    return concatenate([head, tail], axis=axis)


@implements(np.i0)
def i0(x):
    """The modified Bessel function of order 0 as NumPy computes it: Cephes's
    Chebyshev series on |x| <= 8 and beyond. Each series sees only inputs of
    its own range, so neither's overflow reaches the gradient of the other."""
    v = as_tracer(x)
    if v.dtype.kind == "c":
        raise TypeError(f"i0 not supported for complex values{at(user_location())}")
    if v.dtype.kind != "f":
        v = astype(v, np.float64)
    v = apply_ufunc(np.absolute, v)
    small = v <= 8.0
    near = where(small, v, v.dtype.type(0))
    far = where(small, v.dtype.type(9), v)
    inner = apply_ufunc(np.exp, near) * _chebyshev(near / 2.0 - 2, _I0_SMALL)
    outer = apply_ufunc(np.exp, far) * _chebyshev(32.0 / far - 2.0, _I0_LARGE) \
        / apply_ufunc(np.sqrt, far)
    return where(small, inner, outer)


# Cephes's coefficients, as NumPy holds them
_I0_SMALL = tuple(float(c) for c in np.lib._function_base_impl._i0A)
_I0_LARGE = tuple(float(c) for c in np.lib._function_base_impl._i0B)


def _chebyshev(t: Tracer, coefficients: tuple[float, ...]) -> Tracer:
    """Cephes's chbevl (Clenshaw's recurrence), in NumPy's order of operations."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c
    return 0.5 * (b0 - b2)


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's: zeros where no condition holds, else each value or each
    function of the elements where its condition holds (a run-time count);
    with one function more than conditions, the last where none holds. (A
    function is called even where its condition selects nothing; NumPy's
    is not.)"""
    v = as_tracer(x)
    conditions = _piecewise_conditions(condlist, v)
    if len(funclist) == len(conditions) + 1:
        none = apply_ufunc(np.logical_not, any_(stack(conditions), axis=0))
        conditions.append(none)
    elif len(funclist) != len(conditions):
        n = len(conditions)
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         f"expected{at(user_location())}")
    flat = reshape(v, (1,)) if v.ndim == 0 else v  # a 0-d x: selected as one element
    y = full_value(flat.shape, 0, v.dtype)
    for condition, fn in zip(conditions, funclist, strict=True):
        mask = reshape(condition, flat.shape)
        if callable(fn):
            setitem(y, mask, fn(getitem(flat, mask), *args, **kw))
        else:
            setitem(y, mask, fn)
    return reshape(y, v.shape)


def _piecewise_conditions(condlist, v: Tracer) -> list[Tracer]:
    """NumPy's reading of condlist: one condition (a boolean array, or a list
    of booleans) or a sequence of them, each as a mask of x's shape."""
    if isinstance(condlist, (Tracer, np.ndarray)):
        single = np.ndim(condlist) < 2 if not isinstance(condlist, Tracer) else condlist.ndim < 2
        items = [condlist] if single and v.ndim != 0 else list(condlist)
    elif np.isscalar(condlist) or (v.ndim != 0 and not isinstance(
            condlist[0], (list, np.ndarray, Tracer))):
        items = [condlist]
    else:
        items = list(condlist)
    return [broadcast_to(astype(as_tracer(c), np.bool_, copy=False), v.shape) for c in items]
