"""Statistics: median, quantile and percentile (by selection) and their nan*
forms, ptp, average, cov and corrcoef, histograms (1-d, 2-d, n-d) and digitize.
"""

from __future__ import annotations

import operator

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer, traced_shape
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    concrete,
    full_value,
    normalize_axes,
    not_lowered,
    require,
    size_of,
    unsupported,
    where,
)
from jitaic.tracer.numpy.creation import linspace
from jitaic.tracer.numpy.indexing import add_at, diagonal, getitem, take_along_axis
from jitaic.tracer.numpy.linalg import dot
from jitaic.tracer.numpy.mathematical import clip, diff
from jitaic.tracer.numpy.rearranging import flip
from jitaic.tracer.numpy.reductions import amax, amin, any_, argmax, element_count, mean, sum_
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import (
    atleast_2d,
    concatenate,
    ravel,
    reshape,
    squeeze,
    stack,
    transpose,
)
from jitaic.tracer.numpy.sorting import searchsorted, sort
from jitaic.tracer.numpy.ufuncs import apply_ufunc, imag, real


def _lanes(x: Tracer, axis, what: str) -> tuple[Tracer, tuple[int, ...]]:
    """``x`` with the reduced axes moved last and merged into one; and those axes."""
    axes = normalize_axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    if None in x.aval.shape and len(axes) == 1:  # run-time lengths: no merging needed
        return transpose(x, (*kept, *axes)), axes
    lanes = reshape(transpose(x, (*kept, *axes)),
                    tuple(x.shape[d] for d in kept) + (size_of(x, axes),))
    if lanes.shape[-1] == 0:
        raise unsupported(f"{what} of an empty axis (NumPy returns NaN with a warning)")
    return lanes, axes


def _select(lanes: Tracer, ks) -> tuple[Tracer, dict[int, int]]:
    """The ks-th smallest elements of each lane (NaN last; a partition, no
    sort) along a last axis, and where each k landed in it."""
    ks = tuple(sorted(set(ks)))
    return emit(ops.select, [lanes], {"ks": ks}, scalar=False), {k: j for j, k in enumerate(ks)}


def _order_statistic(value: Tracer, lanes: Tracer, x: Tracer, axes, keepdims: bool,
                     last: Tracer | None = None) -> Tracer:
    """NaN wherever the lane holds one, as NumPy's (of complex lanes the last
    in sorted order, ``last``: NumPy orders the NaNs too); 0-d results are
    NumPy scalars; keepdims puts the reduced axes back as 1s."""
    if lanes.dtype.kind in "fc":
        has_nan = any_(apply_ufunc(np.isnan, lanes), axis=-1)
        nan = full_value((), np.nan, value.dtype) if last is None else last
        value = emit(ops.where, [has_nan, nan, value])
    if keepdims:
        value = reshape(value, tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    return value


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """NumPy's: the mean of the middle one or two elements in sorted order (so
    integers give float64), NaN wherever a NaN is present."""
    if out is not None:
        raise unsupported("np.median(out=)")
    x = as_tracer(a)
    lanes, axes = _lanes(x, axis, "np.median")
    n = lanes.shape[-1]
    if n is None:
        return _median_of_run_time_lanes(lanes, x, axes, keepdims)
    ks = ((n - 1) // 2, n // 2)
    complex_lanes = lanes.dtype.kind == "c"
    chosen, slot = _select(lanes, (*ks, n - 1) if complex_lanes else ks)
    middle = getitem(chosen, (..., slice(slot[ks[0]], slot[ks[1]] + 1)))
    last = getitem(chosen, (..., slot[n - 1])) if complex_lanes else None
    return _order_statistic(mean(middle, axis=-1), lanes, x, axes, keepdims, last)


def _median_of_run_time_lanes(lanes: Tracer, x: Tracer, axes, keepdims: bool) -> Tracer:
    """np.median of lanes whose length is known at run time only (``x[:i]``):
    the middle one or two elements of the sorted lanes, their mean, NaN where
    a lane holds one (NaN sorts last) or is empty."""
    shape = traced_shape(lanes)
    n = shape[-1]
    # one element more, so that an empty lane too has a middle to read
    ordered = concatenate([sort(lanes, axis=-1), full_value(shape[:-1] + (1,), 0,
                                                            lanes.dtype)], axis=-1)
    low = getitem(ordered, (..., apply_ufunc(np.maximum, (n - 1) // 2, 0)))
    high = getitem(ordered, (..., n // 2))
    pair = mean(stack([low, high], axis=-1), axis=-1)  # NumPy's mean of the two
    value = where(n % 2 == 1, astype(low, pair.dtype), pair)  # of one: itself
    value = where(n == 0, full_value((), np.nan, value.dtype), value)
    last = getitem(ordered, (..., apply_ufunc(np.maximum, n - 1, 0))) \
        if lanes.dtype.kind == "c" else None
    return _order_statistic(value, lanes, x, axes, keepdims, last)


@implements(np.digitize)
def digitize(x, bins, right=False):
    """NumPy's: a search of increasing bins, or of decreasing ones reversed
    (the direction is read from the bins; both searches run when it is only
    known at run time). Bins that are not monotonic give NumPy's error only
    when they are constants."""
    edges = as_tracer(bins)
    if edges.ndim != 1:
        raise ValueError("bins must be one-dimensional")
    side = "left" if right else "right"
    if isinstance(bins, np.ndarray):
        if not (np.all(bins[1:] >= bins[:-1]) or np.all(bins[1:] <= bins[:-1])):
            raise ValueError("bins must be monotonically increasing or decreasing")
    increasing = searchsorted(edges, x, side)
    if edges.shape[0] < 2:
        return increasing
    decreasing = edges.shape[0] - searchsorted(flip(edges, 0), x, side)
    # NumPy's direction: the first pair of unequal neighbours (NaN counts as
    # unequal) decreases, or not.
    later, earlier = getitem(edges, slice(1, None)), getitem(edges, slice(None, -1))
    unequal = later != earlier
    first = argmax(unequal)
    down = getitem(later < earlier, first) & any_(unequal)
    return where(down, decreasing, increasing)


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """NumPy's default ("linear") method for static q: the sorted elements at
    floor and ceil of (n - 1) * q, blended by NumPy's _lerp; NaN anywhere
    gives NaN. An integer q (0 or 1) takes the element, in the array's dtype."""
    x, qs, lanes, axes = _quantile_operands("quantile", a, q, axis, out, weights, method)
    n = lanes.shape[-1]
    if n is None:
        results = _quantiles_of_run_time_lanes(lanes, qs.reshape(-1))
        results = [_order_statistic(r, lanes, x, axes, keepdims) for r in results]
        return results[0] if qs.ndim == 0 else reshape(stack(results),
                                                        qs.shape + results[0].shape)
    virtual = (n - 1) * qs.reshape(-1)                  # NumPy's "linear" virtual indices
    below = np.clip(np.floor(virtual), 0, n - 1).astype(int)
    chosen, slot = _select(lanes, (*below, *np.minimum(below + 1, n - 1)))
    results = []
    for v, k in zip(virtual, below, strict=True):
        gamma = v - np.floor(v)                         # a NumPy scalar of q's dtype
        lo = getitem(chosen, (..., slot[k]))
        hi = getitem(chosen, (..., slot[min(k + 1, n - 1)]))
        results.append(_order_statistic(_lerp(lo, hi, gamma, qs), lanes, x, axes, keepdims))
    if qs.ndim == 0:
        return results[0]
    return reshape(stack(results), qs.shape + results[0].shape)


def _quantiles_of_run_time_lanes(lanes: Tracer, qs: np.ndarray) -> list[Tracer]:
    """The "linear" quantiles of lanes of run-time length: the arithmetic of
    the static case, with the virtual indices computed when the code runs."""
    n = traced_shape(lanes)[-1]
    require(n > 0, IndexError, "index -1 is out of bounds for axis 0 with size 0")
    ordered = sort(lanes, axis=-1)
    results = []
    for q in qs:
        virtual = (n - 1) * q                            # in q's dtype, as NumPy's
        floor = apply_ufunc(np.floor, virtual)
        below = astype(clip(floor, 0, n - 1), np.int64)
        lo = getitem(ordered, (..., below))
        hi = getitem(ordered, (..., apply_ufunc(np.minimum, below + 1, n - 1)))
        results.append(_lerp(lo, hi, virtual - floor, qs))
    return results


def _lerp(lo: Tracer, hi: Tracer, gamma, qs: np.ndarray) -> Tracer:
    """NumPy's _lerp, from the nearer end; none for integer levels, whose
    virtual indices NumPy takes the elements at."""
    if qs.dtype.kind in "iu":  # (a 0-d result is a NumPy scalar, as a blend's is)
        return new_tracer(lo.value, scalar=True) if lo.ndim == 0 else lo
    step = hi - lo
    if isinstance(gamma, Tracer):
        return where(gamma >= 0.5, hi - step * (1 - gamma), lo + step * gamma)
    return hi - step * (1 - gamma) if gamma >= 0.5 else lo + step * gamma


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """NumPy's: the quantile of each lane's elements that are not NaN (NaN
    where there are none), by the "linear" method of np.quantile."""
    x, qs, lanes, axes = _quantile_operands("nanquantile", a, q, axis, out, weights, method)
    ordered, count = _sorted_with_counts(lanes)
    results = []
    for level in qs.reshape(-1):
        virtual = astype(count - 1, qs.dtype) * level     # NumPy's, in q's dtype
        floor = apply_ufunc(np.floor, virtual)
        last = apply_ufunc(np.maximum, count - 1, 0)
        below = astype(apply_ufunc(np.maximum, apply_ufunc(np.minimum, floor, last), 0), np.intp)
        lo = take_along_axis(ordered, below, -1)
        hi = take_along_axis(ordered, apply_ufunc(np.minimum, below + 1, last), -1)
        results.append(_per_lane(_lerp(lo, hi, virtual - floor, qs), count, x, axes, keepdims))
    return results[0] if qs.ndim == 0 else reshape(stack(results), qs.shape + results[0].shape)


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    return nanquantile(a, _percent_as_fraction(a, q), axis, out, overwrite_input, method,
                       keepdims, weights=weights)


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of each lane's elements that are not NaN: the middle one,
    or the mean of the middle two; NaN where there are none."""
    if out is not None:
        raise unsupported("np.nanmedian(out=)")
    x = as_tracer(a)
    if x.dtype.kind not in "fc":
        return median(x, axis, keepdims=keepdims)
    lanes, axes = _lanes(x, axis, "np.nanmedian")
    ordered, count = _sorted_with_counts(lanes)
    low = take_along_axis(ordered, apply_ufunc(np.maximum, (count - 1) // 2, 0), -1)
    high = take_along_axis(ordered, apply_ufunc(np.minimum, count // 2, lanes.shape[-1] - 1), -1)
    pair = mean(concatenate([low, high], axis=-1), axis=-1, keepdims=True)
    value = where(count % 2 == 1, astype(low, pair.dtype, copy=False), pair)
    return _per_lane(value, count, x, axes, keepdims)


def _sorted_with_counts(lanes: Tracer) -> tuple[Tracer, Tracer]:
    """The lanes sorted (NaNs last) and how many elements of each are not
    NaN, shaped (..., 1) to index the sorted lanes with."""
    present = apply_ufunc(np.logical_not, apply_ufunc(np.isnan, lanes))
    return sort(lanes, axis=-1), sum_(present, axis=-1, dtype=np.intp, keepdims=True)


def _per_lane(value: Tracer, count: Tracer, x: Tracer, axes, keepdims: bool) -> Tracer:
    """A (..., 1) statistic of each lane: NaN where the lane had no numbers;
    the lane axis dropped, or the reduced axes put back as 1s (keepdims)."""
    if value.dtype.kind in "fc":
        value = emit(ops.where, [count == 0, value.dtype.type(np.nan), value])
    value = getitem(value, (slice(None),) * (value.ndim - 1) + (0,))  # a scalar of 1-d lanes
    if keepdims:
        value = reshape(value, tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)))
    return value


@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    return quantile(a, _percent_as_fraction(a, q), axis, out, overwrite_input, method, keepdims,
                    weights=weights)


def _percent_as_fraction(a, q) -> np.ndarray:
    if isinstance(q, Tracer):
        raise unsupported("np.percentile/np.nanpercentile with a traced q")
    dtype = as_tracer(a).dtype  # NumPy divides by 100 of a float array's dtype
    fraction = np.true_divide(q, dtype.type(100) if dtype.kind == "f" else 100)
    if np.any((fraction < 0) | (fraction > 1)):
        raise ValueError(f"Percentiles must be in the range [0, 100]{at(user_location())}")
    return fraction


def _quantile_operands(name: str, a, q, axis, out, weights, method) -> tuple:
    """np.quantile's and np.nanquantile's checks; the array, q as NumPy holds
    it, the lanes (the reduced axes last, as floats) and the reduced axes."""
    if out is not None or weights is not None or method != "linear":
        raise unsupported(f"np.{name} with out=, weights= or a method other than 'linear'")
    if isinstance(q, Tracer):
        q = concrete(q)  # an array made in the function: its value
        if q is None:
            raise unsupported(f"np.{name} with a traced q")
    x = as_tracer(a)
    if x.dtype.kind == "c":
        raise TypeError(f"a must be an array of real numbers{at(user_location())}")
    qs = _quantile_levels(q, x.dtype)
    if x.dtype == np.bool_ and qs.dtype.kind not in "iu":  # NumPy's _lerp subtracts
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead."
                        f"{at(user_location())}")
    lanes, axes = _lanes(x, axis, f"np.{name}")
    if qs.dtype.kind in "iu":  # elements taken: in the array's dtype
        return x, qs, lanes, axes
    return x, qs, astype(lanes, _float_type(x.dtype), copy=False), axes


def _quantile_levels(q, dtype: np.dtype) -> np.ndarray:
    """q as NumPy holds it: a Python float takes a float array's dtype (the
    virtual indices and blend weights are computed in q's dtype); integers
    stay integers (NumPy takes the elements at their indices)."""
    if isinstance(q, float) and dtype.kind == "f":
        qs = np.asarray(q, dtype=dtype)
    else:
        qs = np.asarray(q)
        qs = qs if qs.dtype.kind in "fiu" else qs.astype(np.float64)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"Quantiles must be in the range [0, 1]{at(user_location())}")
    return qs


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, keepdims=False):
    x = as_tracer(a)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        total = full_value(avg.shape, element_count(x, normalize_axes(axis, x.ndim)), avg.dtype)
    else:
        w = as_tracer(weights)
        if w.shape != x.shape:  # 1-D weights along one axis, as NumPy allows
            if axis is None or w.ndim != 1:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            (ax,) = normalize_axes(axis, x.ndim)
            w = reshape(w, tuple(w.shape[0] if d == ax else 1 for d in range(x.ndim)))
        total = sum_(broadcast_to(w, x.shape) * 1.0, axis, keepdims=keepdims)
        avg = sum_(x * w, axis, keepdims=keepdims) / total
    return (avg, broadcast_to(total, avg.shape)) if returned else avg


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    if fweights is not None or aweights is not None:
        raise unsupported("np.cov(fweights=/aweights=)")
    x = atleast_2d(m)
    others = () if y is None else (as_tracer(y).dtype,)
    x = astype(x, dtype or np.result_type(x.dtype, *others, np.float64))  # float64 at least
    if not rowvar and x.shape[0] != 1:
        x = transpose(x)
    if y is not None:
        yy = astype(atleast_2d(y), x.dtype)
        x = concatenate([x, transpose(yy) if not rowvar and yy.shape[0] != 1 else yy], 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    n = x.shape[1]
    centred = x - mean(x, axis=1, keepdims=True)
    c = dot(centred, transpose(apply_ufunc(np.conjugate, centred))) / max(n - ddof, 0)
    return squeeze(c) if c.shape == (1, 1) else c


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """cov scaled by the outer product of its diagonal's square roots, real
    (and imaginary) parts clipped to [-1, 1], as NumPy's."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:  # (one variable: NumPy's c / c)
        return c / c
    deviation = apply_ufunc(np.sqrt, real(diagonal(c)))
    c = c / reshape(deviation, (-1, 1)) / reshape(deviation, (1, -1))
    if c.dtype.kind != "c":
        return clip(c, -1, 1)
    parts = [clip(part(c), -1, 1) for part in (real, imag)]
    return parts[0] + parts[1] * np.array(1j, c.dtype)


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise unsupported("np.ptp(out=)")
    return apply_ufunc(np.subtract, amax(a, axis, keepdims=keepdims),
                       amin(a, axis, keepdims=keepdims))


def _float_type(dtype: np.dtype) -> np.dtype:
    return np.result_type(dtype, float) if dtype.kind in "biu" else dtype


@implements(np.bincount)
def bincount(x, /, weights=None, minlength=0):
    """Counts (or sums of weights) per value 0..max(x): a length known when it
    runs, at least ``minlength``."""
    a = as_tracer(x)
    if a.ndim != 1:
        raise ValueError(f"object {'too deep' if a.ndim else 'of too small depth'} for "
                         f"desired array{at(user_location())}")
    if a.dtype.kind not in "biu":
        raise TypeError(f"Cannot cast array data from dtype('{a.dtype}') to dtype('int64') "
                        f"according to the rule 'safe'{at(user_location())}")
    ops.check_static(a.aval, "np.bincount")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"'minlength' must not be negative{at(user_location())}")
    w = None if weights is None else astype(as_tracer(weights), np.float64)
    if w is not None and w.shape != a.shape:
        raise ValueError(f"The weights and list don't have the same length."
                         f"{at(user_location())}")
    dtype = np.int64 if w is None else np.float64
    if a.shape[0] == 0:
        return full_value((minlength,), 0, dtype)
    index = astype(a, np.int64)
    require(amin(index) >= 0, ValueError, "'list' argument must have no negative elements")
    length = apply_ufunc(np.maximum, amax(index) + 1, minlength)
    counts = emit(ops.dyn_full, [length], {"shape": (None,), "dtype": np.dtype(dtype), "fill": 0},
                  scalar=False)
    add_at(counts, index, 1 if w is None else w)
    return counts


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """``np.histogram`` with a static number of equal bins, NumPy's binning: the
    edges are ``linspace(min, max, bins + 1)`` (traced), each value's bin is
    computed from its offset and corrected against the edges, counts add up;
    with ``density`` divided by their total and the bins' widths."""
    if not isinstance(bins, (int, np.integer)):
        raise not_lowered("np.histogram with bins other than a number")
    x = ravel(as_tracer(a))
    w = None if weights is None else ravel(as_tracer(weights))
    edges, first, last, keep = _equal_bins(x, bins, range)
    index = _bin_index(x, bins, edges, first, last, keep)
    counts = full_value((bins + 1,), 0, np.int64 if w is None else w.dtype)
    add_at(counts, index, 1 if w is None else w)
    counts = getitem(counts, slice(0, bins))
    if density:  # NumPy's n / db / n.sum()
        counts = counts / diff(edges) / sum_(counts)
    return counts, edges


def _bin_index(x: Tracer, bins: int, edges: Tracer, first, last, keep) -> Tracer:
    """Each value's bin among equal ones, NumPy's: from its offset, corrected
    against the edges; ``bins`` for values outside a static range."""
    index = astype((x - first) / (last - first) * bins, np.int64)
    # in range: NumPy's bins - 1 for the last edge; out of range (dropped
    # below): anything that indexes the edges
    index = clip(index, 0, bins - 1)
    index = where(x < getitem(edges, index), index - 1, index)
    up = (x >= getitem(edges, index + 1)) & (index != bins - 1)
    index = where(up, index + 1, index)
    return index if keep is None else where(keep, index, bins)


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """Counts over a grid of equal bins per dimension (a static number each),
    as float64, NumPy's edges and binning per dimension; samples outside a
    static range are left out."""
    columns = _sample_columns(sample)
    d = len(columns)
    counts_per_axis = _bins_per_axis(bins, d)
    ranges = [None] * d if range is None else list(range)
    if len(ranges) != d:
        raise ValueError(f"range argument must have one entry per dimension"
                         f"{at(user_location())}")
    flat, all_edges, stride = None, [], 1
    outside = None
    for column, n, span in zip(reversed(columns), reversed(counts_per_axis), reversed(ranges),
                               strict=True):
        edges, first, last, keep = _equal_bins(column, n, span)
        index = _bin_index(column, n, edges, first, last, keep)
        dropped = index == n
        outside = dropped if outside is None else outside | dropped
        flat = index * stride if flat is None else flat + index * stride
        all_edges.insert(0, edges)
        stride *= n
    flat = where(outside, stride, flat)  # one bin more, for the samples left out
    w = None if weights is None else ravel(as_tracer(weights))
    counts = full_value((stride + 1,), 0, np.float64)
    add_at(counts, flat, 1.0 if w is None else astype(w, np.float64))
    hist = reshape(getitem(counts, slice(0, stride)), tuple(counts_per_axis))
    if density:  # NumPy's: over each axis's bin widths, then the total
        total = sum_(hist)
        for axis, edges in enumerate(all_edges):
            hist = hist / reshape(diff(edges), (1,) * axis + (-1,) + (1,) * (d - axis - 1))
        hist = hist / total
    return hist, all_edges


def _sample_columns(sample) -> list[Tracer]:
    """np.histogramdd's sample: an (N, D) array, one 1-d array, or D arrays
    (which NumPy joins into one array: one dtype for all)."""
    if isinstance(sample, (list, tuple)):
        columns = [ravel(as_tracer(s)) for s in sample]
        dtype = np.result_type(*(c.dtype for c in columns))
        return [astype(c, dtype, copy=False) for c in columns]
    x = as_tracer(sample)
    if x.ndim == 1:
        return [x]
    if x.ndim != 2:
        raise unsupported("np.histogramdd of a sample with more than two dimensions")
    return [getitem(x, (slice(None), k)) for k in range(x.shape[1])]


def _bins_per_axis(bins, d: int) -> list[int]:
    """A static number of equal bins per axis (arrays of edges or a rule's
    name go to NumPy's callback)."""
    counts = [bins] * d if isinstance(bins, (int, np.integer)) else list(bins)
    if len(counts) != d:
        raise ValueError(f"The dimension of bins must be equal to the dimension of the "
                         f"sample x.{at(user_location())}")
    if not all(isinstance(n, (int, np.integer)) for n in counts):
        raise not_lowered("np.histogramdd/np.histogram2d with bins other than numbers")
    for k, n in enumerate(counts):
        if n < 1:
            raise ValueError(f"`bins[{k}]` must be positive, when an integer"
                             f"{at(user_location())}")
    return [int(n) for n in counts]


@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    hist, (x_edges, y_edges) = histogramdd([x, y], bins, range, density, weights)
    return hist, x_edges, y_edges


@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    if not isinstance(bins, (int, np.integer)):
        raise not_lowered("np.histogram_bin_edges with bins other than a number")
    return _equal_bins(ravel(as_tracer(a)), bins, range)[0]


def _equal_bins(x: Tracer, bins: int, range) -> tuple:
    """NumPy's equal-width bins: the edges, the first and last, and which
    values lie in a static ``range`` (None without one). No data: NumPy's
    range (0, 1)."""
    if range is None and 0 in x.shape:
        range = (0, 1)
    if range is not None:  # static edges (Python floats, as NumPy computes them)
        first, last = (float(v) for v in range)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite"
                             f"{at(user_location())}")
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        first, last = (first - 0.5, last + 0.5) if first == last else (first, last)
        keep = (x >= first) & (x <= last)  # the rest is counted in a bin dropped below
        bin_type = _float_type(np.result_type(first, last, x.dtype))
        edges = np.linspace(first, last, bins + 1, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            raise ValueError(f"{_TOO_MANY_BINS.format(bins)}{at(user_location())}")
        return as_tracer(edges), first, last, keep
    bin_type = _float_type(x.dtype)  # traced edges from the data's min and max
    first, last = astype(amin(x), bin_type), astype(amax(x), bin_type)
    require(apply_ufunc(np.isfinite, first) & apply_ufunc(np.isfinite, last), ValueError,
            "autodetected range of the data is not finite")
    same = first == last  # NumPy widens an empty range by 0.5 each way
    first, last = where(same, first - 0.5, first), where(same, last + 0.5, last)
    edges = linspace(first, last, bins + 1, dtype=bin_type)
    require(apply_ufunc(np.logical_not, any_(edges[:-1] >= edges[1:])), ValueError,
            _TOO_MANY_BINS.format(bins))  # a range too narrow for its value's precision
    return edges, first, last, None


_TOO_MANY_BINS = "Too many bins for data range. Cannot create {} finite-sized bins."
