"""Set routines, by sorting: np.unique and its array-API forms, whose results
have one element per distinct value, a length known when the code runs (the
compress op, as for ``x[mask]``); np.isin; union1d, intersect1d, setdiff1d
and setxor1d as NumPy writes them over unique; trim_zeros."""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit, new_tracer, traced_shape
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    full_value,
    normalize_axes,
    not_lowered,
    unsupported,
    where,
)
from jitaic.tracer.numpy.indexing import flatnonzero, getitem, setitem, take
from jitaic.tracer.numpy.rearranging import flip
from jitaic.tracer.numpy.reductions import any_, argmax, cummax, cumsum
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import concatenate, moveaxis, ravel, reshape
from jitaic.tracer.numpy.sorting import argsort, searchsorted, sort
from jitaic.tracer.numpy.ufuncs import apply_ufunc


def _starts_of_runs(s: Tracer, equal_nan: bool) -> Tracer:
    """Where each run of equal sorted values begins; with ``equal_nan`` the
    NaNs (sorted last) are one run, as in NumPy."""
    differs = apply_ufunc(np.not_equal, s[1:], s[:-1])
    if equal_nan and s.dtype.kind in "fc":
        nan = apply_ufunc(np.isnan, s)
        differs = differs & ~(nan[1:] & nan[:-1])
    return concatenate([_first_flag(s), differs])


def _first_flag(s: Tracer) -> Tracer:
    """[True] before the comparisons of neighbours, [] for an empty ``s``
    (whose length may be known at run time only)."""
    n = traced_shape(s)[0]
    if not isinstance(n, Tracer):
        return as_tracer(np.ones(min(n, 1), bool))
    return full_value((apply_ufunc(np.minimum, n, 1),), True, np.bool_)


@implements(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """NumPy's algorithm: a sort (NumPy's quicksort, or a stable argsort where
    positions are asked for), the first element of each run of equal values,
    its position in the input (return_index), each element's run
    (return_inverse, shaped like the input) and the runs' lengths."""
    x = as_tracer(ar)
    if axis is not None:
        return _unique_along(x, axis, return_index, return_inverse, return_counts)
    flat = ravel(x)
    n = flat.shape[0]
    if n == 0:
        empty = full_value((0,), 0, np.int64)
        values, index, inverse, counts = flat, empty, full_value(x.shape, 0, np.int64), empty
    else:  # only what was asked for: each is a pass over the data, with run-time checks
        order = argsort(flat, kind="stable") if return_index or return_inverse else None
        s = sort(flat) if order is None else getitem(flat, order)
        starts = _starts_of_runs(s, equal_nan)
        values = getitem(s, starts)
        index = getitem(order, starts) if return_index else None
        inverse = _run_of_each(order, starts, x.shape) if return_inverse else None
        counts = _run_lengths(starts) if return_counts else None
    extra = [r for r, wanted in ((index, return_index), (inverse, return_inverse),
                                 (counts, return_counts)) if wanted]
    return (values, *extra) if extra else values


@implements(np.unique_values)
def unique_values(x):
    """The distinct values, NaNs each their own; sorted (NumPy's order is unspecified)."""
    return unique(x, equal_nan=False)


@implements(np.unique_counts)
def unique_counts(x):
    return np.lib._arraysetops_impl.UniqueCountsResult(
        *unique(x, return_counts=True, equal_nan=False))


@implements(np.unique_inverse)
def unique_inverse(x):
    return np.lib._arraysetops_impl.UniqueInverseResult(
        *unique(x, return_inverse=True, equal_nan=False))


@implements(np.unique_all)
def unique_all(x):
    return np.lib._arraysetops_impl.UniqueAllResult(
        *unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False))


def _run_of_each(order: Tracer, starts: Tracer, shape: tuple) -> Tracer:
    """Each input element's run (its value's index in the result), in the input's shape."""
    inverse = full_value(traced_shape(starts), 0, np.int64)
    setitem(inverse, order, cumsum(starts, dtype=np.int64) - 1)
    return reshape(inverse, shape)


def _run_lengths(starts: Tracer) -> Tracer:
    ends = concatenate([starts[1:], _first_flag(starts)])
    return flatnonzero(ends) - flatnonzero(starts) + 1


def _unique_along(x: Tracer, axis, return_index: bool, return_inverse: bool,
                  return_counts: bool):
    """np.unique(axis=): the distinct slices along ``axis``, sorted as NumPy
    sorts them (each a row of elements compared in order; NaN after every
    number); slices are equal where every element is (so NaNs never are)."""
    (axis,) = normalize_axes(axis, x.ndim)
    moved = moveaxis(x, axis, 0)
    n, rest = moved.shape[0], moved.shape[1:]
    if None in moved.shape:
        raise unsupported("np.unique(axis=) of an array whose length is only known at run time")
    rows = reshape(moved, (n, int(np.prod(rest, dtype=np.int64))))
    if n == 0:
        empty = full_value((0,), 0, np.int64)
        values, index, inverse, counts = x, empty, empty, empty
    else:
        order = emit(ops.argsort_rows, [rows], scalar=False)
        s = take(rows, order, axis=0)
        differs = (any_(apply_ufunc(np.not_equal, s[1:], s[:-1]), axis=1) if rows.shape[1]
                   else full_value((n - 1,), False, np.bool_))
        starts = concatenate([as_tracer(np.ones(1, bool)), differs])
        first = getitem(order, starts)  # each run's first slice: a run-time count
        values = moveaxis(take(moved, first, axis=0), 0, axis)
        index = first if return_index else None
        inverse = _run_of_each(order, starts, (n,)) if return_inverse else None
        counts = _run_lengths(starts) if return_counts else None
    extra = [r for r, wanted in ((index, return_index), (inverse, return_inverse),
                                 (counts, return_counts)) if wanted]
    return (values, *extra) if extra else values


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element equals one of test_elements: a binary search in
    them sorted (NaN equals nothing, -0.0 equals 0.0, as ``==`` says)."""
    if kind not in (None, "sort"):
        raise not_lowered(f"np.isin(kind={kind!r})")
    x, tests = as_tracer(element), ravel(as_tracer(test_elements))
    if tests.shape[0] is None or not x.aval.static:
        found = _found_by_merging(x, tests)
    elif tests.shape[0] == 0 or x.aval.size == 0:
        found = full_value(x.shape, False, np.bool_)
    else:
        dtype = np.result_type(x.dtype, tests.dtype)
        x, tests = astype(x, dtype, copy=False), sort(astype(tests, dtype, copy=False))
        at = apply_ufunc(np.minimum, searchsorted(tests, x), tests.shape[0] - 1)
        found = apply_ufunc(np.equal, take(tests, at), x)
    found = apply_ufunc(np.logical_not, found) if invert else found
    return new_tracer(found.value, scalar=False)  # (a 0-d array for a number, as NumPy's)


def _found_by_merging(x: Tracer, tests: Tracer) -> Tracer:
    """isin where a length is known at run time only: both stably sorted together,
    tests first, an element is found where the last test before it is equal."""
    both = concatenate([tests, ravel(x)])
    order = argsort(both, kind="stable")
    s = getitem(both, order)
    position = cumsum(full_value(traced_shape(s), 1, np.int64)) - 1
    is_test = apply_ufunc(np.less, order, traced_shape(tests)[0])
    last_test = cummax(where(is_test, position, -1))
    equal = apply_ufunc(np.equal, take(s, apply_ufunc(np.maximum, last_test, 0)), s)
    in_order = full_value(traced_shape(s), False, np.bool_)
    setitem(in_order, order, equal & apply_ufunc(np.greater_equal, last_test, 0))
    found = getitem(in_order, slice(traced_shape(tests)[0], None))
    return found if x.ndim == 1 else reshape(found, x.shape)


@implements(np.union1d)
def union1d(ar1, ar2):
    return unique(concatenate([ravel(ar1), ravel(ar2)]))


@implements(np.intersect1d)
def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """NumPy's: the distinct values of each, sorted together (stably where
    positions are asked for); a value in both is the one equal to its
    neighbour (so NaN never is)."""
    if assume_unique:
        a, b = ravel(ar1), ravel(ar2)
    elif return_indices:
        (a, first_a), (b, first_b) = unique(ar1, return_index=True), unique(ar2, return_index=True)
    else:
        a, b = unique(ar1), unique(ar2)
    both = concatenate([a, b])
    if not return_indices:  # NumPy's quicksort, as NumPy sorts here
        s = sort(both)
        return getitem(s[:-1], apply_ufunc(np.equal, s[1:], s[:-1]))
    order = argsort(both, kind="stable")
    s = getitem(both, order)
    twice = apply_ufunc(np.equal, s[1:], s[:-1])
    common = getitem(s[:-1], twice)
    in_a = getitem(order[:-1], twice)
    in_b = getitem(order[1:], twice) - traced_shape(a)[0]
    if not assume_unique:
        in_a, in_b = take(first_a, in_a), take(first_b, in_b)
    return common, in_a, in_b


@implements(np.setdiff1d)
def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of ar1 not in ar2: in ar1's order when assumed unique, else
    the distinct values sorted, found as those of ar1 not equal to the next
    value when both are stably sorted together (ar1's copy first)."""
    if assume_unique:
        a = ravel(ar1)
        return getitem(a, isin(a, ar2, invert=True))
    a, b = unique(ar1), unique(ar2)
    both = concatenate([a, b])
    order = argsort(both, kind="stable")
    s = getitem(both, order)
    in_b = concatenate([apply_ufunc(np.equal, s[1:], s[:-1]), _first_flag(s) & False])
    keep = apply_ufunc(np.less, order, traced_shape(a)[0]) & apply_ufunc(np.logical_not, in_b)
    return astype(getitem(s, keep), a.dtype, copy=False)  # ar1's values, in ar1's dtype


@implements(np.setxor1d)
def setxor1d(ar1, ar2, assume_unique=False):
    """The values in exactly one of the two: in the sorted distinct values of
    both, those equal to neither neighbour."""
    a, b = (ravel(ar1), ravel(ar2)) if assume_unique else (unique(ar1), unique(ar2))
    s = sort(concatenate([a, b]))
    if s.shape[0] == 0:
        return s
    unequal = apply_ufunc(np.not_equal, s[1:], s[:-1])
    edge = _first_flag(s)
    alone = concatenate([edge, unequal]) & concatenate([unequal, edge])
    return getitem(s, alone)


@implements(np.trim_zeros)
def trim_zeros(filt, trim="fb", axis=None):
    """A view without the leading ('f') and trailing ('b') zeros along each
    axis: the bounds of the non-zero elements, known when the code runs; an
    array of zeros trims to empty along every axis trimmed."""
    x = as_tracer(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}{at(user_location())}")
    axes = normalize_axes(tuple(range(x.ndim)) if axis is None else axis, x.ndim, "axis")
    if not axes:
        return x
    nonzero = apply_ufunc(np.not_equal, x, 0)
    none = apply_ufunc(np.logical_not, any_(nonzero))
    key = []
    for d in range(x.ndim):
        if d not in axes:
            key.append(slice(None))
            continue
        others = tuple(e for e in range(x.ndim) if e != d)
        along = any_(nonzero, axis=others) if others else nonzero
        n = traced_shape(x)[d]
        start = where(none, 0, argmax(along)) if "f" in trim else 0
        stop = where(none, 0, n - argmax(flip(along, 0))) if "b" in trim else n
        key.append(slice(start, stop))
    return getitem(x, tuple(key))
