"""Sorting and searching: sort, argsort (stable), partition, searchsorted,
and the searches whose result length the data decides: nonzero, argwhere and
np.where with one argument.
"""

from __future__ import annotations

import numpy as np

from jitaic.errors import at, user_location
from jitaic.ir import ops
from jitaic.tracer.core import Tracer, emit
from jitaic.tracer.numpy.common import (
    as_tracer,
    astype,
    broadcast_to,
    concrete,
    full_value,
    normalize_axes,
    normalize_axis_index,
    not_lowered,
    unsupported,
    where,
)
from jitaic.tracer.numpy.indexing import getitem, take_along_axis
from jitaic.tracer.numpy.registry import implements
from jitaic.tracer.numpy.shapes import ravel, reshape, stack
from jitaic.tracer.numpy.ufuncs import apply_ufunc


@implements(np.argsort, method="argsort")
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    if order is not None:
        raise unsupported("np.argsort(order=) (structured arrays)")
    x = as_tracer(a)
    if axis is None or x.ndim == 0:  # (NumPy sorts a 0-d array's indices as 1-d)
        x = ravel(x)
        axis = 0 if axis is None else axis
    (axis,) = normalize_axes(axis, x.ndim)
    return emit(ops.argsort, [x], {"axis": axis}, scalar=False)


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """NumPy's sort loop of the kind asked for, lane by lane."""
    if order is not None:
        raise unsupported("np.sort(order=) (structured arrays)")
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis_index(axis, x.ndim)
    return emit(ops.sort, [x], {"axis": axis, "kind": _sort_kind(kind, stable)},
                scalar=False)


def _sort_kind(kind, stable) -> str:
    """NumPy's reading of ``kind`` (its first letter, any case) and ``stable``."""
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         f"Use only one of them.{at(user_location())}")
    if stable is not None:
        return "stable" if stable else "quicksort"
    letter = str(kind)[:1].lower() if kind is not None else "q"
    found = {"q": "quicksort", "h": "heapsort", "m": "stable", "s": "stable"}.get(letter)
    if found is None or not isinstance(kind, (str, type(None))):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got "
                         f"{kind!r}){at(user_location())}")
    return found


@implements(np.sort_complex)
def sort_complex(a):
    """Sorted along the last axis, as complex numbers (complex64 for the small
    integers, as NumPy's)."""
    x = sort(a)
    if x.dtype.kind == "c":
        return x
    return astype(x, np.complex64 if x.dtype.char in "bhBH" else np.complex128)


@implements(np.argpartition, method="argpartition")
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition each lane around its ``kth`` elements. A stable
    argsort is one such order (NumPy's order within the partitions is its
    introselect's, which no caller may rely on)."""
    x = as_tracer(a)
    if axis is None or x.ndim == 0:
        x = ravel(x)
        axis = 0 if axis is None else axis
    (axis,) = normalize_axes(axis, x.ndim)
    _check_partition(x, kth, axis, kind, order, "np.argpartition")
    return argsort(x, axis)


@implements(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """Each lane partitioned around its ``kth`` elements: sorted (see argpartition)."""
    x = as_tracer(a)
    if axis is None:
        x, axis = ravel(x), 0
    if x.ndim == 0:  # (normalize_axes accepts axis 0 of a 0-d array, as reductions do)
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension 0"
                                      f"{at(user_location())}")
    (axis,) = normalize_axes(axis, x.ndim)
    _check_partition(x, kth, axis, kind, order, "np.partition")
    return sort(x, axis)


@implements(method="partition")
def partition_method(self, kth, axis=-1, kind="introselect", order=None):
    """``x.partition(kth)`` partitions in place."""
    self.write(partition(self, kth, axis, kind, order).value)


def _check_partition(x: Tracer, kth, axis: int, kind, order, name: str) -> None:
    """NumPy's errors for ``kth``, ``kind`` and ``order``."""
    if order is not None:
        raise unsupported(f"{name}(order=) (structured arrays)")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r}){at(user_location())}")
    ks = concrete(kth)
    if ks is None or None in x.shape:  # (NumPy checks kth where x has elements)
        raise not_lowered(f"{name} with a kth or a length known only when the code runs")
    if ks.dtype == np.bool_:
        raise ValueError(f"Booleans unacceptable as partition index{at(user_location())}")
    if ks.dtype.kind not in "iu" or ks.ndim > 1:
        raise TypeError(f"Partition index must be integer{at(user_location())}")
    n = x.shape[axis]
    if x.aval.size == 0:
        return
    for k in ks.reshape(-1).tolist():
        k = k + n if k < 0 else k
        if not 0 <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n}){at(user_location())}")


@implements(np.lexsort)
def lexsort(keys, axis=-1):
    """Indices sorting by the last key, ties by the one before, ...: a stable
    argsort by each key in turn, from the first."""
    rows = [as_tracer(k) for k in keys] if isinstance(keys, (tuple, list)) else list(
        as_tracer(keys))  # (a traced key is there: NumPy raises for no keys itself)
    if any(k.shape != rows[0].shape for k in rows):
        raise ValueError(f"all keys need to be the same shape{at(user_location())}")
    (axis,) = normalize_axes(axis, max(rows[0].ndim, 1))
    order = argsort(rows[0], axis)
    for key in rows[1:]:
        order = take_along_axis(order, argsort(take_along_axis(key, order, axis), axis), axis)
    return order


@implements(np.searchsorted, method="searchsorted")
def searchsorted(a, v, side="left", sorter=None):
    if sorter is not None:
        raise unsupported("np.searchsorted(sorter=)")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    x, y = as_tracer(a), as_tracer(v)
    dtype = np.result_type(x.dtype, y.dtype)
    x, y = astype(x, dtype, copy=False), astype(y, dtype, copy=False)
    return emit(ops.searchsorted, [x, y], {"side": side})


@implements(method="sort")
def sort_method(self, axis=-1, kind=None, order=None):
    """``x.sort()`` sorts in place."""
    self.write(sort(self, axis, kind, order).value)


# ---------------------------------------------------------------- lengths the data decides
# Each result has one element per true entry of a mask: a length known when
# the code runs (``x[mask]``, the compress op).


def _index_grid(shape: tuple[int, ...], axis: int) -> Tracer:
    """Each element's index along ``axis`` (np.indices(shape)[axis])."""
    if None in shape:
        raise unsupported("np.nonzero of an array whose length is only known at run time")
    line = as_tracer(np.arange(shape[axis], dtype=np.int64))
    return broadcast_to(reshape(line, tuple(-1 if d == axis else 1 for d in range(len(shape)))),
                        shape)


def _nonzero_mask(x: Tracer) -> Tracer:
    return x if x.dtype == np.bool_ else apply_ufunc(np.not_equal, x, 0)


@implements(np.nonzero, method="nonzero")
def nonzero(a):
    x = as_tracer(a)
    if x.ndim == 0:
        raise ValueError(f"Calling nonzero on 0d arrays is not allowed. Use "
                         f"np.atleast_1d(scalar).nonzero() instead.{at(user_location())}")
    mask = _nonzero_mask(x)
    return tuple(getitem(_index_grid(x.shape, d), mask) for d in range(x.ndim))


@implements(np.argwhere)
def argwhere(a):
    """Rows of nonzero's indices: the index grids stacked on a last axis, read
    through the mask."""
    x = as_tracer(a)
    if x.ndim == 0:  # NumPy's: a (count, 0) array
        return getitem(full_value((1, 0), 0, np.int64), reshape(_nonzero_mask(x), (1,)))
    grid = stack([_index_grid(x.shape, d) for d in range(x.ndim)], axis=-1)
    return getitem(grid, _nonzero_mask(x))


@implements(np.where)
def where_(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError(f"either both or neither of x and y should be given"
                         f"{at(user_location())}")
    return where(condition, x, y)
